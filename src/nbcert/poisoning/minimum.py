"""The fewest cells to blank so that one test point stops being certifiably robust: exact,
for any alpha >= 0 (OP; the proof is in ``docs/design.md``, "One-point poisoning").

A blanking leaves every column in one of three *regimes*: *regular* (the test value t_j
and another value stay observed; a label's count of t_j ranges from its observed agreeing
cells to those plus its blanks), *forced* (t_j is the column's only value: every blank
is t_j, and at alpha = 0 the factor is 1 for every label) or *without t_j* (every count
is 0).  Which values a blanking removes from a column (all of their cells blanked) fixes
the regimes and the domain sizes; call that a *configuration*.  For a configuration in
which some label k dominates (its smallest support beats every other largest support)
only k can dominate after further blanks in regular columns, and the point is non-robust
iff some rival l reaches it, ``Smax(l) >= Smin(k)``.  That inequality involves only k's
agreeing cells (``a``, lowering its smallest counts) and l's disagreeing cells (``b``,
raising its largest counts):

    C_L * prod_j (q (X_j + b_j) + p)  >=  C_R * prod_j (q (Y_j - a_j) + p)

over the regular columns (alpha = p/q; X, Y the counts before; C_L, C_R every other factor,
``rival_minimum``).  Within a configuration, caps keep every value observed: l keeps one
cell of each value only l holds (at alpha = 0: one disagreeing cell of a column where only
l has one), and k keeps one t_j cell of a column where only k has one.

* For a budget B of b blanks the largest left side raises the smallest X first
  (water-filling, ``WaterFill``): the gains log((x + 1)/x) shrink as x grows.
* For a budget K of a blanks the smallest right side has at most one column strictly
  between untouched and its cap (moving one blank from the larger to the smaller of two such
  columns lowers the product), and among the capped columns of one residual (Y_j - cap_j,
  0 or 1) the smallest Y first (a swap keeps the product).
* Water-filling's product is convex in B between the budgets where every active column is
  capped and the next one starts higher (``WaterFill.breaks``); a linear a-side then makes
  the total a ceiling of a concave function, so its minimum over B lies at such a break or
  at an end of the range where the piece applies.

So the minimum over all splits is found at a handful of budgets per rival, in exact
integers.  The configurations are searched from the empty one, cheapest first, while
their removals cost less than the best plan found: at alpha = 0 only removing t_j (every
count 0: a tie) or every other value (forcing) changes a factor; at alpha > 0 removing
any value moves the column's domain size and every label's denominator, so every set of
removed values is tried, up to ``SEARCH_LIMIT`` configurations (``SearchTooLarge`` past
that).
"""

from __future__ import annotations

import bisect
import collections
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..blanks import leave_out
from ..certification import certify_ranges, extremes
from ..errors import InputError

DISAGREE = -1  # a step's selector: any value of the column other than the test value
SEARCH_LIMIT = 20_000  # configurations (sets of removed values) tried before refusing


class SearchTooLarge(InputError):
    """The exact search over blankings that remove whole values would try too many sets."""


class WaterFill:
    """A rival's largest counts X raised by b blanks, b_j <= cap_j: for every budget B the
    largest ``prod_j (q (X_j + b_j) + p)`` (alpha = p/q) raises the smallest count first.

    At level L every column with X_j <= L < X_j + cap_j stands at L, the others at X_j or
    their cap; sorted starts and ends with prefix products and sums give a level's
    product and cost in O(log d)."""

    def __init__(self, X: np.ndarray, cap: np.ndarray, p: int, q: int):
        self.X, self.cap = X.tolist(), cap.tolist()
        self.end = [x + c for x, c in zip(self.X, self.cap)]
        self.p, self.q = p, q
        self.total = sum(self.cap)
        live = [(x, e) for x, e, c in zip(self.X, self.end, self.cap) if c > 0]
        self.const = math.prod(q * x + p for x, c in zip(self.X, self.cap) if c == 0)
        self.n = len(live)
        self._by_start, by_end = sorted(live), sorted(live, key=lambda xe: xe[1])
        self.starts = [x for x, _ in self._by_start]
        self.ends = [e for _, e in by_end]
        # untouched (X_j >= L): suffix over starts; capped (end_j <= L): prefix over ends
        self.suf_prod, self.suf_x = [1] * (self.n + 1), [0] * (self.n + 1)
        for i in range(self.n - 1, -1, -1):
            self.suf_prod[i] = self.suf_prod[i + 1] * (q * self.starts[i] + p)
            self.suf_x[i] = self.suf_x[i + 1] + self.starts[i]
        self.pre_prod, self.pre_x, self.pre_cap = (
            [1] * (self.n + 1),
            [0] * (self.n + 1),
            [0] * (self.n + 1),
        )
        for i, (x, e) in enumerate(by_end):
            self.pre_prod[i + 1] = self.pre_prod[i] * (q * e + p)
            self.pre_x[i + 1] = self.pre_x[i] + x
            self.pre_cap[i + 1] = self.pre_cap[i] + e - x
        self.lo = self.starts[0] if live else 0
        self.hi = max(self.ends) if live else 0
        self._sum_x = sum(self.starts)

    def _parts(self, L: int) -> tuple:
        """(capped, untouched) column counts at level L: ends <= L, starts > L (the others
        stand at L and may rise)."""
        return bisect.bisect_right(self.ends, L), self.n - bisect.bisect_right(self.starts, L)

    def spent_at(self, L: int) -> int:
        """Blanks that raise every count to level L (as caps allow)."""
        i, k = self._parts(L)
        active = self.n - i - k
        x_active = self._sum_x - self.pre_x[i] - self.suf_x[self.n - k]
        return self.pre_cap[i] + active * L - x_active

    def product_at(self, L: int, extra: int = 0) -> int:
        """The product at level L with ``extra`` active columns raised one more."""
        i, k = self._parts(L)
        active = self.n - i - k
        a, b = self.q * L + self.p, self.q * (L + 1) + self.p
        return (
            self.const
            * self.pre_prod[i]
            * self.suf_prod[self.n - k]
            * a ** (active - extra)
            * b**extra
        )

    def _level(self, B: int) -> int:
        """The highest level reached with at most B blanks."""
        lo, hi = self.lo, self.hi
        while lo < hi:
            mid = (lo + hi + 1) // 2
            lo, hi = (mid, hi) if self.spent_at(mid) <= B else (lo, mid - 1)
        return lo

    def product(self, B: int) -> int:
        """The largest product with B blanks (B <= total)."""
        L = self._level(B)
        return self.product_at(L, B - self.spent_at(L))

    def values(self, B: int) -> list:
        """The counts after the B blanks water-filling places (B <= total)."""
        L = self._level(B)
        v = [x if L <= x else (L if L < e else e) for x, e in zip(self.X, self.end)]
        extra = B - self.spent_at(L)
        for j in [j for j, (x, e) in enumerate(zip(v, self.end)) if x == L and e > L][:extra]:
            v[j] += 1
        return v

    def first(self, CL: int, target: int) -> int | None:
        """The fewest blanks B with ``CL * product(B) >= target``, None if even all fall short."""
        if CL * self.product_at(self.lo) >= target:
            return 0
        if CL * self.product_at(self.hi) < target:
            return None
        lo, hi = self.lo, self.hi  # level lo falls short, level hi is enough
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (mid, hi) if CL * self.product_at(mid) < target else (lo, mid)
        i, k = self._parts(lo)
        for e in range(1, self.n - i - k + 1):
            if CL * self.product_at(lo, e) >= target:
                return self.spent_at(lo) + e
        raise AssertionError("water-filling: the next level was enough")  # pragma: no cover

    def breaks(self) -> list:
        """Budgets where every active count is capped and the next starts higher: between
        two of them the product is convex in B."""
        out, reach = [], None
        for start, end in self._by_start:
            if reach is not None and start > reach:
                out.append(self.spent_at(reach))
            reach = end if reach is None else max(reach, end)
        return out


@dataclass(frozen=True)
class RivalPlan:
    """A rival's cheapest split: ``b`` and ``a`` blanks per regular column (arrays)."""

    cost: int
    b: np.ndarray
    a: np.ndarray


def _shapes(Y: np.ndarray, cap: np.ndarray, budget, zero: bool):
    """The a-side's candidate capped sets F (column lists) with their cost below budget:
    per residual (Y - cap, 0 or 1) a prefix of its columns by increasing Y.  With ``zero``
    (alpha = 0) one capped column of residual 0 already makes the product 0: longer
    prefixes of that class only cost more."""
    resid = Y - cap
    classes = [
        sorted(np.flatnonzero((resid == r) & (cap > 0)).tolist(), key=lambda j: (Y[j], j))
        for r in (0, 1)
    ]
    for f0 in range(min(len(classes[0]), 1 if zero else len(classes[0])) + 1):
        head = classes[0][:f0]
        if int(cap[head].sum()) >= budget:
            return
        for f1 in range((0 if zero and f0 else len(classes[1])) + 1):
            F = head + classes[1][:f1]
            cost = int(cap[F].sum())
            if cost >= budget:
                break
            yield F, cost


def rival_minimum(fill: WaterFill, CL: int, CR: int, Y, capA, budget=math.inf):
    """Fewest blanks with ``CL * prod(q (X + b) + p) >= CR * prod(q (Y - a) + p)``, b on the
    rival's side (``fill``) and a <= capA on the dominant label's; None if none costs less
    than ``budget`` (module docstring; ``docs/design.md`` for the proof)."""
    p, q = fill.p, fill.q
    best = None
    breaks = fill.breaks()
    order = [j for j in np.argsort(Y, kind="stable").tolist() if capA[j] > 0]
    for F, costF in _shapes(Y, capA, budget, p == 0):
        u = Y.copy()
        u[F] = Y[F] - capA[F]
        terms = (q * u + p).tolist()
        B = fill.first(CL, CR * math.prod(terms))
        if B is not None and costF + B < budget:
            budget, best = costF + B, (costF + B, B, F, None, 0)
        prev = 0  # the partial column: smallest Y for each reach of its cap (a staircase)
        for j in (j for j in order if j not in F):
            if capA[j] <= prev:
                continue
            klo, khi = prev + 1, int(capA[j])
            prev = khi
            if costF + klo >= budget:
                break
            rest = CR * math.prod(terms[:j] + terms[j + 1 :])
            if rest == 0:  # a capped column already zeroes the product: nothing to add
                break
            yj = int(q * Y[j] + p)
            lo_B = fill.first(CL, rest * (yj - q * khi))
            if lo_B is None:
                continue
            hi_B = fill.first(CL, rest * (yj - q * klo))
            hi_B = fill.total if hi_B is None else hi_B
            for B in sorted({lo_B, hi_B, *(g for g in breaks if lo_B < g < hi_B)}):
                R = CL * fill.product(B)
                k = max(klo, -((R - rest * yj) // (q * rest)))  # ceil((rest*yj - R) / (q*rest))
                if k <= khi and costF + B + k < budget:
                    budget, best = costF + B + k, (costF + B + k, B, F, j, k)
    if best is None:
        return None
    total, B, F, j, k = best
    a = np.zeros(len(Y), np.int64)
    a[F] = capA[F]
    if j is not None:
        a[j] = k
    return RivalPlan(total, np.array(fill.values(B)) - np.array(fill.X, np.int64), a)


@dataclass(frozen=True)
class Config:
    """The table after removing whole values: (column, global code) pairs and their cost."""

    removed: tuple
    cost: int
    obs: np.ndarray  # (m, n_codes) observed cells per label and code
    lo: np.ndarray  # (m, d) smallest and largest agreeing counts
    hi: np.ndarray
    ndist: np.ndarray  # (d,) domain sizes
    regular: np.ndarray  # (d,) bool: t_j and another value observed, t_j not blank


class Search:
    """The configurations of one point's table (a ``PoisonedCounts`` state) and the plans
    they give; ``plans()`` lists (cost, steps), cheapest first, the first one minimal."""

    def __init__(self, state, alpha: Fraction = Fraction(0)):
        self.state, self.enc = state, state.enc
        self.alpha = Fraction(alpha)
        self.p, self.q = self.alpha.numerator, self.alpha.denominator
        self.obs = state.observed()
        self.best = math.inf
        self.found: list = []
        self.nodes = 0

    # -------------------------------------------------------------------- configurations

    def config(self, removed: tuple, cost: int) -> Config:
        st, enc = self.state, self.enc
        obs = self.obs.copy()
        M = st.M.copy()
        for j, code in removed:
            M[:, j] += obs[:, code]
            obs[:, code] = 0
        present = obs.sum(axis=0) > 0
        present[enc.missing_codes] = False
        ndist = np.add.reduceat(present.astype(np.int64), enc.offsets[:-1])
        tcode = np.where(st.free | ~st.seen0, enc.missing_codes, st.tcode)
        A = np.where(st.seen0, obs[:, tcode], 0)
        seen = st.seen0 & present[tcode] & (ndist > 0)
        lo, hi = leave_out(*extremes(A, M, ndist, seen), st.free, enc.label_sizes)
        regular = seen & (ndist >= 2) & ~st.free
        return Config(removed, cost, obs, lo, hi, ndist, regular)

    def dominant(self, cfg: Config) -> int:
        """The label that wins in every world of the configuration, -1 if none."""
        delta = cfg.ndist if self.alpha else self.enc.delta
        return int(
            certify_ranges(
                cfg.lo[None], cfg.hi[None], self.enc.label_sizes, delta, self.alpha
            ).label[0]
        )

    def moves(self, star: int) -> tuple:
        """(removals that end robustness at once, moves to search): each (cost, removed
        codes), the moves cheapest first, none costing the best plan or more.

        At alpha = 0 a removal changes a factor only by taking t_j away (every count 0: a
        tie, so it is a whole plan; cheaper than draining the dominant label ``star``'s
        t_j cells only where it holds all of them) or every other value (forcing); at alpha
        > 0 every value's removal moves the column's domain size."""
        enc, st, obs = self.enc, self.state, self.obs
        total = obs.sum(axis=0)
        total[enc.missing_codes] = 0
        starts = enc.offsets[:-1]
        values = np.add.reduceat((total > 0).astype(np.int64), starts)
        t = np.where(st.seen0 & ~st.free, st.tcode, enc.missing_codes)
        usable = ~st.free & (values >= 2) & (total[t] > 0)
        if self.alpha:
            codes = np.flatnonzero((total > 0) & (total < self.best))
            col = np.searchsorted(enc.offsets, codes, side="right") - 1
            keep = ~st.free[col]
            moves = [(int(total[c]), ((int(j), int(c)),)) for c, j in zip(codes[keep], col[keep])]
            return [], sorted(moves)
        kill = usable & (obs[star, t] == total[t]) & (total[t] < self.best)
        ends = [(int(total[t[j]]), ((j, int(t[j])),)) for j in np.flatnonzero(kill).tolist()]
        rest = np.add.reduceat(total, starts) - total[t]
        moves = []
        for j in np.flatnonzero(usable & (rest < self.best)).tolist():
            codes = np.flatnonzero(total[enc.offsets[j] : enc.offsets[j] + enc.delta[j]])
            codes = codes + enc.offsets[j]
            moves.append((int(rest[j]), tuple((j, int(c)) for c in codes if c != t[j])))
        return ends, sorted(moves)

    def run(self, star: int, alternatives: bool = False, exact: bool = True) -> list:
        """Every configuration whose removals cost less than the best plan, cheapest first
        (depth first over the moves); returns the plans found, cheapest first.  ``star``
        is the label that wins every world of the table as it stands; ``alternatives``
        adds each rival's cheapest plan on the table as it stands (greedy together tries
        them in turn).  Without ``exact`` only the table as it stands and the removals that
        are whole plans are tried (a heuristic's candidates, not a proven minimum)."""
        self.visit(self.config((), 0), star, alternatives)
        ends, moves = self.moves(star)
        for cost, removed in ends:
            self._add(cost, self.removal_steps(removed))
        if not exact:
            return sorted(self.found, key=lambda pl: pl[0])
        total = self.obs.sum(axis=0)
        limit = SEARCH_LIMIT

        def dfs(start, removed, cost):
            for i in range(start, len(moves)):
                c = cost + moves[i][0]
                if c >= self.best:
                    break
                new = removed + moves[i][1]
                if not self._keeps_a_value(new, total):
                    continue
                self.nodes += 1
                if self.nodes > limit:
                    raise SearchTooLarge(
                        f"poison: alpha = {self.alpha} and blanking whole values (which moves a "
                        f"column's domain size) would try more than {limit} sets of values; "
                        "use alpha 0 or bin the columns (--bins N)"
                    )
                cfg = self.config(new, c)
                self.visit(cfg, self.dominant(cfg))
                dfs(i + 1, new, c)

        dfs(0, (), 0)
        return sorted(self.found, key=lambda pl: pl[0])

    def _keeps_a_value(self, removed: tuple, total: np.ndarray) -> bool:
        enc = self.enc
        gone = collections.Counter(j for j, _ in removed)
        return all(
            gone[j] < np.count_nonzero(total[enc.offsets[j] : enc.offsets[j] + enc.delta[j]])
            for j in gone
        )

    # -------------------------------------------------------------------------- plans

    def visit(self, cfg: Config, k: int, alternatives: bool = False):
        """Record the configuration's cheapest plans against its dominant label k (-1:
        none, the removals are a plan), one per rival with ``alternatives``."""
        if k < 0:
            self._add(cfg.cost, self.removal_steps(cfg.removed))
            return
        for l in range(self.enc.m):
            if l == k:
                continue
            budget = math.inf if alternatives else self.best - cfg.cost
            plan = self.rival(cfg, k, l, budget)
            if plan is not None:
                steps = self.removal_steps(cfg.removed) + self.steps(cfg, k, l, plan)
                self._add(cfg.cost + plan.cost, steps)

    def _add(self, cost: int, steps: list):
        self.best = min(self.best, cost)
        self.found.append((cost, steps))

    def rival(self, cfg: Config, k: int, l: int, budget) -> RivalPlan | None:
        """Rival l's cheapest split against the dominant label k in this configuration."""
        X, capB, Y, capA = self.sides(cfg, k, l)
        CL, CR = self.constants(cfg, k, l)
        return rival_minimum(WaterFill(X, capB, self.p, self.q), CL, CR, Y, capA, budget)

    def sides(self, cfg: Config, k: int, l: int):
        """(X, capB, Y, capA) over the regular columns (module docstring: the caps)."""
        enc, st = self.enc, self.state
        R = np.flatnonzero(cfg.regular)
        t = st.tcode[R]
        own_t, all_t = cfg.obs[k, t], cfg.obs[:, t].sum(axis=0)
        capA = own_t - ((all_t == own_t) & (own_t > 0))
        other = cfg.obs.copy()
        other[:, t] = 0  # disagreeing cells only
        other[:, enc.missing_codes] = 0
        mine = other[l]
        rest = other.sum(axis=0) - mine
        D = np.add.reduceat(mine, enc.offsets[:-1])[R]
        if self.alpha:  # keep one cell of each value only l holds
            only = np.add.reduceat(((mine > 0) & (rest == 0)).astype(np.int64), enc.offsets[:-1])[R]
            capB = D - only
        else:  # keep one disagreeing cell when only l has any
            capB = D - ((np.add.reduceat(rest, enc.offsets[:-1])[R] == 0) & (D > 0))
        return cfg.hi[l, R].astype(np.int64), capB, cfg.lo[k, R].astype(np.int64), capA

    def constants(self, cfg: Config, k: int, l: int) -> tuple:
        """C_L, C_R: the priors, the fixed columns' factors and every denominator."""
        p, q, N = self.p, self.q, self.enc.label_sizes
        used = ~self.state.free
        fixed = used & ~cfg.regular
        delta = cfg.ndist[used].tolist()
        CL = int(N[l]) * math.prod((q * cfg.hi[l, fixed] + p).tolist())
        CR = int(N[k]) * math.prod((q * cfg.lo[k, fixed] + p).tolist())
        CL *= math.prod(q * int(N[k]) + p * dj for dj in delta)
        CR *= math.prod(q * int(N[l]) + p * dj for dj in delta)
        return CL, CR

    def removal_steps(self, removed: tuple) -> list:
        """Steps blanking every cell of the removed values."""
        return [
            (l, j, code, int(self.obs[l, code]))
            for j, code in removed
            for l in np.flatnonzero(self.obs[:, code]).tolist()
        ]

    def steps(self, cfg: Config, k: int, l: int, plan: RivalPlan) -> list:
        """The rival plan's blanks as steps (label, column, selector, count)."""
        R = np.flatnonzero(cfg.regular).tolist()
        out = [(k, j, int(self.state.tcode[j]), int(a)) for j, a in zip(R, plan.a.tolist()) if a]
        for j, b in zip(R, plan.b.tolist()):
            if b and not self.alpha:
                out.append((l, j, DISAGREE, int(b)))
            elif b:
                out += self._per_value(cfg, l, j, int(b))
        return out

    def _per_value(self, cfg: Config, l: int, j: int, b: int) -> list:
        """b of l's disagreeing cells of column j, by value: first the values other labels
        also hold (all their cells), then one cell short of each value only l holds."""
        enc, obs = self.enc, cfg.obs
        codes = [
            c
            for c in range(enc.offsets[j], enc.offsets[j] + enc.delta[j])
            if c != self.state.tcode[j] and obs[l, c]
        ]
        shared = [c for c in codes if obs[:, c].sum() > obs[l, c]]
        only = [c for c in codes if c not in shared]
        out = []
        for c, room in [(c, int(obs[l, c])) for c in shared] + [
            (c, int(obs[l, c]) - 1) for c in only
        ]:
            take = min(room, b)
            if take:
                out.append((l, j, c, take))
                b -= take
        return out
