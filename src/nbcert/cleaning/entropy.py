"""A CPClean-style cleaning policy (after Karlas et al., VLDB 2021), a rival to ``policy``.

It chooses the (label, column) group whose cleaning most reduces the expected entropy of
the predicted-label distribution over the possible worlds, summed over the non-robust
points; see :class:`EntropyChooser`.  The reproduction's cleaning study compares it with
random cleaning, nbcert's own policy (``policy``) and the answer with the truth (``single``).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ..kernel import log_factors, log_tolerance
from .table import state_certification

__all__ = ["EntropyChooser", "entropy_chooser"]

_TIE = 1e-9  # scores (nats) this close to the best are ties: the first group wins, whatever the rounding


def _supports(F: np.ndarray, N: np.ndarray) -> np.ndarray:
    """Log supports (..., m) from log factors F (..., m, d): log S(l|t) = log N_l + sum_j
    F_lj, as in :func:`nbcert.kernel.log_support`."""
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
    return rng.binomial(np.broadcast_to(B, shape), pi), rng.binomial(
        np.broadcast_to(M - B, shape), pi
    )


def _reveal(rest: np.ndarray, M: np.ndarray, B: np.ndarray, rng):
    """The worlds once a group's next batch is cleaned: those cells leave, the M cells left
    are the old ``rest`` (a count of t_j per world), and the next B of them are split off:
    Hypergeometric(rest, M - rest, B).  A uniform world stays one: if rest ~ Bin(M, pi),
    the split is (Bin(B, pi), Bin(M - B, pi))."""
    M, B = np.broadcast_to(M, rest.shape), np.broadcast_to(B, rest.shape)
    nxt = rng.hypergeometric(rest, M - rest, B)
    return nxt, rest - nxt


class EntropyChooser:
    """choose(obs, M, robust=None) for the CPClean-style policy: the group whose batch of cleanings has
    the largest expected entropy reduction (mutual information between the predicted label
    and the number of revealed cells holding t_j), summed over the non-robust points.

    Each point has ``n_worlds`` uniform worlds, kept across decisions: per group (l, j) the
    number of t_j among its next ``batch`` cells (``nxt``, what cleaning the group would
    reveal) and among its other cells (``rest``), shape (k, n_worlds, m, d), with their log
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

    def __init__(self, N: np.ndarray, T: np.ndarray, alpha, n_worlds: int, batch: int, rng):
        self.N, self.T, self.alpha = np.asarray(N), np.asarray(T), Fraction(alpha)
        self.n_worlds, self.batch, self.rng = int(n_worlds), int(batch), rng
        with np.errstate(divide="ignore", invalid="ignore"):
            x = np.arange(self.n_worlds + 1, dtype=float)
            self.xlogx = np.where(x > 0, x * np.log(x), 0.0)
        self.flat = 0  # decisions where every sampled world agreed for every point
        self.obs = None

    def __call__(self, obs: np.ndarray, M: np.ndarray, robust=None):
        """The group to clean next in the state (obs, M), ``robust``: which points are
        certifiably robust in it, where the caller knows it."""
        obs, M = np.asarray(obs), np.asarray(M)
        if robust is None:
            robust = state_certification(obs, M, self.N, self.T, self.alpha).robust
        todo = ~np.asarray(robust)
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
        self.nxt, self.rest = np.zeros((2, k, self.n_worlds, m, d), np.int64)
        self.F, self.lab = (
            np.zeros((k, self.n_worlds, m, d)),
            np.zeros((k, self.n_worlds), np.int64),
        )
        self.ls = np.zeros((k, self.n_worlds, m))
        self.live = np.zeros(k, bool)  # points whose worlds are current
        for j in range(d):
            self._domain(j)

    def _group(self, obs, M, live, l: int, j: int) -> None:
        """Group (l, j) lost cells: revealed in the worlds of the points ``live``."""
        B = min(int(M[l, j]), self.batch)
        if self.M[l, j] - M[l, j] == self.B[l, j]:  # its next batch was cleaned
            nxt, rest = _reveal(self.rest[live, :, l, j], M[l, j], B, self.rng)
        else:
            nxt, rest = _fresh(
                self.pi[live, j, None], M[l, j], B, self.rng, (len(live), self.n_worlds)
            )
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
        nxt, rest = _fresh(pi, M, B, self.rng, (len(points), self.n_worlds) + M.shape)
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
        return np.bincount(pos // S, weights=self.xlogx[runs], minlength=len(s)).reshape(
            a.shape[:-1]
        )

    def gains(self, todo: np.ndarray) -> np.ndarray:
        """(m, d): the mutual information of each group's revealed count and the predicted
        label over the sampled worlds, summed over the points ``todo`` (a mask)."""
        m, d = self.M.shape
        lab = self.lab[todo]
        varied = (lab != lab[:, :1]).any(axis=1)  # a point whose worlds all agree gains nothing
        if not varied.any():
            return np.zeros((m, d))
        lab, S = lab[varied], self.n_worlds
        k = (
            self.nxt[np.flatnonzero(todo)[varied]].reshape(len(lab), S, m * d).transpose(0, 2, 1)
        )  # (Q, G, S)
        joint = self._sum_clogc(k * (m + 1) + lab[:, None, :])
        info = (joint - self._sum_clogc(k) - self._sum_clogc(lab)[:, None] + self.xlogx[S]) / S
        return info.sum(axis=0).reshape(m, d)


def entropy_chooser(
    N: np.ndarray, T: np.ndarray, alpha, n_worlds: int, batch: int, rng
) -> EntropyChooser:
    """The CPClean-style policy's choose(obs, M, robust=None) (see :class:`EntropyChooser`)."""
    return EntropyChooser(N, T, alpha, n_worlds, batch, rng)
