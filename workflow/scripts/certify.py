"""Stage 4: time AD, Iterate and Iterate+Index on every perturbed table of a data set.

Times are measured on integer-coded tables: all methods share the encoding, whose time is
reported on its own row.  Each timed row records wall seconds (``time.perf_counter``) and
the process's CPU seconds (``time.process_time``): where they differ much, something else
shared the CPU.  One job per data set, one run table per perturbed table (a record from the
rule each).
"""

import time

import numpy as np
import pandas as pd
from common.draws import rng_for
from common.job import run_job, stamp, timed, times
from common.tables import read_data, write_table

from nbcert.methods import certify_index, certify_iterate, encode, iter_ad


def plain_times(train: pd.DataFrame, test: pd.DataFrame, label: str) -> tuple:
    """CategoricalNB fit on the clean table + one prediction, on ordinal codes."""
    from sklearn.naive_bayes import CategoricalNB  # only the certify jobs pay for importing it

    feats = [c for c in train.columns if c != label]
    both = pd.concat([train[feats], test[feats]])
    codes = both.apply(
        lambda c: pd.factorize(c, use_na_sentinel=False)[0]
    ).to_numpy()  # missing: own category
    Xtr, Xte = codes[: len(train)], codes[len(train) : len(train) + 1]
    cats = codes.max(axis=0) + 1
    y = train[label].to_numpy()
    return timed(lambda: CategoricalNB(min_categories=cats).fit(Xtr, y).predict(Xte))[1:]


def certify_runs(
    clean: pd.DataFrame,
    dirty: pd.DataFrame,
    test: pd.DataFrame,
    label: str,
    ks,
    *,
    ad_worlds: int,
    seed: int,
    name: str,
    rep: int,
    perturbation: str,
    rate: float,
    progress=print,
) -> pd.DataFrame:
    """Time AD, Iterate and Iterate+Index, the paper's methods, for the first k test points,
    for every k.

    Iterate+Index and Iterate are called once per k.  AD runs once, on the first max(ks)
    points, and its time for k is read when its k-th point is decided (``ad_prefixes``): a
    point's worlds and work do not depend on the points after it, so that is the time of AD
    on the first k points, measured, and the points of the smaller k are not decided
    again.  Also times Plain (CategoricalNB on the clean table, one point) and the shared
    encoding of the dirty table, as reference rows.
    """
    enc, *t_enc = timed(lambda: encode(dirty, label))
    T = enc.encode_test(test)
    base = {"dataset": name, "rep": rep, "perturbation": perturbation, "missing_rate": rate}
    empty = {"robust": None, "nonrobust": None, "ad_false_robust": None}
    rows = [
        {**base, "method": "encode", "points": 0, **times(t_enc), **empty},
        {**base, "method": "Plain", "points": 1, **times(plain_times(clean, test, label)), **empty},
    ]
    ad = ad_prefixes(enc, T, ks, ad_worlds, ad_seed(seed, name, rep, perturbation, rate))
    for k in ks:
        exact, runs = _certify_first(enc, T, k, name, f"rep {rep}, {perturbation} {rate}, k={k}")
        runs.append(("AD", checked_ad(exact, ad, k, name, "AD"), ad[1][k]))
        rows += [certify_row(base, m, k, robust, t, exact) for m, robust, t in runs]
        (_, _, t_index), (_, _, t_iter) = runs[:2]  # Iterate+Index's and Iterate's
        progress(
            f"{name} rep {rep} {perturbation} {rate}: k={k} index {t_index[0]:.4f}s iterate {t_iter[0]:.4f}s "
            f"ad {ad[1][k][0]:.3f}s"
        )
    return pd.DataFrame(rows)


def ad_seed(seed: int, name: str, rep: int, perturbation: str, rate: float):
    """The seed AD samples a perturbed table's worlds with (the same for AD's cheaper
    equivalent beyond the paper)."""
    return np.random.default_rng(
        rng_for(seed, name, rep, perturbation, rate, "ad").bit_generator.seed_seq
    )


def _certify_first(enc, T, k: int, name: str, where: str) -> tuple:
    """Iterate+Index and Iterate on the first k points of T, checked against each other:
    (Iterate+Index's Certification, [(method, robust, (wall, CPU) seconds)])."""
    exact, *t_index = timed(lambda: certify_index(enc, T[:k]))
    it, *t_iter = timed(lambda: certify_iterate(enc, T[:k]))
    if not (np.array_equal(it.robust, exact.robust) and np.array_equal(it.label, exact.label)):
        raise AssertionError(f"{name}: Iterate and Iterate+Index disagree ({where})")
    return exact, [("Iterate+Index", exact.robust, t_index), ("Iterate", it.robust, t_iter)]


def checked_ad(exact, ad: tuple, k: int, name: str, method: str) -> np.ndarray:
    """An AD method's answers (``ad_prefixes``) for the first k points, held to Iterate+Index's
    ``exact``: AD never calls a robust point non-robust."""
    robust = ad[0][:k]
    if (exact.robust & ~robust).any():
        raise AssertionError(f"{name}: {method} called a robust point non-robust")
    return robust


def certify_row(base: dict, method: str, k: int, robust, t, exact) -> dict:
    """One method's row at k points: its times, how many it called robust and, for AD,
    how many of those Iterate+Index calls non-robust."""
    return {
        **base,
        "method": method,
        "points": k,
        **times(t),
        "robust": int(robust.sum()),
        "nonrobust": int(k - robust.sum()),
        "ad_false_robust": int((robust & ~exact.robust).sum()) if method.startswith("AD") else None,
    }


def ad_prefixes(enc, T: np.ndarray, ks, n_worlds: int, seed, iter_ad=iter_ad) -> tuple:
    """AD (``iter_ad``, the paper's by default) on the first max(ks) points of T in one call:
    whether each point was called robust, and per k the (wall, CPU) seconds from the call
    until its k-th point was decided -- its set-up included, as in a call on the first k points."""
    want, marks, robust = set(ks), {}, []
    t0, c0 = time.perf_counter(), time.process_time()
    for r, _ in iter_ad(enc, T[: max(ks)], n_worlds=n_worlds, seed=seed):
        robust.append(r)
        if len(robust) in want:
            marks[len(robust)] = (time.perf_counter() - t0, time.process_time() - c0)
    return np.array(robust, bool), marks


def main(snakemake):
    p = snakemake.params
    loaded = None  # the (train, test) paths read last, and their tables
    for r in p.records:
        if loaded is None or loaded[0] != (r["train"], r["test"]):
            clean = read_data(r["train"], p.label)
            test = read_data(r["test"], p.label, columns=clean.columns, complete=True)
            loaded = (r["train"], r["test"]), clean, test
        _, clean, test = loaded
        started = time.time()
        dirty = read_data(r["dirty"], p.label, columns=clean.columns, rows=len(clean))
        table = certify_runs(
            clean,
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
        write_table(stamp(table, started), r["output"], "certify_run")


if __name__ == "__main__":
    run_job(snakemake, main)  # noqa: F821 (Snakemake defines snakemake in the script)
