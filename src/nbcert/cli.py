"""The ``nbcert`` command line: certify, count and poison on CSV files.

Every user mistake is reported as one line ``nbcert: error: <message>`` on stderr with
exit status 2 (the same status argparse uses for usage errors); results go to stdout,
as an aligned text table or, with ``--json``, as ``{"results": [...]}``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import textwrap
import time
from dataclasses import dataclass


EXIT_OK = 0
EXIT_ERROR = 2

_WORLD = ("A possible world fills every missing cell of the training table with one of the "
          "values its column takes elsewhere in the table.")
_ROBUST = ("A test row is certifiably robust when every possible world's Naive Bayes classifier "
           "predicts the same single label for it (a tie in any world makes it not robust).")
_COUNT = ("For each test row, count the possible worlds that predict each label and those "
          "in which the top labels tie.")
_POISON = ("For each robust test row on its own, find the fewest cells of a complete training "
           "table to blank (make missing) so that the row is no longer certifiably robust.")


def _text(*paragraphs: str) -> str:
    return "\n\n".join(textwrap.fill(p, 79) for p in paragraphs)


_DESCRIPTION = _text(
    "Certifiable robustness, possible-world counting and data poisoning for Naive Bayes "
    "classifiers trained on incomplete categorical data.",
    "Input is CSV with a header row (the training table may also be Parquet: a .parquet "
    "file or a folder of them). An empty field means missing (add more tokens with "
    "--missing); every other value is a category, read as the text written in the file. "
    "Certify and count read the training file in record batches, so it may be larger than "
    "memory. " + _WORLD)

_EPILOG = _text("exit status: 0 on success, 2 on a usage or input error (reported as one "
                "line on stderr).",
                "example: nbcert certify --train train.csv --test test.csv --label class --json")


class _InputError(ValueError):
    """Raised for input problems found by the CLI itself (before the library sees them)."""


# ---------------------------------------------------------------------------------------
# argument parsing


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("nbcert")
    except Exception:  # pragma: no cover - not installed
        return getattr(sys.modules.get("nbcert"), "__version__", "unknown")


def _int_at_least(minimum: int, what: str):
    """An argparse type for integers >= minimum."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = minimum - 1
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
        return value
    return parse


_positive_int = _int_at_least(1, "a positive integer")
_seed = _int_at_least(0, "a non-negative integer")


def _float_where(ok, what: str):
    """An argparse type for floats accepted by ``ok`` (NaN never is)."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = float("nan")
        if not ok(value):
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
        return value
    return parse


_confidence = _float_where(lambda v: 0 < v < 1, "a number between 0 and 1")
_seconds = _float_where(lambda v: 0 < v < float("inf"), "a positive number of seconds")


class _Formatter(argparse.RawDescriptionHelpFormatter):
    def __init__(self, prog):
        super().__init__(prog, max_help_position=30)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="nbcert", description=_DESCRIPTION, epilog=_EPILOG,
                                     formatter_class=_Formatter)
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True, title="commands",
                                help="run nbcert COMMAND -h for its options")

    files = argparse.ArgumentParser(add_help=False)
    g = files.add_argument_group("input")
    g.add_argument("--train", required=True, metavar="T.csv",
                   help="training table (CSV with a header row, empty fields missing; or Parquet: "
                        "a .parquet file or a folder of them)")
    g.add_argument("--test", required=True, metavar="Q.csv",
                   help="test rows: the training table's feature columns, all filled in "
                        "(a label column is ignored)")
    g.add_argument("--label", required=True, metavar="COL", help="name of the label column")
    g.add_argument("--missing", action="append", default=[], metavar="TOKEN",
                   help="a value that also means missing, in both files (repeatable), e.g. --missing ?")
    g.add_argument("--stream", action="store_true",
                   help="never hold the training table in memory (automatic when the file is larger "
                        "than memory allows); methods that need rows, except poison --method op, then refuse")
    g.add_argument("--batch-rows", type=_positive_int, default=None, metavar="N",
                   help="rows per record batch when reading the training file (default: about 64 MB of file)")
    g.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="Dask scheduler (e.g. tcp://host:8786; default: $NBCERT_DASK_SCHEDULER) whose "
                        "workers read a Parquet training file or folder and count it per partition")
    out = argparse.ArgumentParser(add_help=False)
    out.add_argument("--json", action="store_true",
                     help='print {"results": [...]} as JSON instead of a text table')

    alpha_help = ("Laplace smoothing (default 0: none); read exactly, so 0.1 "
                  "means 1/10; fractions like 1/3 are accepted")

    p = sub.add_parser("certify", parents=[files, out], formatter_class=_Formatter,
                       help="is each test row robust: the same single prediction in every possible world?",
                       description=_text(_ROBUST, _WORLD, "Prints, per test row, whether it is "
                                         "robust and the label every world predicts (null, "
                                         "shown as -, when not robust)."),
                       epilog=_EPILOG)
    p.add_argument("--alpha", default="0", metavar="A", help=alpha_help)
    p.add_argument("--method", choices=("index", "iterate", "ad"), default="index",
                   help="index (default) and iterate are exact; ad samples --worlds worlds per "
                        "row and may wrongly report robust")
    p.add_argument("--worlds", type=_positive_int, default=100, metavar="N",
                   help="worlds sampled per test row with --method ad (default 100)")
    p.add_argument("--seed", type=_seed, default=None, metavar="S",
                   help="random seed for --method ad")
    p.set_defaults(run=_run_certify)

    p = sub.add_parser("count", parents=[files, out], formatter_class=_Formatter,
                       help="how many possible worlds predict each label (and how many tie), per test row",
                       description=_text(_COUNT, _WORLD, "Exact counts are printed in full "
                                         "(as decimal strings in JSON); montecarlo gives "
                                         "estimated fractions with confidence intervals."),
                       epilog=_EPILOG)
    p.add_argument("--alpha", default="0", metavar="A", help=alpha_help)
    p.add_argument("--method", choices=("auto", "exact", "batch", "montecarlo"), default="auto",
                   help="auto (default: exact unless too large, then montecarlo), exact, batch "
                        "(the paper's Algorithm 2) or montecarlo (estimated fractions with "
                        "confidence intervals)")
    p.add_argument("--samples", type=_positive_int, default=20000, metavar="N",
                   help="worlds sampled per test row by montecarlo (default 20000)")
    p.add_argument("--confidence", type=_confidence, default=0.95, metavar="C",
                   help="confidence level of the montecarlo intervals (default 0.95)")
    p.add_argument("--seed", type=_seed, default=None, metavar="S", help="random seed for montecarlo")
    p.set_defaults(run=_run_count)

    p = sub.add_parser("poison", parents=[files, out], formatter_class=_Formatter,
                       help="fewest training cells to blank so a test row is no longer robust",
                       description=_text(_POISON, "Cells are reported as row:column, row being "
                                         "the 0-based data row of the training CSV (the header "
                                         "and blank lines are not data rows). num_cells is 0 for "
                                         "a row that is already not robust and null (shown as -) "
                                         "when no blanking was found; status tells a proof that "
                                         "none exists (impossible: op, exact) from a search that "
                                         "found none (none_found: sr, rp, greedy)."),
                       epilog=_EPILOG)
    p.add_argument("--method", choices=("op", "sr", "rp", "auto", "exact", "greedy"), default=None,
                   help="op (default) finds a minimum set; sr and rp are the paper's "
                        "randomized baselines; with --together: auto (default), exact or greedy")
    p.add_argument("--seed", type=_seed, default=None, metavar="S", help="random seed for sr and rp")
    p.add_argument("--together", action="store_true",
                   help="one set of cells that makes every test row non-robust at once "
                        "(--method auto|exact|greedy; exact proves optimality or gives a lower bound)")
    p.add_argument("--time-limit", type=_seconds, default=30.0, metavar="SEC",
                   help="time limit of the exact solver with --together (default 30)")
    p.set_defaults(run=_run_poison)
    _add_clean(sub, files, out, alpha_help)
    return parser


# ---------------------------------------------------------------------------------------
# reading and checking the input


@dataclass
class _Table:
    path: str
    data: object  # the training table's TableSource (read by the library), the test DataFrame


def _load(args, ctx):
    """Open the training file (its header is checked; the library reads the rest) and read
    the test file; the CLI checks only what is about files: a test column that the
    training file does not have.  With a Dask scheduler the training table becomes a Dask
    DataFrame read by the workers."""
    import nbcert

    source = nbcert.TableSource(args.train, args.missing, args.train, text=True)
    train = _Table(args.train, source)
    test = _Table(args.test, nbcert.read_csv(args.test, missing=args.missing, name=args.test))
    ctx.update(train=train, test=test)
    extra = [c for c in test.data.columns if c not in source.columns]
    if extra:
        raise _InputError(f"{test.path}: column {extra[0]!r} is not a column of {train.path}")
    from .cluster import connect, read_on_cluster, scheduler_address

    address = scheduler_address(args.scheduler)
    if address:
        ctx["client"] = connect(address)
        train.data = read_on_cluster(source, args.train)
    return train, test, test.data.drop(columns=[args.label], errors="ignore")


def _reading(args) -> dict:
    """How the library reads the training file."""
    return {"stream": True if args.stream else None, "batch_rows": args.batch_rows}


def _alpha(text: str) -> str:
    from .support import as_alpha

    try:
        as_alpha(text)
    except (ValueError, TypeError):
        raise _InputError(f"--alpha: expected a finite number >= 0 (e.g. 1, 0.5 or 1/3), got {text!r}") from None
    return text


def _library_message(msg: str, train: _Table | None, test: _Table | None) -> str:
    """Name the file in a library message about the 'training table' or 'test table'."""
    for prefix, table in (("training table", train), ("test table", test)):
        if table is not None and msg.startswith(prefix + ":"):
            return table.path + msg[len(prefix):]
    return msg


# ---------------------------------------------------------------------------------------
# output


def _table(header: list, rows: list, right: set = frozenset()) -> str:
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(header)]

    def line(cells):
        out = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths))]
        return "  ".join(out).rstrip()

    return "\n".join([line(header)] + [line(r) for r in rows])


def _emit(args, results: list, text: str) -> None:
    if args.json:
        sys.stdout.write(json.dumps({"results": results}, indent=2, allow_nan=False) + "\n")
    else:
        sys.stdout.write(text + "\n")


# ---------------------------------------------------------------------------------------
# commands


def _run_certify(args, ctx) -> None:
    import nbcert

    alpha = _alpha(args.alpha)
    train, test, X = _load(args, ctx)
    res = nbcert.certify(train.data, X, args.label, alpha=alpha, method=args.method,
                         n_worlds=args.worlds, seed=args.seed, **_reading(args))
    results = []
    for i, robust, lab in zip(X.index, res["robust"], res["label"]):
        robust = bool(robust)
        results.append({"test_index": int(i), "robust": robust,
                        "label": None if not robust or lab is None else str(lab)})
    rows = [[str(r["test_index"]), "yes" if r["robust"] else "no",
             "-" if r["label"] is None else r["label"]] for r in results]
    _emit(args, results, _table(["test_index", "robust", "label"], rows, right={0}))


class _Progress:
    """A progress line for a terminal's stderr, redrawn in place (at most every 0.2 s)
    and erased when the work is done."""

    def __init__(self, stream):
        self.stream, self.last = stream, -math.inf

    def __call__(self, done: int, total: int, method: str) -> None:
        now = time.monotonic()
        if done < total and now - self.last < 0.2:
            return
        self.last = now
        line = "" if done >= total else f"nbcert: counting test row {done + 1} of {total} ({method})"
        self.stream.write("\r\033[K" + line)
        self.stream.flush()


def _fmt_fraction(f: float) -> str:
    return f"{f:.4f}"


def _run_count(args, ctx) -> None:
    import nbcert

    alpha = _alpha(args.alpha)
    train, test, X = _load(args, ctx)
    wcs = nbcert.count_worlds(train.data, X, args.label, alpha=alpha, method=args.method,
                              n_samples=args.samples, confidence=args.confidence, seed=args.seed,
                              progress=_Progress(sys.stderr) if sys.stderr.isatty() else None, **_reading(args))
    labels = list((wcs[0].counts or wcs[0].fractions) if wcs else [])  # every training label
    results, rows = [], []
    for i, wc in zip(X.index, wcs):
        if wc.counts is not None:
            counts = {str(k): str(int(wc.counts[k])) for k in labels}
            r = {"test_index": int(i), "counts": counts, "ties": str(int(wc.ties or 0)),
                 "total": str(int(wc.total)), "method": str(wc.method)}
            cells = [counts[str(k)] for k in labels] + [r["ties"]]
        else:
            fr = wc.fractions or {}
            iv = wc.intervals or {}
            keys = labels
            r = {"test_index": int(i), "counts": None, "ties": None,
                 "total": None if wc.total is None else str(wc.total),
                 "log10_total": round(wc.log10_total, 6), "method": str(wc.method),
                 "fractions": {str(k): float(fr.get(k, 0.0)) for k in keys},
                 "tie_fraction": None if wc.tie_fraction is None else float(wc.tie_fraction),
                 "intervals": {str(k): [float(v) for v in iv[k]] for k in keys if k in iv},
                 "samples": None if wc.samples is None else int(wc.samples)}

            def est(k):
                s = "~" + _fmt_fraction(r["fractions"][k])
                if k in r["intervals"]:
                    lo, hi = r["intervals"][k]
                    s += f" [{_fmt_fraction(lo)}, {_fmt_fraction(hi)}]"
                return s

            cells = [est(str(k)) for k in labels]
            cells.append("-" if r["tie_fraction"] is None else "~" + _fmt_fraction(r["tie_fraction"]))
        results.append(r)
        total = r["total"] if r["total"] is not None else f"~10^{wc.log10_total:.1f}"
        rows.append([str(r["test_index"])] + cells + [total, r["method"]])
    header = ["test_index"] + [str(k) for k in labels] + ["ties", "total", "method"]
    text = _table(header, rows, right=set(range(len(header) - 1)))
    if any(r["counts"] is None for r in results):
        text += (f"\n(~: montecarlo estimate of the fraction of worlds, with its "
                 f"{args.confidence:g} confidence interval)")
    _emit(args, results, text)


# what the text table shows instead of cells; only a proof says "impossible"
_SHOWN_STATUS = {"already_nonrobust": "(already not robust)",
                 "impossible": "(impossible: no blanking makes it non-robust)",
                 "none_found": "(none found by the heuristic search; not a proof)"}


def _cells_text(cells: list) -> str:
    return ", ".join(f"{c['row']}:{c['column']}" for c in cells)


def _run_poison_together(args, X, train) -> None:
    import nbcert

    method = args.method or "auto"
    if method not in ("auto", "exact", "greedy"):
        raise _InputError(f"--method {method} does not apply to --together (use auto, exact or greedy)")
    res = nbcert.poison_many(train.data, X, args.label, method=method, time_limit=args.time_limit)
    cells = [{"row": int(r), "column": str(c)} for r, c in res.cells] if res.possible else []
    result = {"test_indices": [int(i) for i in X.index], "num_cells": res.num_cells, "cells": cells,
              "status": res.status, "method": res.method, "optimal": bool(res.optimal),
              "lower_bound": res.lower_bound}
    shown = _SHOWN_STATUS[res.status] if res.status != "poisoned" else _cells_text(cells)
    text = _table(["test_rows", "num_cells", "optimal", "lower_bound", "cells (row:column)"],
                  [[str(len(X)), "-" if res.num_cells is None else str(res.num_cells), "yes" if res.optimal else "no",
                    "-" if res.lower_bound is None else str(res.lower_bound), shown]], right={0, 1, 3})
    _emit(args, [result], text)


def _run_poison(args, ctx) -> None:
    import nbcert

    train, test, X = _load(args, ctx)
    if args.together:
        return _run_poison_together(args, X, train)
    if args.method not in (None, "op", "sr", "rp"):
        raise _InputError(f"--method {args.method} needs --together (single rows use op, sr or rp)")
    res = nbcert.poison(train.data, X, args.label, method=args.method or "op", seed=args.seed, **_reading(args))
    results, rows = [], []
    for i, p in zip(X.index, res):
        cells = [{"row": int(r), "column": str(c)} for r, c in p.cells]
        results.append({"test_index": int(i), "num_cells": p.num_cells, "cells": cells, "status": p.status})
        shown = _SHOWN_STATUS[p.status] if p.status != "poisoned" else _cells_text(cells)
        rows.append([str(int(i)), "-" if p.num_cells is None else str(p.num_cells), shown])
    _emit(args, results, _table(["test_index", "num_cells", "cells (row:column)"], rows, right={0, 1}))


# ---------------------------------------------------------------------------------------
# clean: which cells to clean (beyond the paper)

_CLEAN = ("For test rows that are not certifiably robust, which missing training cells to clean "
          "(replace by their true value) first. Cells of one label and column are "
          "interchangeable, so one cell per such group is listed, best first, with how many "
          "test rows it may help and why. The ranking is a heuristic policy: it does not "
          "know the true values.")
_CLEAN_TRUTH = ("With --truth (the complete table the missing cells were blanked from: the same "
                "header and rows, agreeing on every non-missing cell), prints instead, per test "
                "row, the fewest cells whose cleaning makes it robust (exact; num_cells is 0 "
                "for a row already robust and null, shown as -, when no cleaning can make it "
                "robust), the fewest cells for all rows together, and the path the policy "
                "would take with the truth revealed as it cleans.")


def _add_clean(sub, files, out, alpha_help) -> None:
    p = sub.add_parser("clean", parents=[files, out], formatter_class=_Formatter,
                       help="which missing cells to clean first so the test rows become robust",
                       description=_text(_CLEAN, _CLEAN_TRUTH, "Cells are reported as row:column, row "
                                         "being the 0-based data row of the training CSV."),
                       epilog=_EPILOG)
    p.add_argument("--truth", metavar="CLEAN.csv", default=None,
                   help="the complete table: compute the offline minimum and the policy's path")
    p.add_argument("--alpha", default="0", metavar="A", help=alpha_help)
    p.add_argument("--prior", choices=("observed", "worlds"), default="observed",
                   help="how the policy weighs a missing cell's possible values: observed (default: "
                        "its label's observed frequencies) or worlds (uniform over the domain)")
    p.add_argument("--top", type=_positive_int, default=10, metavar="N",
                   help="cells listed without --truth (default 10)")
    p.add_argument("--method", choices=("auto", "exact", "greedy"), default="auto",
                   help="with --truth, for all rows together: exact (a HiGHS program, alpha 0), "
                        "greedy (with a proven lower bound) or auto (default: exact when small)")
    p.add_argument("--node-limit", type=_positive_int, default=20000, metavar="N",
                   help="branch-and-bound nodes of the exact program (default 20000)")
    p.add_argument("--time-limit", type=_positive_seconds, default=60.0, metavar="SEC",
                   help="time limit of the exact program, a safety net (default 60)")
    p.add_argument("--batch", type=_positive_int, default=1, metavar="N",
                   help="with --truth, cells the policy cleans per step along its path (default 1)")
    p.set_defaults(run=_run_clean)


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return value


def _why(r: dict) -> str:
    parts = []
    if r["as_winner"]:
        parts.append(f"may hold the test value: raises {r['label']}'s count for {r['as_winner']} "
                     f"test row{'s' * (r['as_winner'] != 1)} that {r['label']} likely wins")
    if r["as_rival"]:
        parts.append(f"may hold another value: lowers rival {r['label']}'s count for {r['as_rival']} "
                     f"test row{'s' * (r['as_rival'] != 1)}")
    return "; ".join(parts)


def _cells_json(cells) -> list:
    return [{"row": int(r), "column": str(c)} for r, c in cells]


def _n_cells(n: int) -> str:
    return f"{n} cell{'s' * (n != 1)}"


def _pairs_text(cells) -> str:
    """row:column for (row, column) pairs."""
    return _cells_text([{"row": r, "column": c} for r, c in cells])


def _run_clean_advice(args, train, X) -> None:
    import nbcert

    res = nbcert.clean(train.data, X, args.label, alpha=args.alpha, prior=args.prior, top=args.top)
    results = []
    for rank, r in enumerate(res.to_dict("records"), 1):
        r = {"rank": rank, "row": int(r["row"]), "column": str(r["column"]), "label": str(r["label"]),
             "group_cells": int(r["group_cells"]), "score": round(float(r["score"]), 6),
             "as_winner": int(r["as_winner"]), "as_rival": int(r["as_rival"])}
        results.append({**r, "why": _why(r)})
    rows = [[str(r["rank"]), str(r["row"]), r["column"], r["label"], str(r["group_cells"]), f"{r['score']:.4g}",
             r["why"]] for r in results]
    text = _table(["rank", "row", "column", "label", "group_cells", "score", "why"], rows, right={0, 1, 4, 5})
    if not results:
        text = "(nothing to clean: every test row is robust, or no cleaning is expected to help)"
    _emit(args, results, text)


def _run_clean_truth(args, train, X) -> None:
    import nbcert
    from .encoding import InputError

    truth = nbcert.read_csv(args.truth, missing=args.missing, name=args.truth)
    try:
        rep = nbcert.clean_offline(train.data, truth, X, args.label, alpha=args.alpha, prior=args.prior,
                                   method=args.method, node_limit=args.node_limit, time_limit=args.time_limit,
                                   batch=args.batch)
    except InputError as e:
        msg = str(e)
        if msg.startswith("truth table:"):
            msg = args.truth + msg[len("truth table"):].replace("the training table", train.path)
        raise _InputError(_library_message(msg, train, None)) from None
    results, rows = [], []
    for i, pt in zip(X.index, rep.points):
        results.append({"test_index": int(i), "num_cells": pt.num_cells, "cells": _cells_json(pt.cells),
                        "label": None if not pt.possible else str(pt.label)})
        shown = ("(impossible: no cleaning makes it robust)" if not pt.possible else
                 "(already robust)" if not pt.cells else _pairs_text(pt.cells))
        rows.append([str(int(i)), "-" if pt.num_cells is None else str(pt.num_cells),
                     "-" if not pt.possible else str(pt.label), shown])
    tg = rep.together
    together = {"num_cells": tg.num_cells, "cells": _cells_json(tg.cells), "method": tg.method,
                "optimal": bool(tg.optimal), "lower_bound": tg.lower_bound}
    path = {"num_cells": len(rep.path), "cells": _cells_json(rep.path), "certifies_all": bool(rep.path_certifies)}
    if args.json:
        out = {"results": results, "together": together, "path": path}
        sys.stdout.write(json.dumps(out, indent=2, allow_nan=False) + "\n")
        return
    claim = ("optimal" if tg.optimal else f"not proven optimal, lower bound {tg.lower_bound}") + f", {tg.method}"
    lines = [_table(["test_index", "num_cells", "label", "cells (row:column)"], rows, right={0, 1}), "",
             "all rows together: " + (f"{_n_cells(tg.num_cells)} ({claim}): {_pairs_text(tg.cells) or '-'}"
                                       if tg.possible else ("impossible" if tg.optimal else "none found")),
             f"policy path: {_n_cells(len(rep.path))}, " + ("certifies every row" if rep.path_certifies else
                                                        "does not certify every row") +
             (f": {_pairs_text(rep.path)}" if rep.path else "")]
    sys.stdout.write("\n".join(lines) + "\n")


def _run_clean(args, ctx) -> None:
    from .cluster import scheduler_address

    args.alpha = _alpha(args.alpha)
    if args.stream or scheduler_address(args.scheduler):
        raise _InputError("clean needs the training table in memory (drop --stream, --scheduler and "
                          "NBCERT_DASK_SCHEDULER)")
    train, test, X = _load(args, ctx)
    train.data = train.data.to_pandas()  # the cleaning methods work on the rows
    if args.truth is None:
        for flag, default in (("method", "auto"), ("batch", 1)):
            if getattr(args, flag) != default:
                raise _InputError(f"--{flag} needs --truth")
        return _run_clean_advice(args, train, X)
    return _run_clean_truth(args, train, X)


# ---------------------------------------------------------------------------------------
# entry point


def _error(msg: str) -> int:
    msg = " ".join(str(msg).split()) or "invalid input"
    sys.stderr.write(f"nbcert: error: {msg}\n")
    return EXIT_ERROR


def main(argv=None) -> int:
    """Run the command line; return the exit status (0 ok, 2 usage or input error)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # -h, --version and usage errors
        return e.code if isinstance(e.code, int) else (0 if e.code is None else EXIT_ERROR)

    from .encoding import InputError

    set_digits = getattr(sys, "set_int_max_str_digits", None)  # world counts can be huge
    old_digits = sys.get_int_max_str_digits() if set_digits else None
    if set_digits:
        set_digits(0)
    ctx = {}
    try:
        args.run(args, ctx)
        sys.stdout.flush()
    except _InputError as e:
        return _error(str(e))
    except InputError as e:
        return _error(_library_message(str(e), ctx.get("train"), ctx.get("test")))
    except BrokenPipeError:  # e.g. `nbcert ... | head`
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:  # pragma: no cover
            pass
        return 1
    except KeyboardInterrupt:
        sys.stderr.write("nbcert: interrupted\n")
        return 130
    finally:
        if set_digits:
            set_digits(old_digits)
        if "client" in ctx:
            ctx["client"].close()
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
