"""profile.py, the CloudLab profile, run with geni-lib as the portal runs it.

geni-lib (the library CloudLab's portal runs profiles with) is imported from its Python 3
wheel in ../shared/geni-lib/dist, put on the profile's PYTHONPATH (a pure-Python wheel
imports from the zip); its dependencies come with the test extra.  Without that folder the
tests skip; with it, a profile that does not import is a failure, not a skip.
"""

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest
from conftest import ROOT

WHEELS = ROOT.parent / "shared" / "geni-lib" / "dist"


def _geni_path() -> dict:
    """PYTHONPATH with geni-lib's wheel first."""
    wheel = sorted(WHEELS.glob("geni_lib-*.whl"))[-1]
    return {"PYTHONPATH": os.pathsep.join([str(wheel), os.environ.get("PYTHONPATH", "")])}


PROFILE = ROOT / "profile.py"
NS = {
    "r": "http://www.geni.net/resources/rspec/3",
    "emulab": "http://www.protogeni.net/resources/rspec/ext/emulab/1",
}


@pytest.fixture(scope="module", autouse=True)
def genilib():
    if not WHEELS.is_dir():
        pytest.skip(f"no geni-lib wheel folder at {WHEELS}")
    proc = subprocess.run(
        [sys.executable, "-c", "import geni.portal, geni.rspec.pg"],
        capture_output=True,
        text=True,
        env={**os.environ, **_geni_path()},
    )
    assert proc.returncode == 0, f"geni-lib does not import from {WHEELS}:\n{proc.stderr[-500:]}"


def _portal(tmp_path, **params):
    """Run profile.py as the portal does: parameters from a JSON file, the RSpec to a file."""
    (tmp_path / "params.json").write_text(json.dumps(params))
    env = {
        **os.environ,
        **_geni_path(),
        "GENILIB_PORTAL_MODE": "1",
        "GENILIB_PORTAL_PARAMS_PATH": str(tmp_path / "params.json"),
        "GENILIB_PORTAL_REQUEST_PATH": str(tmp_path / "request.xml"),
    }
    (tmp_path / "request.xml").unlink(missing_ok=True)
    return subprocess.run(
        [sys.executable, str(PROFILE)], env=env, cwd=tmp_path, capture_output=True, text=True
    )


def _cmdline(*args):
    """Run profile.py standalone: parameters on the command line, the RSpec on stdout."""
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("GENILIB_")}, **_geni_path()}
    return subprocess.run(
        [sys.executable, str(PROFILE), *args], env=env, capture_output=True, text=True
    )


def _nodes(root):
    return root.findall("r:node", NS)


def _check_rspec(
    root,
    n,
    hardware="c6420",
    image="urn:publicid:IDN+emulab.net+image+emulab-ops//UBUNTU24-64-STD",
    target="all",
    config="config.yaml",
):
    nodes = _nodes(root)
    assert [node.get("client_id") for node in nodes] == [f"node{i}" for i in range(n)]
    for i, node in enumerate(nodes):
        assert node.find("r:hardware_type", NS).get("name") == hardware
        assert node.find("r:sliver_type/r:disk_image", NS).get("name") == image
        assert node.find("r:sliver_type", NS).get("name") == "raw"
        execs = node.findall("r:services/r:execute", NS)
        assert len(execs) == 1 and execs[0].get("shell") == "bash"
        words = execs[0].get("command").split()
        assert words[:3] == ["sudo", "bash", "/local/repository/cloudlab/startup.sh"]
        opts = dict(zip(words[3::2], words[4::2]))
        assert opts == {
            "--index": str(i),
            "--role": "controller" if i == 0 else "worker",
            "--nodes": str(n),
            "--target": target,
            "--config": config,
            "--subnet": "10.10.1",
        }
    links = root.findall("r:link", NS)
    if n == 1:
        assert links == [] and nodes[0].findall("r:interface", NS) == []
    else:
        assert len(links) == 1
        refs = [ref.get("client_id") for ref in links[0].findall("r:interface_ref", NS)]
        assert refs == [f"node{i}:if0" for i in range(n)]
        assert links[0].find("emulab:best_effort", NS).get("enabled") == "true"
        assert links[0].find("emulab:vlan_tagging", NS).get("enabled") == "true"
        addrs = [node.find("r:interface/r:ip", NS).get("address") for node in nodes]
        assert addrs == [f"10.10.1.{i + 1}" for i in range(n)]  # what startup.sh's --subnet assumes


def test_defaults_are_the_papers_single_c6420(tmp_path):
    proc = _portal(tmp_path)
    assert proc.returncode == 0, proc.stderr
    _check_rspec(ET.parse(tmp_path / "request.xml").getroot(), 1)


@pytest.mark.parametrize("n", [1, 3])
def test_nodes_lan_and_startup_per_node(tmp_path, n):
    proc = _portal(
        tmp_path, nodes=n, hardware="c6525-25g", target="paper", config="config/test.yaml"
    )
    assert proc.returncode == 0, proc.stderr
    _check_rspec(
        ET.parse(tmp_path / "request.xml").getroot(),
        n,
        hardware="c6525-25g",
        target="paper",
        config="config/test.yaml",
    )


def test_command_line_binding_prints_the_rspec():
    proc = _cmdline(
        "--nodes", "3", "--image", "urn:publicid:IDN+emulab.net+image+emulab-ops//UBUNTU22-64-STD"
    )
    assert proc.returncode == 0, proc.stderr
    _check_rspec(
        ET.fromstring(proc.stdout),
        3,
        image="urn:publicid:IDN+emulab.net+image+emulab-ops//UBUNTU22-64-STD",
    )


RECORD = """
import json, runpy, sys
import geni.portal as portal
seen = {}
define = portal.Context.defineParameter
def record(self, name, description, typ, default, *args, **kw):
    seen[name] = kw.get("longDescription")
    return define(self, name, description, typ, default, *args, **kw)
portal.Context.defineParameter = record
sys.argv = [sys.argv[1]]
runpy.run_path(sys.argv[0], run_name="__main__")
sys.stderr.write(json.dumps(seen))
"""


def test_every_parameter_has_help_text():
    """(geni-lib's own parameter dump, GENILIB_PORTAL_DUMPPARAMS_PATH, fails on Python 3: it
    JSON-dumps its Parameter objects; so the definitions are recorded as they are made.)"""
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("GENILIB_")}, **_geni_path()}
    proc = subprocess.run(
        [sys.executable, "-c", RECORD, str(PROFILE)], env=env, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    helps = json.loads(proc.stderr)
    assert set(helps) == {"nodes", "hardware", "image", "target", "config"}
    assert all(len(h or "") > 30 for h in helps.values()), helps


@pytest.mark.parametrize(
    "params, name",
    [
        ({"nodes": 0}, "nodes"),
        ({"nodes": 33}, "nodes"),
        ({"nodes": -2}, "nodes"),
        ({"nodes": "three"}, "nodes"),
        ({"target": "figures"}, "target"),
        ({"config": "/etc/passwd"}, "config"),
        ({"config": "../shared/x.yaml"}, "config"),
        ({"config": "config/../../x.yaml"}, "config"),
        ({"config": "a b.yaml"}, "config"),
        ({"config": ""}, "config"),
        ({"hardware": "c6420; rm -rf /"}, "hardware"),
        ({"image": "UBUNTU24"}, "image"),
    ],
)
def test_bad_parameters_are_refused_naming_the_parameter(tmp_path, params, name):
    proc = _portal(tmp_path, **params)
    assert proc.returncode > 100, proc  # geni-lib: 100 + the number of errors
    errors = json.loads(proc.stderr)
    assert [e["errorType"] for e in errors] == ["ParameterError"] and errors[0]["params"] == [
        name
    ], errors
    assert "Traceback" not in proc.stderr and not (tmp_path / "request.xml").exists()


def test_bad_parameters_on_the_command_line_too():
    for args, name in (
        (["--nodes", "0"], "nodes"),
        (["--target", "x"], "target"),
        (["--config", "../x"], "config"),
    ):
        proc = _cmdline(*args)
        assert proc.returncode != 0 and name in proc.stderr and "Traceback" not in proc.stderr, (
            args,
            proc.stderr,
        )
        assert "<rspec" not in proc.stdout
