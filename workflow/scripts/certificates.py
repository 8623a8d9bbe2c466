"""Certificates of the certify runs: for every perturbed table of a data set, the answers
for its test points written with their evidence (witness worlds, bounds) and checked again
by nbcert's standalone checker, ``verify.py`` (the standard library alone, reading the files
itself), so that the report can say how many answers a referee can check.

The answers are Iterate+Index's, as in the certify run of the same table, whose robust
count must agree.  A claim that does not hold stops the job with one line naming the
certificate: nbcert's answer and its evidence disagree.  One record from the rule per table.
"""

import pandas as pd
from common.errors import TableError
from common.job import run_job
from common.tables import read_data, read_table, write_table

from nbcert.methods import certify_encoded, encode
from nbcert.verify import check


def certified(r: dict, label: str) -> dict:
    """Write one table's certificate, check it, and say what held."""
    dirty = read_data(r["dirty"], label)
    enc = encode(dirty, label)
    T = enc.encode_test(read_data(r["test"], label, columns=dirty.columns, complete=True))
    doc = certify_encoded(r["certificate"], enc, T, train=r["dirty"], test=r["test"], label=label)
    claims = check(r["certificate"])
    wrong = [c for c in claims if c.ok is False]
    if wrong:
        raise TableError(f"{r['certificate']}: {wrong[0].claim} does not hold: {wrong[0].message}")
    runs = read_table(r["run"], "certify_run")
    index = runs[(runs.method == "Iterate+Index") & (runs.points == len(T))]
    robust = sum(bool(res["robust"]) for res in doc["results"])
    if len(index) and int(index.robust.iloc[0]) != robust:
        raise TableError(
            f"{r['certificate']}: {robust} robust points, but {r['run']} has {int(index.robust.iloc[0])}"
        )
    rows = [c for c in claims if c.claim.startswith("test point ")]
    return {
        "dataset": r["ds"],
        "rep": int(r["rep"]),
        "perturbation": r["perturbation"],
        "missing_rate": float(r["rate"]),
        "points": len(T),
        "robust": robust,
        "answers": len(rows),
        "checked": sum(c.ok is True for c in rows),
        "claims": len(claims),
        "held": sum(c.ok is True for c in claims),
    }


def main(snakemake):
    p = snakemake.params
    table = pd.DataFrame([certified(r, p.label) for r in p.records])
    write_table(table, snakemake.output.table, "certified")


if __name__ == "__main__":
    run_job(snakemake, main)  # noqa: F821 (Snakemake defines snakemake in the script)
