# Names, wildcards and helpers shared by the rules.
import json

DATASETS = list(config["datasets"])
REPS = list(range(config["repetitions"]))
RATES = [f"{r:g}" for r in config["missing_rates"]]
KINDS = config["perturbations"]
K_MAX = max(config["k_values"])

if config["k_for_rates"] not in config["k_values"]:
    raise ValueError(f"config: k_for_rates {config['k_for_rates']} is not one of k_values {config['k_values']}")
if max(config["beyond"]["poison_many"]["k_values"]) > K_MAX:
    raise ValueError(f"config: beyond.poison_many.k_values must not exceed the {K_MAX} test points drawn (k_values)")
if config["rate_for_k"] not in config["missing_rates"]:
    raise ValueError(f"config: rate_for_k {config['rate_for_k']} is not one of missing_rates {config['missing_rates']}")


wildcard_constraints:
    ds="|".join(DATASETS),
    rep=r"\d+",
    kind="uniform|feature",
    rate=r"[0-9.]+",


def raw_file(wildcards):
    """The fetched file of a data set (evaluated after its fetch checkpoint ran)."""
    folder = checkpoints.fetch.get(ds=wildcards.ds).output[0]
    return f"{folder}/{config['datasets'][wildcards.ds]['file']}"


def fetch_status(ds):
    folder = checkpoints.fetch.get(ds=ds).output[0]
    with open(f"{folder}/status.json") as f:
        return json.load(f)


def available(wildcards=None):
    """Configured data sets that were obtained (the others are reported as missing)."""
    return [ds for ds in DATASETS if fetch_status(ds)["ok"]]


def ks_for(rate):
    """All k at the rate of Figures 8/9, only the k of Figures 6/7 elsewhere."""
    if float(rate) == float(config["rate_for_k"]):
        return sorted(config["k_values"])
    return [config["k_for_rates"]]
