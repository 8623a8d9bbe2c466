"""Beyond the paper: which cells to clean, on the real data sets.

For each data set, repetition, perturbation and missing rate, the perturbed table of the
pipeline (the same split and blanking as the decision stage) is cleaned -- true values from
the complete table -- until all k test points are certifiably robust.  Four answers:

* ``random`` -- missing cells in a uniformly random order (the floor rival);
* ``CPClean-style`` -- after Karlas et al. (VLDB 2021): the (label, column) group whose
  cleaning most reduces the expected entropy of the predicted-label distribution over the
  possible worlds, summed over the non-robust points.  The distribution is nbcert's
  Monte-Carlo counting law (beta_lj ~ Binomial(M_lj, 1/delta_j), a uniform random world)
  with ``samples`` worlds per point and decision; revealing a batch of B cells of a group
  reveals how many of them hold t_j (in a world: its count among the group's next B cells,
  hypergeometric given beta), so the expected entropy after cleaning is the conditional
  entropy of the label given that count.  The worlds are kept between decisions: a world
  splits each group's count into its next batch of cells and the rest, and when a batch is
  cleaned only that group changes (its cells leave the world; the next batch is split off
  the rest, hypergeometrically, which leaves a uniform world over the cells still
  missing); a column whose domain grew is drawn afresh.  A decision costs O(points x samples x groups) for the criterion (one sort per
  point and group) plus O(points x samples x labels) for the cleaned group's update;
* ``nbcert`` -- :func:`nbcert.cleaning.next_group` (truth-free, the product's policy);
* ``offline`` -- with the truth: the many-point offline answer (greedy, pruned; exact
  program where small) and its proven lower bound (the largest single-point minimum, or
  the program's bound).  The true minimum lies between them.

Points that no cleaning can certify (proven by the exact single-point minimum: e.g. with
alpha = 0 a test value that no training cell holds) are left out and counted (``excluded``).
Policies clean ``batch`` cells of their chosen group per decision (batch = ``batch_share`` of
the missing cells, at least 1); cells of a group are taken in a seeded random order, the
same for every policy.  A random choice derives from (seed, data set, repetition, variant,
method), so the table is reproducible except for the times.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from .... import cleaning
from ....reading.encoding import encode
from ....stats.support import as_alpha, log_factors, log_tolerance
from ...pipeline.figures import panels, save_figure
from ...pipeline.settings import CleaningSettings
from ...pipeline.stages import complete_rows, perturbed, rng_for, split

METHODS = ("random", "CPClean-style", "nbcert", "offline")
STYLE = {"random": ("tab:red", "-"), "CPClean-style": ("tab:orange", "-"), "nbcert": ("tab:green", "-"),
         "offline": ("black", "--")}
COLUMNS = ["dataset", "perturbation", "missing_rate", "rep", "method", "cells", "certified", "points", "excluded",
           "missing_cells", "final", "lower_bound", "optimal", "time_limited", "seconds", "decisions", "flat", "batch"]
REP = "cleaning"  # the seed part of this study's subsample


# ----------------------------------------------------------------------------- the CPClean-style rival

_TIE = 1e-9  # scores (nats) this close to the best are ties: the first group wins, whatever the rounding


def _supports(F: np.ndarray, N: np.ndarray) -> np.ndarray:
    """Log supports (..., m) from log factors F (..., m, d): log S(l|t) = log N_l + sum_j
    F_lj, as in :func:`nbcert.stats.support.log_support`."""
    return np.log(N.astype(float)) + F.sum(axis=-1)


def _predicted(ls: np.ndarray, tol: float) -> np.ndarray:
    """The label each world predicts (m: a tie within ``tol``) from its log supports ls (..., m)."""
    m = ls.shape[-1]
    if m == 1:
        return np.zeros(ls.shape[:-1], np.int64)
    top2 = np.sort(ls, axis=-1)[..., -2:]
    with np.errstate(invalid="ignore"):  # -inf - -inf: every support zero, a tie
        tie = ~(top2[..., 1] - top2[..., 0] > tol)
    return np.where(tie, m, np.argmax(ls, axis=-1))


def _fresh(pi: np.ndarray, M: np.ndarray, B: np.ndarray, rng, shape: tuple):
    """Uniform worlds of groups with M cells, B of them next in line: how many of the next
    and of the other cells hold t_j, (Bin(B, pi), Bin(M - B, pi)) broadcast to ``shape``."""
    pi = np.broadcast_to(pi, shape)
    return rng.binomial(np.broadcast_to(B, shape), pi), rng.binomial(np.broadcast_to(M - B, shape), pi)


def _reveal(rest: np.ndarray, M: np.ndarray, B: np.ndarray, rng):
    """The worlds once a group's next batch is cleaned: those cells leave, the M cells left
    are the old ``rest`` (a count of t_j per world), and the next B of them are split off:
    Hypergeometric(rest, M - rest, B).  A uniform world stays one: if rest ~ Bin(M, pi),
    the split is (Bin(B, pi), Bin(M - B, pi))."""
    M, B = np.broadcast_to(M, rest.shape), np.broadcast_to(B, rest.shape)
    nxt = rng.hypergeometric(rest, M - rest, B)
    return nxt, rest - nxt


class EntropyChooser:
    """choose(obs, M) for the CPClean-style policy: the group whose batch of cleanings has
    the largest expected entropy reduction (mutual information between the predicted label
    and the number of revealed cells holding t_j), summed over the non-robust points.

    Each point has ``samples`` uniform worlds, kept across decisions: per group (l, j) the
    number of t_j among its next ``batch`` cells (``nxt``, what cleaning the group would
    reveal) and among its other cells (``rest``), shape (k, samples, m, d), with their log
    factors ``F``, log supports ``ls`` and predicted labels ``lab``.  When a group is
    cleaned, only it changes (:func:`_reveal`), and only its label's supports are summed
    again; a column whose domain grew is drawn afresh.  Only the non-robust
    points' worlds are kept (``live``); a point that is not robust again is drawn afresh.
    The criterion per point and group is the plug-in mutual information of (revealed count,
    label) over the worlds, (sum c_kl log c_kl - sum c_k log c_k - sum c_l log c_l +
    S log S) / S with counts c; scores within 1e-9 of the best count as ties (the first
    group in (label, column) order wins).

    Where every sampled world predicts the same label for every non-robust point (their
    disagreeing worlds are too rare to sample), the criterion is flat; the largest group is
    taken and ``flat`` counts such decisions."""

    def __init__(self, N: np.ndarray, T: np.ndarray, alpha, samples: int, batch: int, rng):
        self.N, self.T, self.alpha = np.asarray(N), np.asarray(T), as_alpha(alpha)
        self.samples, self.batch, self.rng = int(samples), int(batch), rng
        with np.errstate(divide="ignore", invalid="ignore"):
            x = np.arange(self.samples + 1, dtype=float)
            self.xlogx = np.where(x > 0, x * np.log(x), 0.0)
        self.flat = 0  # decisions where every sampled world agreed for every point
        self.obs = None

    def __call__(self, obs: np.ndarray, M: np.ndarray):
        obs, M = np.asarray(obs), np.asarray(M)
        todo = ~cleaning.state_decision(obs, M, self.N, self.T, self.alpha).robust
        self.update(obs, M, todo)
        score = np.where(M > 0, self.gains(todo), -1.0)
        if score.max() <= 1e-12:  # no information expected anywhere: the largest group
            score = np.where(M > 0, M.astype(float), -1.0)
            self.flat += 1
        return np.unravel_index(int(np.flatnonzero(score >= score.max() - _TIE)[0]), score.shape)

    # -- the worlds

    def update(self, obs: np.ndarray, M: np.ndarray, keep: np.ndarray | None = None) -> None:
        """Bring the worlds of the points ``keep`` (a mask, default all) to the state
        (obs, M): groups cleaned since the last state are revealed, columns whose domain grew
        redrawn, and a point whose worlds were not kept is drawn afresh; any state that does
        not follow the last one starts afresh.  The other points' worlds are left stale."""
        obs, M = np.asarray(obs), np.asarray(M)
        keep = np.ones(len(self.T), bool) if keep is None else np.asarray(keep, bool)
        if not self._follows(obs, M):
            self._start(obs, M)
        live = np.flatnonzero(keep & self.live)
        cols = np.flatnonzero(((obs.sum(axis=0) > 0) != self.dom).any(axis=1))
        for l, j in zip(*np.nonzero(M != self.M)):
            if j not in cols:
                self._group(obs, M, live, l, j)
        self.obs, self.M = obs.copy(), M.copy()
        for j in cols:
            self._domain(j)
            self._draw(live, j)
        self._draw(np.flatnonzero(keep & ~self.live), slice(None))
        self.live = keep.copy()
        self.lab[keep] = _predicted(self.ls[keep], self.tol)

    def _follows(self, obs, M) -> bool:
        """Is (obs, M) the last state with some cells cleaned (moved from M to obs)?"""
        if self.obs is None or obs.shape != self.obs.shape:
            return False
        moved = obs - self.obs
        return bool((moved >= 0).all() and (moved.sum(axis=2) == self.M - M).all())

    def _start(self, obs, M) -> None:
        k, (m, d, _) = len(self.T), obs.shape
        self.obs, self.M = obs.copy(), M.copy()
        self.tol = log_tolerance(d, int(self.N.sum()), self.alpha)
        self.dom, self.delta = np.zeros((d, obs.shape[2]), bool), np.zeros(d, np.int64)
        self.seen, self.pi = np.zeros((k, d), bool), np.zeros((k, d))
        self.B, self.E = np.zeros((m, d), np.int64), np.zeros((k, m, d), np.int64)
        self.nxt, self.rest = np.zeros((2, k, self.samples, m, d), np.int64)
        self.F, self.lab = np.zeros((k, self.samples, m, d)), np.zeros((k, self.samples), np.int64)
        self.ls = np.zeros((k, self.samples, m))
        self.live = np.zeros(k, bool)  # points whose worlds are current
        for j in range(d):
            self._domain(j)

    def _group(self, obs, M, live, l: int, j: int) -> None:
        """Group (l, j) lost cells: revealed in the worlds of the points ``live``."""
        B = min(int(M[l, j]), self.batch)
        if self.M[l, j] - M[l, j] == self.B[l, j]:  # its next batch was cleaned
            nxt, rest = _reveal(self.rest[live, :, l, j], M[l, j], B, self.rng)
        else:
            nxt, rest = _fresh(self.pi[live, j, None], M[l, j], B, self.rng, (len(live), self.samples))
        self.nxt[live, :, l, j], self.rest[live, :, l, j], self.B[l, j] = nxt, rest, B
        self.E[:, l, j] = np.where(self.seen[:, j], obs[l, j, np.maximum(self.T[:, j], 0)], 0)
        C = self.E[live, None, l, j] + nxt + rest
        self.F[live, :, l, j] = log_factors(C, self.N[l], self.delta[j], self.alpha)
        self.ls[live, :, l] = _supports(self.F[live, :, l], self.N[l])

    def _domain(self, j: int) -> None:
        """Column j's domain, the points' odds pi of t_j, agreeing counts and next batches."""
        t = self.T[:, j]
        self.dom[j] = self.obs[:, j].sum(axis=0) > 0
        self.delta[j] = self.dom[j].sum()
        self.seen[:, j] = (t >= 0) & self.dom[j, np.maximum(t, 0)]
        self.pi[:, j] = self.seen[:, j] / max(int(self.delta[j]), 1)
        self.B[:, j] = np.minimum(self.M[:, j], self.batch)
        self.E[:, :, j] = np.where(self.seen[:, j, None], self.obs[:, j, np.maximum(t, 0)].T, 0)

    def _draw(self, points: np.ndarray, cols) -> None:
        """Fresh uniform worlds for ``points`` in columns ``cols`` (an index or a slice)."""
        if not len(points):
            return
        pi, M, B = self.pi[points][:, None, None, cols], self.M[:, cols], self.B[:, cols]
        nxt, rest = _fresh(pi, M, B, self.rng, (len(points), self.samples) + M.shape)
        self.nxt[points, ..., cols], self.rest[points, ..., cols] = nxt, rest
        C = self.E[points][:, None, :, cols] + nxt + rest
        delta = self.delta[cols]
        N = self.N[:, None] if isinstance(cols, slice) else self.N
        self.F[points, ..., cols] = log_factors(C, N, delta, self.alpha)
        self.ls[points] = _supports(self.F[points], self.N)

    # -- the criterion

    def _sum_clogc(self, a: np.ndarray) -> np.ndarray:
        """sum of c log c over the counts c of equal values along the last axis (length S)."""
        S = a.shape[-1]
        s = np.sort(a.reshape(-1, S), axis=1)
        start = np.ones(s.shape, bool)
        start[:, 1:] = s[:, 1:] != s[:, :-1]
        pos = np.flatnonzero(start)
        runs = np.diff(np.append(pos, s.size))
        return np.bincount(pos // S, weights=self.xlogx[runs], minlength=len(s)).reshape(a.shape[:-1])

    def gains(self, todo: np.ndarray) -> np.ndarray:
        """(m, d): the mutual information of each group's revealed count and the predicted
        label over the sampled worlds, summed over the points ``todo`` (a mask)."""
        m, d = self.M.shape
        lab = self.lab[todo]
        varied = (lab != lab[:, :1]).any(axis=1)  # a point whose worlds all agree gains nothing
        if not varied.any():
            return np.zeros((m, d))
        lab, S = lab[varied], self.samples
        k = self.nxt[np.flatnonzero(todo)[varied]].reshape(len(lab), S, m * d).transpose(0, 2, 1)  # (Q, G, S)
        joint = self._sum_clogc(k * (m + 1) + lab[:, None, :])
        info = (joint - self._sum_clogc(k) - self._sum_clogc(lab)[:, None] + self.xlogx[S]) / S
        return info.sum(axis=0).reshape(m, d)


def entropy_chooser(N: np.ndarray, T: np.ndarray, alpha, samples: int, batch: int, rng) -> EntropyChooser:
    """The CPClean-style policy's choose(obs, M) (see :class:`EntropyChooser`)."""
    return EntropyChooser(N, T, alpha, samples, batch, rng)


# ----------------------------------------------------------------------------- one run

def _random_history(tab, T, alpha, rng, batch):
    """Certified points after every ``batch`` cells of a uniformly random cleaning order."""
    shape = tab.obs.shape
    m, d, K = shape
    r, c = np.nonzero(tab.missing)
    y = np.repeat(np.arange(m), tab.N)
    key = ((y[r] * d + c) * K + tab.values()[r, c])[rng.permutation(len(r))]
    obs, hid = tab.obs.ravel().copy(), tab.hid.ravel().copy()
    history, last = [], 0
    for stop in list(range(0, len(key), batch)) + [len(key)]:
        add = np.bincount(key[last:stop], minlength=obs.size)
        obs, hid, last = obs + add, hid - add, stop
        count = int(cleaning.state_decision(obs.reshape(shape), hid.reshape(shape).sum(axis=2), tab.N, T,
                                            alpha).robust.sum())
        history.append((stop, count))
        if count == len(T):
            break
    return history


def _rows(base, method, history, seconds, decisions, **extra):
    out = []
    for i, (cells, certified) in enumerate(history):
        out.append({**base, "method": method, "cells": int(cells), "certified": int(certified),
                    "final": i == len(history) - 1, "seconds": seconds, "decisions": decisions,
                    "lower_bound": None, "optimal": None, "flat": None, **extra})
    return out


def run_one(tab: cleaning.CleaningTable, T: np.ndarray, base: dict, cfg: CleaningSettings, seed_parts: tuple,
            progress=print) -> list:
    """Every method on one perturbed table; tidy rows."""
    alpha = cfg.alpha
    missing = int(tab.hid.sum())
    batch = max(1, round(cfg.batch_share * missing))
    possible = np.array([cleaning.cleanable(tab, t, alpha) for t in T], bool)
    T = T[possible]  # a point no cleaning can certify (proven) is left out
    base = {**base, "points": len(T), "excluded": int((~possible).sum()), "missing_cells": missing, "batch": batch}
    order = rng_for(*seed_parts, "group order").permutation(tab.enc.n)
    rows = []
    t0 = time.perf_counter()
    hist = _random_history(tab, T, alpha, rng_for(*seed_parts, "random"), batch)
    rows += _rows(base, "random", hist, time.perf_counter() - t0, len(hist) - 1)
    for method in ("CPClean-style", "nbcert"):
        if method == "CPClean-style":
            choose = entropy_chooser(tab.N, T, alpha, cfg.samples, batch, rng_for(*seed_parts, method))
        else:
            def choose(obs, M):
                return cleaning.next_group(obs, M, tab.N, T, alpha, cfg.prior)
        t0 = time.perf_counter()
        _, hist, _ = cleaning.follow(tab, T, choose, alpha, batch, order)
        rows += _rows(base, method, hist, time.perf_counter() - t0, len(hist) - 1, flat=getattr(choose, "flat", None))
    t0 = time.perf_counter()
    many = cleaning.clean_many(tab, T, alpha, "auto", cfg.node_limit, cfg.time_limit)
    hist = [(many.num_cells, len(T))] if many.possible else []
    rows += _rows(base, "offline", hist, time.perf_counter() - t0, 0, lower_bound=many.lower_bound,
                  optimal=bool(many.optimal), time_limited=many.time_limited)
    if not many.possible:
        rows.append({**base, "method": "offline", "cells": None, "certified": None, "final": True,
                     "seconds": time.perf_counter() - t0, "decisions": 0, "lower_bound": many.lower_bound,
                     "optimal": bool(many.optimal), "time_limited": many.time_limited})
    done = {r["method"]: r["cells"] for r in rows if r["final"]}
    progress(f"{base['dataset']} rep {base['rep']} {base['perturbation']} {base['missing_rate']:g}: {missing} missing, "
             + ", ".join(f"{m} {done.get(m)}" for m in METHODS) + f" (lower bound {many.lower_bound})")
    return rows


def run(df: pd.DataFrame, label: str, name: str, seed: int, cfg: CleaningSettings, progress=print) -> pd.DataFrame:
    """The study on one data set's discretized table: every repetition, perturbation and
    missing rate of ``cfg`` (repetitions, perturbations, missing_rates, points,
    feature_share, batch_share, samples, prior, alpha, node_limit, time_limit and
    subsample: rows kept, drawn before the split).  Only the complete rows take part: the
    true value of a cell the data set already lacks is unknown."""
    df = df.iloc[complete_rows(df)].reset_index(drop=True)
    if cfg.subsample and cfg.subsample < len(df):
        keep = np.sort(rng_for(seed, name, REP, "subsample").choice(len(df), cfg.subsample, replace=False))
        df = df.iloc[keep].reset_index(drop=True)
    rows = []
    for rep in range(cfg.repetitions):
        train, test = split(df, cfg.points, seed, name, rep)
        enc = encode(train, label)
        T = enc.encode_test(test)
        for kind in cfg.perturbations:
            for rate in cfg.missing_rates:
                dirty = perturbed(train, label, kind, rate, seed, name, rep, cfg.feature_share)
                miss = dirty[list(enc.features)].isna().to_numpy()[enc.rows]
                tab = cleaning.CleaningTable.build(enc, miss)
                base = {"dataset": name, "perturbation": kind, "missing_rate": rate, "rep": rep}
                rows += run_one(tab, T, base, cfg, (seed, name, rep, kind, f"{rate:.4f}"), progress)
    return pd.DataFrame(rows, columns=COLUMNS)


# ----------------------------------------------------------------------------- summaries

def cells_needed(table: pd.DataFrame) -> pd.DataFrame:
    """Per run and method: cells cleaned when every point was certified (NaN if never) and
    the share of the missing cells that is; the offline rows keep their lower bound."""
    keys = ["dataset", "perturbation", "missing_rate", "rep", "method"]
    fin = table[table.final.astype(bool)].copy()
    fin["done"] = fin.certified == fin.points
    fin["needed"] = np.where(fin.done, fin.cells, np.nan)
    fin["share"] = fin.needed / fin.missing_cells
    return fin[keys + ["needed", "share", "missing_cells", "points", "lower_bound", "optimal", "time_limited",
                       "seconds", "decisions", "flat"]].reset_index(drop=True)


def summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per data set, perturbation and missing rate, medians over the repetitions that needed
    cleaning (``reps``; ``idle_reps`` had every point robust already): cells each method
    needs, nbcert's ratios to random and to the offline answer and bound, and whether the
    targets (<= half of random, <= 2x the floor) hold."""
    need = cells_needed(table)
    wide = need.pivot_table(index=["dataset", "perturbation", "missing_rate", "rep"], columns="method",
                            values="needed", aggfunc="first", dropna=False)
    lb = need[need.method == "offline"].set_index(["dataset", "perturbation", "missing_rate", "rep"]).lower_bound
    missing = need.groupby(["dataset", "perturbation", "missing_rate", "rep"]).missing_cells.first()
    wide = wide.reindex(columns=list(METHODS)).assign(lower_bound=lb.astype(float), missing_cells=missing)
    with np.errstate(divide="ignore", invalid="ignore"):
        wide["vs_random"] = wide["nbcert"] / wide["random"]
        wide["vs_offline"] = wide["nbcert"] / wide["offline"]
        wide["vs_bound"] = wide["nbcert"] / wide["lower_bound"]
        wide["offline_vs_random"] = wide["offline"] / wide["random"]
        wide["bound_vs_random"] = wide["lower_bound"] / wide["random"]
        wide["cpclean_vs_random"] = wide["CPClean-style"] / wide["random"]
    keys = ["dataset", "perturbation", "missing_rate"]
    idle = (wide["random"] == 0).groupby(level=keys, sort=False).sum()
    wide = wide[wide["random"] != 0]  # a repetition whose points were all robust needs no cleaning
    by = wide.groupby(level=keys, sort=False)
    med = by.median().reindex(idle.index)
    med["reps"] = by.size().reindex(idle.index).fillna(0).astype(int)
    med["idle_reps"] = idle.astype(int)
    med.loc[med.reps == 0, ["random", "CPClean-style", "nbcert", "offline", "lower_bound"]] = 0.0
    med["incomplete"] = by[["random", "CPClean-style", "nbcert"]].apply(
        lambda w: int(w.isna().to_numpy().sum())).reindex(idle.index).fillna(0).astype(int)
    zero = med["reps"] == 0
    med["half_of_random"] = (med["vs_random"] <= 0.5) | zero
    med["within_2x_offline"] = (med["vs_offline"] <= 2) | zero
    med["within_2x_bound"] = (med["vs_bound"] <= 2) | zero
    # Every policy's final cleaning certifies all points, so it has at least the minimum
    # number of cells, hence at least the proven bound, in every repetition: where the
    # bound's median share of random's cells exceeds 1/2, no policy can meet target 1.
    med["half_out_of_reach"] = ~zero & (med["bound_vs_random"] > 0.5)
    med["half_reached_offline"] = zero | (med["offline_vs_random"] <= 0.5)  # by the answer with the truth
    return med.reset_index()


def figure(table: pd.DataFrame, outputs, perturbation: str | None = None, missing_rate: float | None = None):
    """Share of test points certified against the share of missing cells cleaned, one panel
    per data set, for one perturbation and missing rate (default: uniform and the middle
    rate); the median over repetitions, the offline answer and its lower bound marked."""
    names = list(dict.fromkeys(table.dataset))
    kind = perturbation or ("uniform" if (table.perturbation == "uniform").any() else table.perturbation.iloc[0])
    rates = sorted(table[table.perturbation == kind].missing_rate.unique())
    rate = missing_rate if missing_rate is not None else rates[len(rates) // 2]
    fig, axes = panels(names, f"Which cells to clean ({kind} perturbation, missing rate {rate:g})", width=3.8,
                       height=3.4)
    grid = np.linspace(0, 1, 201)
    for name, ax in zip(names, axes[0]):
        sub = table[(table.dataset == name) & (table.perturbation == kind) & np.isclose(table.missing_rate, rate)]
        for method in ("random", "CPClean-style", "nbcert"):
            curves = []
            for _, run_ in sub[sub.method == method].groupby("rep"):
                x = run_.cells.to_numpy(float) / run_.missing_cells.iloc[0]
                yv = run_.certified.to_numpy(float) / run_.points.iloc[0]
                curves.append(np.interp(grid, x, yv, right=yv[-1]))
            if curves:
                color, style = STYLE[method]
                ax.plot(grid, np.median(curves, axis=0), color=color, linestyle=style, label=method)
        off = sub[(sub.method == "offline") & sub.cells.notna()]
        if len(off):
            share = (off.cells / off.missing_cells).median()
            ax.plot([share], [1.0], marker="*", color="black", markersize=10, linestyle="none",
                    label="offline (with truth)")
        lbs = sub[sub.method == "offline"].lower_bound.dropna()
        if len(lbs):
            ax.axvline((lbs / sub.missing_cells.iloc[0]).median(), color="black", linestyle=":", linewidth=1,
                       label="offline lower bound")
        ax.set_title(name)
        ax.set_xlabel("share of missing cells cleaned")
        ax.set_ylabel("share of test points certified")
        ax.set_xlim(0, 1)
        ax.set_ylim(-0.02, 1.02)
        ax.grid(True, alpha=0.3)
    axes[0][0].legend(fontsize=7, loc="upper left")
    save_figure(fig, outputs)


# ----------------------------------------------------------------------------- stand-alone timing

def main(argv=None) -> None:
    """Time the study on one data set as the pipeline runs it (``python -m
    nbcert.repro.studies.cleaning --dataset NAME``): the config's settings and seed, the
    discretized table from ``--data``; prints wall and CPU seconds and the peak resident set."""
    import argparse
    import resource

    import yaml

    from ...pipeline.settings import load
    from ...pipeline.tables import read_data

    p = argparse.ArgumentParser(prog="python -m nbcert.repro.studies.cleaning", description=main.__doc__)
    p.add_argument("--dataset", required=True)
    p.add_argument("--data", default="data/discretized", help="folder of the discretized tables")
    p.add_argument("--config", default="config.yaml")
    p.add_argument("--schema", default="workflow/schemas/config.schema.yaml")
    p.add_argument("--out", help="write the study's table (CSV) here")
    a = p.parse_args(argv)
    with open(a.config) as f:
        S = load(yaml.safe_load(f), a.schema)
    label = S.datasets[a.dataset].label
    df = read_data(f"{a.data}/{a.dataset}.csv", label)
    wall, cpu = time.perf_counter(), time.process_time()
    table = run(df, label, a.dataset, S.seed, S.cleaning, progress=lambda s: None)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{a.dataset}: {wall:.1f} s wall, {cpu:.1f} s CPU, peak {peak:.0f} MB, {len(table)} rows")
    if a.out:
        table.to_csv(a.out, index=False)


if __name__ == "__main__":
    main()
