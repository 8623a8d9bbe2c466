"""nbcert: reproduce "Certifiable Robustness for Naive Bayes Classifiers" on bare metal.

One node (the default) is the paper's set-up: one c6420 server running the whole
pipeline, the timed jobs one at a time.  Several nodes make a Slurm cluster: node0 runs
slurmctld and the pipeline and shares its work folder over NFS; every node runs slurmd.

Instructions:
Every node runs `cloudlab/startup.sh` from this repository at boot; node0 then runs the
pipeline by itself.  Watch it with `cat /local/nbcert/STATUS` on node0 (ssh to the host
name List View shows; stage, jobs done of total, the last error).  When it says `done`,
the results are in `/local/nbcert/results/` and archived in
`/local/nbcert/nbcert-results.tar.gz`: copy that off before the experiment ends (its disks
are wiped then), e.g. `scp USER@HOST:/local/nbcert/nbcert-results.tar.gz .`; where
`/proj/<project>/` exists node0 has copied it to `/proj/<project>/nbcert/` (STATUS says
where).  The start-up log is `/local/nbcert-node/startup.log` on every node (a failure
before it: `/var/tmp/startup-*.txt`); the pipeline's log is
`/local/nbcert/logs/pipeline.log` on node0.
"""

import posixpath
import re

import geni.portal as portal
import geni.rspec.pg as pg

MAX_NODES = 32
TARGETS = ("all", "paper")
STARTUP = "/local/repository/cloudlab/startup.sh"
SUBNET = "10.10.1"  # node i is SUBNET.(i+1) on the experiment LAN; startup.sh assumes the same

pc = portal.context

pc.defineParameter(
    "nodes",
    "Number of nodes",
    portal.ParameterType.INTEGER,
    1,
    longDescription="1 (the default) is the paper's set-up: one bare-metal server runs the whole "
    "pipeline, a timed job alone on it. More nodes make a Slurm cluster: node0 runs the "
    "controller and the pipeline, every node runs jobs, a timed job alone on its physical "
    "core. At most %d." % MAX_NODES,
)
pc.defineParameter(
    "hardware",
    "Hardware type",
    portal.ParameterType.NODETYPE,
    "c6420",
    longDescription="The CloudLab hardware type of every node; the paper used c6420 (Clemson).",
)
pc.defineParameter(
    "image",
    "Disk image",
    portal.ParameterType.IMAGE,
    "urn:publicid:IDN+emulab.net+image+emulab-ops//UBUNTU24-64-STD",
    longDescription="The disk image's URN. The pipeline needs Python 3.11 or newer as the image's "
    "python3 (Ubuntu 24.04 has 3.12); the start-up script stops with one line otherwise.",
)
pc.defineParameter(
    "target",
    "Snakemake target",
    portal.ParameterType.STRING,
    "all",
    legalValues=list(TARGETS),
    longDescription="'all': the main job (the paper's experiments, Figures 6-10, the studies beyond the "
    "paper, results/report.md). 'paper': the paper's part alone (results/paper.md).",
)
pc.defineParameter(
    "config",
    "Config file",
    portal.ParameterType.STRING,
    "config.yaml",
    longDescription="The pipeline's config file, a relative path inside this repository (e.g. "
    "config.yaml or config/test.yaml); read with --configfile.",
)

params = pc.bindParameters()

if not 1 <= params.nodes <= MAX_NODES:
    pc.reportError(
        portal.ParameterError(
            "nodes must be between 1 and %d, not %d" % (MAX_NODES, params.nodes), ["nodes"]
        )
    )
if not re.match(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$", params.hardware or ""):
    pc.reportError(
        portal.ParameterError(
            "hardware must be a CloudLab hardware type such as c6420, not %r" % params.hardware,
            ["hardware"],
        )
    )
if not re.match(r"^urn:publicid:IDN\+[^+\s]+\+image\+\S+$", params.image or ""):
    pc.reportError(
        portal.ParameterError(
            "image must be a disk image URN (urn:publicid:IDN+...+image+...), not %r"
            % params.image,
            ["image"],
        )
    )
if params.target not in TARGETS:
    pc.reportError(
        portal.ParameterError(
            "target must be one of %s, not %r" % (", ".join(TARGETS), params.target), ["target"]
        )
    )
config = params.config or ""
if (
    not re.match(r"^[A-Za-z0-9_./-]+$", config)
    or config.startswith("/")
    or ".." in config.split("/")
    or posixpath.normpath(config) in (".", "")
):
    pc.reportError(
        portal.ParameterError(
            "config must be a relative path inside the repository without '..' (e.g. config.yaml), not %r"
            % params.config,
            ["config"],
        )
    )
pc.verifyParameters()

request = pc.makeRequestRSpec()
if params.nodes > 1:
    lan = request.LAN("lan")
    lan.best_effort = True
    lan.vlan_tagging = True
    lan.link_multiplexing = True

for i in range(params.nodes):
    node = request.RawPC("node%d" % i)
    node.hardware_type = params.hardware
    node.disk_image = params.image
    if params.nodes > 1:
        iface = node.addInterface("if0")
        iface.addAddress(pg.IPv4Address("%s.%d" % (SUBNET, i + 1), "255.255.255.0"))
        lan.addInterface(iface)
    role = "controller" if i == 0 else "worker"
    node.addService(
        pg.Execute(
            shell="bash",
            command=(
                "sudo bash %s --index %d --role %s --nodes %d --target %s --config %s --subnet %s"
                % (STARTUP, i, role, params.nodes, params.target, config, SUBNET)
            ),
        )
    )

pc.printRequestRSpec(request)
