"""The command line's arguments: four commands (certify, count, poison, clean), each option
declared once.

Choices and value checks come from the parameters' rules (``nbcert.params``), the ones the
API applies to its keywords, so a flag and its keyword accept the same values.  A value
that breaks its rule is argparse's usage error ``argument --worlds: expected a positive
integer, got '0'``; ``--alpha`` is read exactly, as text, and checked when the command
starts (one line: ``--alpha: expected ...``).
"""

from __future__ import annotations

import argparse
import textwrap

from .. import params

_WORLD = (
    "A possible world fills every missing cell of the training table with one of the "
    "values its column takes elsewhere in the table (with --candidates, a listed cell "
    "with one of its candidates)."
)
_ROBUST = (
    "A test point is certifiably robust when every possible world's Naive Bayes classifier "
    "predicts the same single label for it (a tie in any world makes it not robust)."
)
_COUNT = (
    "For each test point, count the possible worlds that predict each label and those "
    "in which the top labels tie."
)
_POISON = (
    "For each robust test point on its own, find the fewest cells of a complete training "
    "table to blank (make missing) so that the row is no longer certifiably robust."
)
_CLEAN = (
    "For test points that are not certifiably robust, which missing training cells to clean "
    "(replace by their true value) first. Cells of one label and column are "
    "interchangeable, so one cell per such group is listed, best first, with how many "
    "test points it may help and why. The ranking is a heuristic policy: it does not "
    "know the true values."
)
_CLEAN_TRUTH = (
    "With --truth (the complete table the missing cells were blanked from: the same "
    "header and rows; only its values of the missing cells are read), prints instead, per test "
    "point, the fewest cells whose cleaning makes it robust (exact; num_cells is 0 "
    "for a point already robust and null, shown as -, when no cleaning can make it "
    "robust), the fewest cells for all test points together (the points no cleaning makes "
    "robust are named and set aside; --target and --budget ask for fewer), and the "
    "path the policy would take with the truth revealed as it cleans."
)


#: command -> (one-line help, paragraphs of its description)
_ABOUT = {
    "certify": (
        "is each test point robust: the same single prediction in every possible world?",
        _ROBUST,
        _WORLD,
        "Prints, per test point, whether it is robust, the label every world "
        "predicts (null, shown as -, when not robust), the labels that some world predicts "
        "(possible_labels, exact; none, shown as (all tie), when every world ties) and whether "
        "some world ties "
        "(tie: yes, no, or ? where not decided without counting).",
    ),
    "count": (
        "how many possible worlds predict each label (and how many tie), per test point",
        _COUNT,
        _WORLD,
        "Exact counts are printed with their share of the worlds, from a "
        "million on in scientific notation rounded from the exact count (1.02e+7003; in full, "
        "as decimal strings, in JSON); bounds gives each share as a proven interval [low, "
        "high], rounded outward (a share far below 0.1% with its order of magnitude; JSON: "
        "proven counts as decimal strings); montecarlo gives estimated shares with "
        "confidence intervals.",
    ),
    "poison": (
        "fewest training cells to blank so a test point is no longer robust",
        _POISON,
        "Cells are reported as row:column, row being the 0-based data row of the "
        "training CSV (the header and blank lines are not data rows). num_cells is 0 for a "
        "point that is already not robust and null (shown as -) when no blanking was found; status "
        "tells a proof that none exists (impossible: op, exact) from a search that found none "
        "(none_found: sr, rp, greedy).",
    ),
    "clean": (
        "which missing cells to clean first so the test points become robust",
        _CLEAN,
        _CLEAN_TRUTH,
        "Cells are reported as row:column, row being the 0-based data row of the training CSV.",
    ),
}


def _text(*paragraphs: str) -> str:
    return "\n\n".join(textwrap.fill(p, 79) for p in paragraphs)


_DESCRIPTION = _text(
    "Certifiable robustness, possible-world counting, data poisoning and cleaning advice for "
    "Naive Bayes classifiers trained on incomplete categorical data.",
    "Input is CSV with a header row (the training table may also be Parquet: a .parquet "
    "file or a folder of them). An empty field means missing (add more tokens with "
    "--missing); every other value is a category, read as the text written in the file "
    "(numeric columns may be binned with --bins). "
    "Certify and count read the training file in record batches, so it may be larger than "
    "memory. " + _WORLD,
)

_STATUS = "exit status: 0 on success, 2 on a usage or input error (reported as one line on stderr)."

#: command -> its example, ending its help
_EXAMPLES = {
    "certify": "nbcert certify --train train.csv --test test.csv --label class --json",
    "count": "nbcert count --train train.csv --test test.csv --label class --method bounds",
    "poison": "nbcert poison --train clean.csv --test test.csv --label class --together",
    "clean": "nbcert clean --train dirty.csv --test test.csv --label class --truth clean.csv",
}


def _epilog(*commands: str) -> str:
    """The exit status and the examples of ``commands``."""
    examples = [f"example: {_EXAMPLES[c]}" for c in commands]
    return "\n\n".join([textwrap.fill(_STATUS, 79), *examples])


class _Parser(argparse.ArgumentParser):
    """argparse with a usage error in one line, ``nbcert: error: ...`` as every other error
    of the command line, and a pointer to the command's --help (the full usage is what
    --help prints)."""

    def error(self, message: str):
        self.exit(2, f"nbcert: error: {message} (see {self.prog} --help)\n")


def _version() -> str:
    import nbcert

    return nbcert.__version__


class _Version(argparse.Action):
    """``--version``: the installed version, looked up only when asked for (importing
    ``importlib.metadata`` would cost every command that never asks)."""

    def __init__(
        self,
        option_strings,
        dest=argparse.SUPPRESS,
        default=argparse.SUPPRESS,
        help="show program's version number and exit",
    ):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"{parser.prog} {_version()}")
        parser.exit()


def rule_type(name: str):
    """An argparse ``type`` reading a value by parameter ``name``'s rule."""
    rule = params.rule(name)

    def parse(text: str):
        try:
            return rule.parse(text, name)
        except params.ParameterError:
            raise argparse.ArgumentTypeError(rule.expected(text)) from None

    parse.__name__ = name
    return parse


class _Formatter(argparse.RawDescriptionHelpFormatter):
    def __init__(self, prog):
        super().__init__(prog, max_help_position=30)


def _input_options() -> argparse.ArgumentParser:
    """The options every command shares: the input files and how to read them."""
    files = argparse.ArgumentParser(add_help=False)
    g = files.add_argument_group("input")
    _files(g)
    _reading(g)
    _bins(files)
    _loading(g)
    return files


def _files(g) -> None:
    """--train, --test, --label and the missing tokens."""
    g.add_argument(
        "--train",
        required=True,
        metavar="T.csv",
        help="training table (CSV with a header row, empty fields missing, maybe compressed: "
        ".csv.gz, .bz2, .zst; - for standard input; or Parquet: a .parquet file or a folder "
        "of them)",
    )
    g.add_argument(
        "--test",
        required=True,
        metavar="Q.csv",
        help="test points: the training table's feature columns (a label column is ignored; "
        "a blank cell leaves its feature out, see --test-missing)",
    )
    g.add_argument("--label", required=True, metavar="COL", help="name of the label column")
    g.add_argument(
        "--missing",
        action="append",
        default=[],
        metavar="TOKEN",
        help="a value that also means missing, in both files (repeatable), e.g. --missing ?",
    )
    _named(
        g,
        "--candidates",
        "FILE|DIR",
        "candidate repairs: the values missing cells may take, a CSV with the columns row "
        "(data row of the training file), column and value, one line per value (values never "
        "observed allowed), or CPClean's X_train_repairs/ folder (one repaired copy of the "
        "training file per imputer); a cell not listed takes any value of its column",
    )
    _named(
        g,
        "--repairs",
        "DIR|FILE",
        "repaired rows, CPClean's worlds: CPClean's X_train_repairs/ folder (one repaired "
        "copy of the training file per imputer) or a CSV with the columns row, repair, column "
        "and value (one line per missing cell a repair of a row fills); each row with a "
        "missing cell takes one of its distinct repaired rows whole (certify and count; not "
        "with --candidates)",
    )


def _reading(g) -> None:
    """How the CSV files' text is read, and what a blank test cell means."""
    _ruled(g, "--sep", "C", "the character between fields (default ,; tab: --sep tab)")
    _ruled(g, "--encoding", "NAME", "the files' text encoding (default utf-8), e.g. latin-1")
    _ruled(
        g,
        "--decimal",
        "C",
        "the decimal mark of numbers in the files (default .), e.g. --decimal , reads 0,93 as "
        "the number 0.93 (text such as 'Smith, J' stays as written)",
    )
    g.add_argument(
        "--drop",
        action="extend",
        nargs="+",
        default=[],
        metavar="COL",
        help="leave these columns out of every table, as if the files did not hold them "
        "(an identifier, a date: a distinct value in most rows says nothing of the label)",
    )
    _choice(
        g,
        "--test-missing",
        "a blank test cell: leave_out (default: Naive Bayes leaves its feature out of "
        "the row's product) or error",
    )


def _loading(g) -> None:
    """How the training file is loaded: streamed, in batches, or by a Dask cluster."""
    g.add_argument(
        "--stream",
        action="store_true",
        help="never hold the training table in memory (automatic when the file is larger "
        "than memory allows); methods that need rows, except poison --method op, then refuse",
    )
    _option(
        g,
        "--batch-rows",
        "batch_rows",
        "rows per record batch when reading the training file (default: about 64 MB of file)",
    )
    _named(
        g,
        "--scheduler",
        "ADDRESS",
        "Dask scheduler (e.g. tcp://host:8786; default: $NBCERT_DASK_SCHEDULER) whose "
        "workers read a Parquet training file or folder and count it per partition",
    )


def _choice(p, flag: str, help: str) -> None:
    """An option choosing one of its rule's options (the rule named as the flag), the
    first of them its default."""
    choices = params.options(flag.lstrip("-").replace("-", "_"))
    p.add_argument(flag, choices=choices, default=choices[0], help=help)


def _ruled(g, flag: str, metavar: str, help: str) -> None:
    """An option read by its rule in nbcert.params (the rule named as the flag), default
    none."""
    rule = flag.lstrip("-").replace("-", "_")
    g.add_argument(flag, type=rule_type(rule), default=None, metavar=metavar, help=help)


def _bins(files) -> None:
    g = files.add_argument_group("numeric columns")
    _option(
        g,
        "--bins",
        "bins",
        "cut each numeric column (every value a number) into N bins fitted on the training "
        "table's values (missing cells stay missing); a test value takes the bin it falls in, "
        "named by its interval, e.g. [10.9, 14.5); holds the training table in memory (not with "
        "--stream; default: every value is a category)",
    )
    g.add_argument(
        "--binning",
        choices=params.options("binning"),
        default=None,
        help="how --bins cuts: quantile (default: about equal numbers of training values per bin, "
        "so no bin is empty), uniform (equal widths) or kmeans",
    )
    g.add_argument(
        "--categorical",
        action="append",
        default=[],
        metavar="COL",
        help="a numeric column that holds categories (integer codes): never binned (repeatable)",
    )


def _output_options() -> argparse.ArgumentParser:
    out = argparse.ArgumentParser(add_help=False)
    out.add_argument(
        "--json",
        action="store_true",
        help='print {"results": [...]} as JSON instead of a text table',
    )
    _named(
        out,
        "--id",
        "COL",
        "a column of the test file that names its rows (not a feature): shown beside "
        "test_index in every output",
    )
    return out


def _alpha(p) -> None:
    p.add_argument(
        "--alpha",
        default="0",
        metavar="A",
        help="Laplace smoothing (default 0: none); read exactly, so 0.1 means 1/10; "
        "fractions like 1/3 are accepted",
    )


def _named(p, flag: str, metavar: str, help: str) -> None:
    """An option naming a file, a column or an address (default: none)."""
    p.add_argument(flag, default=None, metavar=metavar, help=help)


def _option(p, flag: str, rule: str, help: str, default=None, metavar: str = "N") -> None:
    """An option whose values the rule ``rule`` of nbcert.params checks, stored under the
    rule's name (the API parameter's: ``--worlds`` is ``args.n_worlds``); its help ends
    with its default, where it has one."""
    if default is not None:
        help = f"{help} (default {default:g})"
    p.add_argument(
        flag, type=rule_type(rule), dest=rule, default=default, metavar=metavar, help=help
    )


def _method(p, function: str, help: str) -> None:
    """--method, its choices those of the rule for ``function``'s method in nbcert.params,
    the first of them its default."""
    choices = params.options("method", function)
    p.add_argument("--method", choices=choices, default=choices[0], help=help)


def _command(sub, parents, name: str, alpha: bool = True):
    """The subcommand ``name`` described by ``_ABOUT``, with --alpha unless ``alpha`` is False."""
    help, *paragraphs = _ABOUT[name]
    p = sub.add_parser(
        name,
        parents=parents,
        formatter_class=_Formatter,
        help=help,
        description=_text(*paragraphs),
        epilog=_epilog(name),
    )
    if alpha:
        _alpha(p)
    return p


def _certificate(p, what: str) -> None:
    """--certificate FILE: the answer's certificate, written beside the usual output."""
    _named(
        p,
        "--certificate",
        "FILE",
        f"also write a certificate to FILE: the answers as --json prints them, {what}, and "
        "the files' SHA-256; check it with nbcert verify FILE (or, with the standard library "
        "alone, python3 src/nbcert/verify.py FILE in a checkout)",
    )


def _certify(sub, parents) -> None:
    p = _command(sub, parents, "certify")
    _certificate(p, "each with worlds and bounds that prove it")
    _method(
        p,
        "certify",
        "index (default) and iterate are exact; ad samples --worlds worlds per test point: "
        "a world that disagrees proves the point not robust, and otherwise it says only that "
        "no other label appeared in those worlds (never robust)",
    )
    _option(p, "--worlds", "n_worlds", "worlds sampled per test point with --method ad", 100)
    _option(p, "--seed", "seed", "random seed for --method ad", None, "S")


def _count(sub, parents) -> None:
    p = _command(sub, parents, "count")
    _method(
        p,
        "count_worlds",
        "auto (default: exact when small, else proven bounds where they reach --width "
        "within --time-limit, else montecarlo), exact, batch (the paper's Algorithm 2), "
        "montecarlo (estimated fractions with confidence intervals) or bounds (each "
        "label's share of the worlds as a proven interval, at any size)",
    )
    _option(
        p,
        "--width",
        "width",
        "widest proven interval bounds refines to, as a share of the worlds",
        0.001,
        "SHARE",
    )
    _option(
        p,
        "--time-limit",
        "time_limit",
        "seconds per test point that bounds refines for",
        2.0,
        "SEC",
    )
    _option(p, "--worlds", "n_worlds", "worlds sampled per test point by montecarlo", 20000)
    _option(
        p, "--confidence", "confidence", "confidence level of the montecarlo intervals", 0.95, "C"
    )
    _option(p, "--seed", "seed", "random seed for montecarlo", None, "S")


def _poison(sub, parents) -> None:
    p = _command(sub, parents, "poison")
    p.add_argument(
        "--method",
        default=None,
        choices=params.options("method", "poison") + params.options("method", "poison_together"),
        help="op (default) finds a minimum set; sr and rp are the paper's "
        "randomized baselines; with --together: auto (default: exact, within --time-limit), "
        "exact or greedy (both with a proven lower bound)",
    )
    _option(p, "--seed", "seed", "random seed for sr and rp", None, "S")
    p.add_argument(
        "--together",
        action="store_true",
        help="one set of cells that makes every test point non-robust at once "
        "(--method auto|exact|greedy; each gives a proven lower bound, exact proves what it "
        "can within --time-limit)",
    )
    _option(
        p,
        "--time-limit",
        "time_limit",
        "time limit of the exact search with --together",
        30.0,
        "SEC",
    )
    _certificate(p, "each with worlds that show the row no longer robust and the proof's data")


def _clean(sub, parents) -> None:
    p = _command(sub, parents, "clean", alpha=False)
    _named(
        p,
        "--truth",
        "CLEAN.csv",
        "the complete table: compute the minimum with the truth and the policy's path",
    )
    _alpha(p)
    _choice(
        p,
        "--prior",
        "how the policy weighs a missing cell's possible values: observed (default: "
        "its label's observed frequencies) or worlds (uniform over the domain)",
    )
    _option(p, "--top", "top", "cells listed without --truth", 10)
    p.add_argument(
        "--cells",
        action="store_true",
        help="without --truth, list every cell of each group (--json always does)",
    )
    _method(
        p,
        "clean_with_truth",
        "with --truth, for all test points together: exact (every cleaning where few, else a HiGHS "
        "program, alpha 0), greedy, or auto (default: exact where it applies, else greedy); "
        "each gives a proven lower bound",
    )
    _option(p, "--node-limit", "node_limit", "branch-and-bound nodes of the exact program", 20000)
    _option(
        p,
        "--time-limit",
        "time_limit",
        "time limit of the exact search for all test points together",
        60.0,
        "SEC",
    )
    _option(
        p, "--batch", "batch", "with --truth, cells the policy cleans per step along its path", 1
    )
    _option(
        p,
        "--target",
        "target",
        "with --truth, the share of the rows some cleaning certifies that the cells for all "
        "points together must certify (the others are named and set aside; below 1: greedy, "
        "with a proven lower bound)",
        1.0,
        "SHARE",
    )
    _option(
        p,
        "--budget",
        "budget",
        "with --truth, stop early: the most cells to clean for all test points together and along "
        "the policy's path (default: no limit)",
    )
    _certificate(p, "with --truth: each with the bounds that certify the cleaned rows")


def _verify(sub) -> None:
    p = sub.add_parser(
        "verify",
        formatter_class=_Formatter,
        help="check a certificate written by --certificate",
        description=_text(
            "Check a certificate: say the question it answers (its files, label, alpha and "
            "reading options), read the files again (refusing any whose SHA-256 differs) "
            "and check every claim in exact arithmetic, one line per claim. The same code "
            "as src/nbcert/verify.py, which runs alone with Python's standard library "
            "(python3 verify.py CERT, wherever it is copied)."
        ),
        epilog=textwrap.fill(
            "exit status: 0 when every claim holds, 1 when one does not, 2 when the "
            "certificate or its files cannot be read (one line on stderr), 3 when the "
            "checker itself fails.",
            79,
        ),
    )
    p.add_argument("certificate", metavar="CERT", help="the certificate file (JSON)")
    p.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object (the question, each claim, the status) and nothing else",
    )


COMMANDS = {"certify": _certify, "count": _count, "poison": _poison, "clean": _clean}


def build_parser() -> argparse.ArgumentParser:
    """The ``nbcert`` argument parser; ``args.command`` names the command to run."""
    parser = _Parser(
        prog="nbcert",
        description=_DESCRIPTION,
        epilog=_epilog(*_EXAMPLES),
        formatter_class=_Formatter,
    )
    parser.add_argument("--version", action=_Version)
    sub = parser.add_subparsers(
        dest="command",
        metavar="COMMAND",
        required=True,
        title="commands",
        help="run nbcert COMMAND -h for its options",
    )
    parents = [_input_options(), _output_options()]
    for add in COMMANDS.values():
        add(sub, parents)
    _verify(sub)
    return parser
