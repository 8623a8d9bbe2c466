"""The mixed-integer programs of the searches for points together, and the answer they share.

Poisoning points together (``nbcert.poisoning.relaxation``) and cleaning them together
(``nbcert.cleaning.program``) both ask HiGHS (``scipy.optimize.milp``) for the fewest cells
under constraints linear in counts of interchangeable cells.  Both need the same four
things, kept here once:

* a program built column by column and row by row (``Program``);
* its solve under a time limit, and for cleaning a node limit (``Program.solve``);
* the proven lower bound rounded to the integer it proves: the objective counts cells,
  so the optimum is an integer and a dual bound b proves ceil(b - 1e-6), the 1e-6
  absorbing HiGHS's feasibility tolerance (``Solved.lower_bound``);
* whether the time limit cut the solve short (``Solved.time_limited``): the one stop whose
  answer depends on the machine's speed (a node limit does not);
* the solver's own prints kept off standard output (``solver_output_to_stderr``): HiGHS
  writes some messages with C's printf whatever its options say (for example "HighsMipSolver
  Data::transformNewIntegerFeasibleSolution tmpSolver.run();" before ``--json``'s JSON), so
  while it runs file descriptor 1 points to standard error.

``TogetherPoints`` is the answer of a search for points together: the cells, the method, whether they
are proven minimum, a proven lower bound, and whether a time limit cut the search short.
It extends ``CellAnswer``, the cells and ``num_cells`` every answer about cells has.
``count_vectors`` lists every vector of group counts of given totals: the exhaustive search
that proves the optimum of an instance small enough (EXHAUSTIVE_MAX_CHECKS).
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import math
import os
import sys
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

# --- limits of the searches for points together, each named for what it measures.
#
# Cleaning's exact program (one-hot tables of every count, cleaning.program): above this many
# columns it is not built and the greedy answer with its proven bound stands.
ONE_HOT_MAX_COLUMNS = 200_000
# Poisoning's relaxation (poisoning.relaxation): above this many columns only its linear
# relaxation is solved (a proven bound, no integer stages).
RELAXATION_INTEGER_MAX_COLUMNS = 900

# Both exact searches first try every vector of group counts whose total lies between the
# proven lower bound and the best answer found less one, when that many vectors times the
# test points is at most this: each (vector, point) is decided exactly in numpy at 2-6 us
# on one core (measured on 30-400 rows, 3-8 columns), so the whole search takes a few
# seconds, well inside the default time limits, and proves the optimum by itself.  (The
# README's 7-row example: 86 vectors of 3 cells for its 3 points when poisoning; when
# cleaning, the relaxed bound already meets greedy's 4 cells and nothing is searched.)
EXHAUSTIVE_MAX_CHECKS = 1_000_000
# Rows of one block of count vectors, as elements of its largest array (about 32 MB).
EXHAUSTIVE_BLOCK_ELEMENTS = 1 << 22
BOUND_SLACK = 1e-6  # HiGHS's bound may exceed the integer optimum by its tolerance

# Every command stays under this much memory.  A program is solved only where its expected
# memory fits in what is left of it (``memory_left``): HiGHS holds up to 1.7 kB per nonzero
# beyond what the process holds (resident and virtual, on cleaning's exact programs of
# 100-700 columns to 60,000 and 120,000 to 200,000 nonzeros), and some 150 MB of address
# space for its threads; the estimate takes more of both.
MEMORY_BUDGET = 2 << 30
HIGHS_BYTES = (256 << 20, 2_500, 500)  # at least, per nonzero, per column of a program


def vectors_between(caps: np.ndarray, lo: int, hi: int, limit: float = math.inf) -> float:
    """How many integer vectors 0 <= x <= caps have lo <= sum(x) <= hi; math.inf as soon as
    more than ``limit``.

    Counted in integers, each count held at ``limit + 1`` once it passes the limit (it
    only decides "more than the limit"), so every step is exact: the number of vectors
    of each sum is a window sum of the last group's counts, a difference of two running
    sums.  In floats those running sums reach 10^60 where the counts near the top are a
    few thousand, and the difference came out 0: 177,000 vectors were counted as none, and
    the exhaustive search built them all at once.  Without a limit the counts are Python
    integers (exact at any size; for tests and small tables)."""
    if lo > hi:
        return 0.0
    cap = None if limit == math.inf else int(min(limit, 2**40)) + 1
    ways = np.zeros(hi + 1, np.int64 if cap else object)
    ways[:] = 0
    ways[0] = 1
    for c in np.asarray(caps, np.int64).tolist():
        if c <= 0:
            continue
        run = np.concatenate([np.zeros(1, ways.dtype), np.cumsum(ways)])  # exact integers
        ways = run[1:] - run[np.maximum(np.arange(hi + 1) - min(c, hi), 0)]
        if cap:
            ways = np.minimum(ways, cap)  # (hi + 1) * cap stays far below 2^63
        if ways[lo:].sum() > limit:  # adding a group never lowers a count
            return math.inf
    found = ways[lo:].sum()
    return math.inf if found > limit else float(found)


def count_vectors(caps: np.ndarray, total: int, rows: int = 1 << 15):
    """Every integer vector 0 <= x <= caps with sum(x) == total, as int32 arrays (B, G) of
    at most about ``rows`` rows (a block too big is split on its first group's value).

    Built group by group with numpy: each partial vector is repeated once per value its next
    group can take *and the groups after it can complete* (from ``left - reach`` to
    ``min(cap, left)``), so every partial vector extends to at least one full one and no
    array of a block ever has more rows than the block's vectors (a group of 2,000 cells
    beside another made 2 million rows to keep 2,001)."""
    caps = np.asarray(caps, np.int64)
    G = len(caps)
    reach = np.concatenate([np.cumsum(caps[::-1])[::-1], [0]])  # the most groups i.. can add

    def block(first: int, prefix: list, need: int):
        if first < G and vectors_between(caps[first:], need, need, rows) > rows:
            for b in range(min(int(caps[first]), need) + 1):
                if need - b <= reach[first + 1]:
                    yield from block(first + 1, [*prefix, b], need - b)
            return
        X = np.zeros((1, G), np.int32)
        X[0, :first] = prefix
        left = np.array([need], np.int64)
        for g in range(first, G):
            low = np.maximum(left - reach[g + 1], 0)  # the least value the rest can complete
            take = np.minimum(caps[g], left) - low + 1
            X = np.repeat(X, take, axis=0)
            starts = np.cumsum(take) - take
            b = np.arange(len(X)) - np.repeat(starts, take) + np.repeat(low, take)
            X[:, g] = b
            left = np.repeat(left, take) - b
        if len(X):
            yield X

    if 0 <= total <= reach[0]:
        yield from block(0, [], total)


@dataclass(frozen=True)
class CellAnswer:
    """Cells of the training table, as (row position, column name), that answer a question
    about test points; ``possible`` False when there are none (``cells`` empty)."""

    possible: bool
    cells: Sequence = ()

    @property
    def num_cells(self) -> int | None:
        return len(self.cells) if self.possible else None


@dataclass(frozen=True)
class TogetherPoints(CellAnswer):
    """Cells that settle every given test point at once.

    ``optimal`` says whether ``cells`` is proven minimum; ``lower_bound`` is a proven bound
    on the minimum (None when none was computed).  ``possible`` False with ``optimal`` True
    is a proof that no set of cells works; otherwise it only says that none was found.
    The limits that cut a search short: ``time_limited`` (a solver's time limit: the answer
    may differ on a faster or slower machine), ``node_limited`` (HiGHS's node limit),
    ``memory_limited`` (an exact program outgrew its size limit and was not solved),
    ``budget_limited`` (the budget of cells ran out).  ``fallback``: why greedy's answer
    stands where no exact search ran.  Shown to a user, ``optimal`` and ``lower_bound`` are
    what a certificate proves (``nbcert.certificate.claims``); the search's own are then
    ``search_optimal`` and ``search_bound``.
    """

    method: str = "greedy"
    optimal: bool = False
    lower_bound: int | None = None
    time_limited: bool = False
    node_limited: bool = False
    memory_limited: bool = False
    budget_limited: bool = False
    fallback: str | None = None
    search_bound: int | None = None
    search_optimal: bool = False

    @property
    def why_not_optimal(self) -> str | None:
        """Why ``optimal`` is False: the limits that cut the search short, greedy's
        ``fallback``, else "gap" (the exact search ended with its proven lower bound below
        the answer); None when optimal."""
        if self.optimal:
            return None
        if self.search_optimal:
            return "the exact search's proof, which no certificate checks"
        limits = ("time limit", "node limit", "size limit", "budget")
        flags = (self.time_limited, self.node_limited, self.memory_limited, self.budget_limited)
        why = [name for name, flag in zip(limits, flags) if flag]
        why += [f"greedy: {self.fallback}"] if self.fallback else []
        return ", ".join(why) or "gap"


@functools.cache
def _libc():
    """The C library the process runs with, or None (no such library by that name)."""
    try:
        return ctypes.CDLL(None)
    except (OSError, TypeError):  # pragma: no cover - e.g. Windows
        return None


def _flush_c_stdio() -> None:
    """Flush C's stdio buffers (printf's output waits there when fd 1 is not a terminal)."""
    libc = _libc()
    if libc is not None:
        with contextlib.suppress(AttributeError):
            libc.fflush(None)


@contextlib.contextmanager
def solver_output_to_stderr():
    """While the block runs, whatever is written to file descriptor 1 (by C or C++ code
    below Python as well) goes to file descriptor 2 instead.

    Python's ``sys.stdout`` and C's buffers are flushed before the swap, so what was
    written before lands on standard output, and again before fd 1 is restored, so what a
    solver printed lands on standard error.  Where fd 1 or fd 2 is not open the block runs
    unchanged.
    """
    with contextlib.suppress(AttributeError, ValueError, OSError):
        sys.stdout.flush()
    _flush_c_stdio()
    try:
        saved = os.dup(1)
    except OSError:
        yield
        return
    try:
        os.dup2(2, 1)
    except OSError:
        os.close(saved)
        yield
        return
    try:
        yield
    finally:
        with contextlib.suppress(AttributeError, ValueError, OSError):
            sys.stdout.flush()
        _flush_c_stdio()
        os.dup2(saved, 1)
        os.close(saved)


@dataclass(frozen=True)
class Solved:
    """What a solve returned: ``x`` (None when no solution was found), ``value`` (the
    objective at ``x``), and how it ended."""

    x: np.ndarray | None
    value: float | None
    status: int  # scipy.optimize.milp's: 0 optimal, 1 (or 4) a limit stopped it, 2 infeasible
    # (-1: not solved)
    dual_bound: float | None  # the branch and bound's proven bound (None for a linear program)
    time_limited: bool
    node_limited: bool = False  # the node limit stopped the branch and bound
    memory_limited: bool = False  # not solved: not expected to fit in the memory left

    @property
    def limit(self) -> str | None:
        """The limit that stopped the solve ("time", "node" or "memory"), or None."""
        stops = ("time", "node", "memory")
        flags = (self.time_limited, self.node_limited, self.memory_limited)
        return next((stop for stop, flag in zip(stops, flags) if flag), None)

    @property
    def infeasible(self) -> bool:
        return self.status == 2

    def lower_bound(self, linear: bool = False) -> int | None:
        """The integer bound the solve proves on the optimum, or None.  A linear
        program's value bounds it only when solved to optimality (``linear``)."""
        bound = (self.value if self.status == 0 else None) if linear else self.dual_bound
        if bound is None or not np.isfinite(bound):
            return None
        return math.ceil(bound - BOUND_SLACK)


def _status(key: str) -> int | None:
    """A size of /proc/self/status in bytes (None where it cannot be read)."""
    try:
        with open("/proc/self/status") as f:
            sizes = dict(line.split(":", 1) for line in f)
        return int(sizes[key].split()[0]) * 1024
    except (OSError, KeyError, ValueError):
        return None


def memory_left() -> float:
    """The bytes the process may still take: under MEMORY_BUDGET (resident), under its
    address-space limit (virtual, RLIMIT_AS) and under the machine's available memory."""
    import resource

    from .memory import mem_available

    rss, vm = _status("VmRSS"), _status("VmSize")
    left = [MEMORY_BUDGET - (rss or 0), mem_available() or math.inf]
    soft = resource.getrlimit(resource.RLIMIT_AS)[0]
    if soft != resource.RLIM_INFINITY and vm is not None:
        left.append(soft - vm)
    return min(left)


class Program:
    """Columns and rows of a mixed-integer program for ``scipy.optimize.milp``; the
    coefficients are kept as (row, column, value) triplets in the order they are given."""

    def __init__(self):
        self.lo, self.hi, self.cost, self.integer = [], [], [], []
        self.r, self.c, self.v, self.rlo, self.rhi = [], [], [], [], []

    def int_var(self, lo, hi, cost: float = 0.0) -> int:
        """A new integer column in [lo, hi]; its index."""
        return self._var(lo, hi, cost, True)

    def real_var(self, lo, hi, cost: float = 0.0) -> int:
        """A new continuous column in [lo, hi]; its index."""
        return self._var(lo, hi, cost, False)

    def _var(self, lo, hi, cost, integer: bool) -> int:
        self.lo.append(lo)
        self.hi.append(hi)
        self.cost.append(cost)
        self.integer.append(integer)
        return len(self.lo) - 1

    def row(self, coef: dict, lo=-np.inf, hi=np.inf) -> None:
        """The row lo <= sum coef[k] x_k <= hi."""
        self.r += [len(self.rlo)] * len(coef)
        self.c += list(coef)
        self.v += list(coef.values())
        self.rlo.append(lo)
        self.rhi.append(hi)

    @property
    def columns(self) -> int:
        return len(self.lo)

    def memory(self) -> int:
        """The bytes its solve is expected to take (HIGHS_BYTES)."""
        least, per_nonzero, per_column = HIGHS_BYTES
        return least + per_nonzero * len(self.v) + per_column * len(self.lo)

    def fits(self) -> bool:
        """Whether its solve is expected to fit in the memory left (``memory_left``)."""
        return self.memory() <= memory_left()

    def solve(
        self, time_limit: float, *, node_limit=None, rel_gap=None, local_search=True, continuous=()
    ) -> Solved:
        """Solve with HiGHS.

        Parameters
        ----------
        time_limit : float
            Seconds it may take.
        node_limit : int, optional
            Branch-and-bound nodes (a limit that does not depend on the machine).
        rel_gap : float, optional
            The relative gap at which HiGHS stops (its default otherwise).
        local_search : bool, default True
            False turns HiGHS's RINS and RENS heuristics off.
        continuous : iterable of int
            Integer columns solved as continuous ones this time.

        Returns
        -------
        Solved
            Not solved (``memory_limited``) where it is not expected to fit (``fits``).
        """
        if not self.fits():
            return Solved(None, None, -1, None, False, memory_limited=True)
        from scipy.optimize import Bounds, LinearConstraint, milp
        from scipy.sparse import coo_matrix

        integer = np.array(self.integer, float)
        integer[list(continuous)] = 0
        A = coo_matrix((self.v, (self.r, self.c)), shape=(len(self.rlo), len(self.lo))).tocsr()
        options = {"time_limit": time_limit, "disp": False}
        if node_limit is not None:
            options["node_limit"] = node_limit
        if rel_gap is not None:
            options["mip_rel_gap"] = rel_gap
        if not local_search:
            options.update(mip_heuristic_run_rins=False, mip_heuristic_run_rens=False)
        # scipy passes options it does not know on to HiGHS, with a warning; HiGHS prints
        # some messages whatever "disp" says, so fd 1 points to stderr meanwhile
        with warnings.catch_warnings(), solver_output_to_stderr():
            warnings.filterwarnings("ignore", "Unrecognized options", RuntimeWarning)
            res = milp(
                np.array(self.cost),
                integrality=integer,
                bounds=Bounds(self.lo, self.hi),
                constraints=LinearConstraint(A, self.rlo, self.rhi),
                options=options,
            )
        message = str(res.message).lower()
        stopped = res.status == 1 and "time" in message
        # HiGHS reports its node limit as a "solution limit" (status 16, scipy's 4): no
        # solution limit is ever set here, so that is the node limit
        nodes = res.status in (1, 4) and ("node" in message or "solution limit" in message)
        bound = getattr(res, "mip_dual_bound", None)
        return Solved(res.x, res.fun, res.status, bound, stopped, nodes)


__all__ = [
    "CellAnswer",
    "TogetherPoints",
    "Program",
    "Solved",
    "solver_output_to_stderr",
    "ONE_HOT_MAX_COLUMNS",
    "MEMORY_BUDGET",
    "memory_left",
    "RELAXATION_INTEGER_MAX_COLUMNS",
    "EXHAUSTIVE_MAX_CHECKS",
    "EXHAUSTIVE_BLOCK_ELEMENTS",
    "count_vectors",
    "vectors_between",
]
