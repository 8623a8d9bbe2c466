"""The command line's commands: each reads its inputs, calls the API and returns a result
object (rendered as text or JSON by ``render``).

Options are checked before any file is read: the values by argparse (``parser``), the
exact ``--alpha`` and the combinations of options here.  The files are named in the
library's messages (``names``), never rewritten afterwards.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass, field
from fractions import Fraction

import nbcert

from .. import params
from ..errors import InputError, ParameterError
from ..reading.asked import check_id, not_a_column
from ..reading.options import Reading, RowIds, reading_options, split_id


@dataclass
class Session:
    """What a command holds besides its arguments: the progress bars to draw (on a
    terminal, ``cli.progress.Bars``; None elsewhere and with --json) and the Dask client to
    close when it is done."""

    progress: object = None
    client: object = None

    def close(self) -> None:
        if self.progress is not None:
            self.progress.close()
        if self.client is not None:
            self.client.close()

    def ticking(self, stage: str):
        """A context in which a stage of unknown size shows its elapsed time (no-op without
        bars)."""
        return nullcontext() if self.progress is None else self.progress.ticking(stage)

    def hook(self, name: str = "__call__"):
        """The bars' ``progress`` callback for the API (None without bars)."""
        return None if self.progress is None else getattr(self.progress, name)


@dataclass
class Inputs:
    train: object  # the training file's TableSource (read by the library), or a Dask DataFrame
    test: object  # the test points (a DataFrame) without the label and --id columns
    names: dict = field(default_factory=dict)  # the files' names, for the library's messages
    ids: RowIds | None = None
    truth: object = None  # clean --truth: the complete table (a DataFrame)


@dataclass
class Certified:
    index: list
    table: object  # certify's DataFrame: robust, label, possible_labels, tie_possible
    ids: RowIds | None = None


@dataclass
class Counted:
    index: list
    counts: list  # WorldCounts per test point
    confidence: float
    ids: RowIds | None = None
    width: float = 0.001  # the requested width of proven intervals: their digits shown


@dataclass
class Poisoned:
    index: list
    poisonings: list  # Poisoning per test point
    ids: RowIds | None = None


@dataclass
class PoisonedTogether:
    index: list
    poisoning: object  # TogetherPoisoning
    ids: RowIds | None = None


@dataclass
class Advice:
    table: object  # clean's DataFrame, best group first
    cells: bool = False  # --cells: list every cell of each group in text too


@dataclass
class Cleaned:
    index: list
    report: object  # CleaningReport
    ids: RowIds | None = None


def _alpha(text: str) -> Fraction:
    """The --alpha text read exactly, as a Fraction, by its rule."""
    rule = params.rule("alpha")
    try:
        return rule.parse(text, "alpha")
    except ParameterError:
        raise ParameterError(f"--alpha: {rule.expected(text)}") from None


def _check_binning(args) -> None:
    """--binning means nothing without --bins: said before any file is read."""
    if args.binning is not None and args.bins is None:
        raise ParameterError("--binning needs --bins")


def _certificate(args, inputs: Inputs | None = None, **files):
    """The --certificate target, checked before any file is read (None without the flag):
    it names the command line's files as given, and its --id column once read."""
    if getattr(args, "certificate", None) is None:
        return None
    if args.drop:
        raise ParameterError(
            "--certificate: not written with --drop (the checker reads every column of the "
            "files); leave the columns out of the files themselves, or drop --certificate"
        )
    from ..certificate import Target

    given = {role: path for role, path in files.items() if path is not None}
    text = {"missing": args.missing, "sep": args.sep, "encoding": args.encoding}
    return Target.of(Target(args.certificate, given, inputs.ids if inputs else None, text))


def _reading(args, inputs: Inputs) -> dict:
    """How the library reads the tables: the API's reading options from the flags."""
    _check_binning(args)
    return {
        "names": inputs.names,
        "test_missing": args.test_missing,
        "stream": True if args.stream else None,
        "batch_rows": args.batch_rows,
        "bins": args.bins,
        "binning": args.binning or "quantile",
        "categorical": args.categorical,
        "decimal": args.decimal,  # the files are read with it: the hints know it too
        "drop": args.drop,
    }


def _ask(question: Callable, args, inputs: Inputs, *flags: str, **parameters):
    """The API function ``question`` on the inputs' tables with the ``flags`` (each flag's
    value stored under its API parameter's name), the other ``parameters`` and the flags'
    reading options."""
    given = {flag: getattr(args, flag) for flag in flags}
    tables = () if inputs.truth is None else (inputs.truth,)  # clean_with_truth's, before test
    reading = _reading(args, inputs)
    if getattr(args, "candidates", None) is not None:
        parameters = {"candidates": args.candidates, **parameters}
    if getattr(args, "repairs", None) is not None:
        parameters = {"repairs": args.repairs, **parameters}
    return question(
        inputs.train, *tables, inputs.test, args.label, **given, **parameters, **reading
    )


def _hinting(command):
    """The command with the library's DataWarnings written as one line each on stderr
    (in the command line's wording); other warnings are shown as usual."""
    import functools
    import warnings

    @functools.wraps(command)
    def run(args, session):
        from ..errors import DataWarning

        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", DataWarning)
                return command(args, session)
        finally:  # after the recording ends: shown there, a warning was recorded again
            for w in caught:
                if isinstance(w.message, DataWarning):
                    sys.stderr.write(f"nbcert: warning: {w.message.cli}\n")
                else:
                    warnings.showwarning(w.message, w.category, w.filename, w.lineno)

    return run


def _files(args, names: dict) -> Reading:
    """How the command's files are read (--missing, --sep, --encoding, --decimal), each
    named by its path."""
    text = {"sep": args.sep, "encoding": args.encoding, "decimal": args.decimal}
    return reading_options(args.train, missing=args.missing, names=names, **text)


def _load(args, session: Session) -> Inputs:
    """Open the training file (its header is checked; the library reads the rest) and read
    the test file; the CLI checks only what is about files: a test column that the training
    file does not have.  With a Dask scheduler the training table becomes a Dask DataFrame
    read by the workers."""
    _check_binning(args)
    if [args.train, args.test, getattr(args, "truth", None)].count("-") > 1:
        raise ParameterError("only one of --train, --test and --truth can be - (standard input)")
    names = {"train": args.train, "test": args.test}
    files = _files(args, names)
    source = files.source(args.train, "train", text=True)
    test, ids = split_id(files.frame(args.test, "test"), args.id, names)
    check_id(ids, [c for c in source.columns if c not in (args.label, *args.drop)], names)
    extra = [c for c in test.columns if c not in (*source.columns, *args.drop)]
    if extra:
        flag = f"--id {shlex.quote(str(extra[0]))}"
        raise not_a_column(args.test, extra[0], args.train, args.id, flag)
    from ..reading.cluster import connect, read_on_cluster, scheduler_address

    train, address = source, scheduler_address(args.scheduler)
    if address:
        session.client = connect(address)
        train = read_on_cluster(source, args.train)
    return Inputs(train, test.drop(columns=[args.label], errors="ignore"), names, ids)


@_hinting
def certify(args, session: Session) -> Certified:
    alpha = _alpha(args.alpha)
    if args.certificate is not None and args.method == "ad":
        raise ParameterError("--certificate needs an exact method (index or iterate), not ad")
    _certificate(args, train=args.train, test=args.test)
    inputs = _load(args, session)
    target = _certificate(args, inputs, train=args.train, test=args.test)
    flags = ("method", "n_worlds", "seed")
    table = _ask(nbcert.certify, args, inputs, *flags, alpha=alpha, certificate=target)
    if args.repairs is not None:
        table = _decided(table, list(inputs.test.index))
    return Certified(list(inputs.test.index), table, inputs.ids)


def _decided(table, index: list):
    """certify's table over repaired rows, where every test point is decided: a point whose
    search stopped is an error naming it and its bounds (the text and JSON show answers only)."""
    stopped = table["undecided"].notna().to_numpy()
    if stopped.any():
        i = int(stopped.argmax())
        raise InputError(
            f"--repairs: test point {index[i]} is undecided ({table['undecided'].iloc[i]}); "
            "nbcert.certify(..., repairs=) gives the other rows"
        )
    return table.drop(columns="undecided")


@_hinting
def count(args, session: Session) -> Counted:
    alpha = _alpha(args.alpha)
    inputs = _load(args, session)
    flags = ("method", "n_worlds", "confidence", "seed", "width", "time_limit")
    progress = session.hook("counting")
    counts = _ask(nbcert.count_worlds, args, inputs, *flags, alpha=alpha, progress=progress)
    return Counted(list(inputs.test.index), counts, args.confidence, inputs.ids, args.width)


def _check_poison_method(args) -> None:
    if args.together:
        rule = params.rule("method", "poison_together")
        if (args.method or "auto") not in rule.options:
            raise ParameterError(
                f"--method {args.method} does not apply to --together (use {rule.listed()})"
            )
    elif args.method not in (None, *params.options("method", "poison")):
        raise ParameterError(
            f"--method {args.method} needs --together (single rows use "
            f"{params.rule('method', 'poison').listed()})"
        )


@_hinting
def poison(args, session: Session) -> Poisoned | PoisonedTogether:
    if args.repairs is not None:
        raise ParameterError(
            "--repairs: poisoning blanks cells of a complete table, which has no repairs"
        )
    if args.candidates is not None:
        from ..api import NO_CANDIDATES_TO_POISON

        raise ParameterError(f"--candidates: {NO_CANDIDATES_TO_POISON}")
    _check_poison_method(args)
    alpha = _alpha(args.alpha)
    if args.together and alpha:
        raise ParameterError("--alpha: poisoning rows --together is for alpha 0 (the paper's)")
    _certificate(args, train=args.train, test=args.test)
    inputs = _load(args, session)
    index = list(inputs.test.index)
    target = _certificate(args, inputs, train=args.train, test=args.test)
    if args.together:
        with session.ticking("searching cells for every row at once"):
            method = args.method or "auto"
            res = _ask(
                nbcert.poison_together,
                args,
                inputs,
                "time_limit",
                method=method,
                certificate=target,
            )
        return PoisonedTogether(index, res, inputs.ids)
    method = args.method or "op"
    res = _ask(nbcert.poison, args, inputs, "seed", method=method, alpha=alpha, certificate=target)
    return Poisoned(index, res, inputs.ids)


def _check_clean_options(args) -> None:
    from ..reading.cluster import scheduler_address

    if args.stream or scheduler_address(args.scheduler):
        raise ParameterError(
            "clean needs the training table in memory (drop --stream, --scheduler and "
            "NBCERT_DASK_SCHEDULER)"
        )
    if args.truth is None:
        for flag, default in (
            ("method", "auto"),
            ("batch", 1),
            ("target", 1.0),
            ("budget", None),
            ("certificate", None),
        ):
            if getattr(args, flag) != default:
                raise ParameterError(f"--{flag} needs --truth")


@_hinting
def clean(args, session: Session) -> Advice | Cleaned:
    if args.repairs is not None:
        raise ParameterError(
            "--repairs: cleaning rows is in the API (nbcert.clean and clean_with_truth with "
            "repairs=); the command cleans cells"
        )
    alpha = _alpha(args.alpha)
    _check_clean_options(args)
    files = {"train": args.train, "test": args.test, "truth": args.truth}
    _certificate(args, **files)
    inputs = _load(args, session)
    inputs.train = inputs.train.to_pandas()  # the cleaning methods work on the rows
    if args.truth is None:
        return Advice(_ask(nbcert.clean, args, inputs, "prior", "top", alpha=alpha), args.cells)
    inputs.names["truth"] = args.truth
    inputs.truth = _files(args, inputs.names).frame(args.truth, "truth")
    flags = ("prior", "method", "node_limit", "time_limit", "batch", "target", "budget")
    written = _certificate(args, inputs, **files)
    report = _ask(
        nbcert.clean_with_truth,
        args,
        inputs,
        *flags,
        alpha=alpha,
        progress=session.hook(),
        certificate=written,
    )
    return Cleaned(list(inputs.test.index), report, inputs.ids)


COMMANDS = {"certify": certify, "count": count, "poison": poison, "clean": clean}
