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

from nbcert.methods import certify_index, certify_iterate, encode, iter_ad, iter_ad_counts

# The two AD implementations a decision run times, by method name: the paper's (Figures
# 6-9) and the cheaper one beyond the paper, shown only in the report's table of extras.
AD_METHODS = {"AD": iter_ad, "AD (counts only)": iter_ad_counts}


def plain_times(train: pd.DataFrame, test: pd.DataFrame, label: str) -> tuple:
    """CategoricalNB fit on the clean table + one prediction, on ordinal codes."""
    from sklearn.naive_bayes import CategoricalNB  # only the decision jobs pay for importing it

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
    """Time AD, Iterate and Iterate+Index for the first k test points, for every k.

    Iterate+Index and Iterate are called once per k.  AD (each of ``AD_METHODS``) runs
    once, on the first max(ks) points, and its time for k is read when its k-th point is
    decided (``ad_prefixes``): a point's worlds and work do not depend on the points after
    it, so that is the time of AD on the first k points, measured, and the points of the
    smaller k are not decided again.  Both AD methods get the same seed.  Also times Plain
    (CategoricalNB on the clean table, one point) and the shared encoding of the dirty
    table, as reference rows.
    """
    enc, *t_enc = timed(lambda: encode(dirty, label))
    T = enc.encode_test(test)
    base = {"dataset": name, "rep": rep, "perturbation": perturbation, "missing_rate": rate}
    empty = {"robust": None, "nonrobust": None, "ad_false_robust": None}
    rows = [
        {**base, "method": "encode", "points": 0, **times(t_enc), **empty},
        {**base, "method": "Plain", "points": 1, **times(plain_times(clean, test, label)), **empty},
    ]
    ad_seed = rng_for(seed, name, rep, perturbation, rate, "ad").bit_generator.seed_seq
    ads = {
        m: ad_prefixes(enc, T, ks, ad_worlds, np.random.default_rng(ad_seed), fn)
        for m, fn in AD_METHODS.items()
    }
    for k in ks:
        exact, runs = _certify_first(
            enc, T, k, ads, name, f"rep {rep}, {perturbation} {rate}, k={k}"
        )
        rows += [_certify_row(base, m, k, robust, t, exact) for m, robust, t in runs]
        (_, _, t_index), (_, _, t_iter) = runs[:2]  # Iterate+Index's and Iterate's
        progress(
            f"{name} rep {rep} {perturbation} {rate}: k={k} index {t_index[0]:.4f}s iterate {t_iter[0]:.4f}s "
            f"ad {ads['AD'][1][k][0]:.3f}s"
        )
    return pd.DataFrame(rows)


def _certify_first(enc, T, k: int, ads: dict, name: str, where: str) -> tuple:
    """Iterate+Index and Iterate on the first k points of T, and the AD methods' answers
    ``ads`` for them, each checked against Iterate+Index: (its Certification, [(method, robust,
    (wall, CPU) seconds)])."""
    exact, *t_index = timed(lambda: certify_index(enc, T[:k]))
    it, *t_iter = timed(lambda: certify_iterate(enc, T[:k]))
    if not (np.array_equal(it.robust, exact.robust) and np.array_equal(it.label, exact.label)):
        raise AssertionError(f"{name}: Iterate and Iterate+Index disagree ({where})")
    runs = [("Iterate+Index", exact.robust, t_index), ("Iterate", it.robust, t_iter)]
    for method, (ad_robust, t_ads) in ads.items():
        if (exact.robust & ~ad_robust[:k]).any():
            raise AssertionError(f"{name}: {method} called a robust point non-robust")
        runs.append((method, ad_robust[:k], t_ads[k]))
    return exact, runs


def _certify_row(base: dict, method: str, k: int, robust, t, exact) -> dict:
    """One method's row at k points: its times, how many it called robust and, for AD,
    how many of those Iterate+Index calls non-robust."""
    return {
        **base,
        "method": method,
        "points": k,
        **times(t),
        "robust": int(robust.sum()),
        "nonrobust": int(k - robust.sum()),
        "ad_false_robust": int((robust & ~exact.robust).sum()) if method in AD_METHODS else None,
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
