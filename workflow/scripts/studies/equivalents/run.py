"""Beyond the paper: cheaper equivalents of the paper's baselines, on the paper's own runs.

Figures 6-10 time AD, RP and SR as the paper describes them (stages ``certify`` and
``poison``).  The same questions have cheaper answers, timed here on the same tables with
the same seeds, so that their answers can be held to the paper's methods' (the report's
"Cheaper equivalents" section):

* ``AD (counts only)`` (:func:`nbcert.methods.iter_ad_counts`): the observed cells counted
  once, and per sampled world only how many missing cells of each feature and label took
  each value; on every perturbed table of the certify stage, its first max(points) test
  points with AD's seed, read at every number of test points as AD is (``ad_prefixes``);
* ``RP (incremental)`` and ``SR (incremental)``: the same cells blanked in the same order as
  RP and SR (same seed), robustness read off running sums of the counts instead of Iterate
  after every cell, on the poison stage's complete training rows and first test point.

One job per data set; two tables in the schemas of the paper's run tables
(``certify_run``, ``poisoning_run``).
"""

import time

import pandas as pd
from certify import ad_prefixes, ad_seed, certify_row, checked_ad
from common.job import run_job, stamp
from common.tables import read_data, write_table
from poison import first_point, method_row

from nbcert.methods import certify_index, encode, iter_ad_counts

AD_COUNTS = "AD (counts only)"
# the poisoning baselines' cheaper equivalents: (poison_encoded's method, its check)
POISONING = {"RP (incremental)": ("rp", "incremental"), "SR (incremental)": ("sr", "incremental")}


def ad_counts_rows(dirty, test, label, ks, *, ad_worlds, seed, name, rep, perturbation, rate):
    """AD (counts only) on one perturbed table at every number of test points of ``ks``."""
    enc = encode(dirty, label)
    T = enc.encode_test(test)
    base = {"dataset": name, "rep": rep, "perturbation": perturbation, "missing_rate": rate}
    ad = ad_prefixes(
        enc, T, ks, ad_worlds, ad_seed(seed, name, rep, perturbation, rate), iter_ad_counts
    )
    rows = []
    for k in ks:
        exact = certify_index(enc, T[:k])
        robust = checked_ad(exact, ad, k, name, AD_COUNTS)
        rows.append(certify_row(base, AD_COUNTS, k, robust, ad[1][k], exact))
    return rows


def certify_table(p) -> pd.DataFrame:
    """AD (counts only) on every perturbed table of the data set (records as the certify rule's)."""
    tables = []
    for r in p.records:
        started = time.time()
        clean = read_data(r["train"], p.label)
        test = read_data(r["test"], p.label, columns=clean.columns, complete=True)
        dirty = read_data(r["dirty"], p.label, columns=clean.columns, rows=len(clean))
        rows = ad_counts_rows(
            dirty,
            test,
            p.label,
            p.points[r["rate"]],
            ad_worlds=p.ad_worlds,
            seed=p.seed,
            name=r["ds"],
            rep=int(r["rep"]),
            perturbation=r["perturbation"],
            rate=float(r["rate"]),
        )
        tables.append(stamp(pd.DataFrame(rows), started))
    return pd.concat(tables, ignore_index=True)


def poisoning_table(p) -> pd.DataFrame:
    """RP and SR (incremental) on every repetition's first test point."""
    tables = []
    for r in p.repetitions:
        started = time.time()
        train = read_data(r["train"], p.label)
        test = read_data(r["test"], p.label, columns=train.columns, complete=True)
        enc, t = first_point(train, test, p.label)
        rows = [
            method_row(enc, t, m, code, check, seed=p.seed, name=r["ds"], rep=int(r["rep"]))
            for m, (code, check) in POISONING.items()
        ]
        tables.append(stamp(pd.DataFrame(rows), started))
    return pd.concat(tables, ignore_index=True)


def main(snakemake):
    p = snakemake.params
    write_table(certify_table(p), snakemake.output.certify, "certify_run")
    write_table(poisoning_table(p), snakemake.output.poisoning, "poisoning_run")


if __name__ == "__main__":
    run_job(snakemake, main)  # noqa: F821 (Snakemake defines snakemake in the script)
