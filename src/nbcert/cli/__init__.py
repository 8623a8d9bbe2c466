"""The ``nbcert`` command line: certify, count, poison and clean on CSV (or Parquet) files.

* ``certify``: is each test point certifiably robust (one prediction in every possible world)?
* ``count``: how many possible worlds predict each label, and how many tie, per test point.
* ``poison``: the fewest training cells to blank so that a test point (or, with
  ``--together``, every test point at once) is no longer robust.
* ``clean``: which missing cells to clean first (with ``--truth``: the fewest, exactly).
* ``verify``: check a certificate that ``--certificate FILE`` wrote (``nbcert.verify``).

Every user mistake is reported as one line ``nbcert: error: <message>`` on stderr with
exit status 2 (the same status argparse uses for usage errors); results go to stdout,
as an aligned text table or, with ``--json``, as ``{"results": [...]}``.

The package is three layers: ``parser`` (the arguments, their rules from
``nbcert.params``), ``commands`` (read the inputs, call the API, return a result object)
and ``render`` (a result object as text or JSON).  Importing it loads neither pandas nor
scikit-learn; a command loads what it uses.
"""

from __future__ import annotations

import os
import sys

from ..errors import InputError
from .parser import build_parser

EXIT_OK = 0
EXIT_ERROR = 2
OUT_OF_MEMORY = (
    "out of memory (the machine's, or a limit such as ulimit -v); the questions grow with "
    "the values per column and the cells to fill: bin numeric columns (--bins N), give "
    "candidate repairs (--candidates FILE), use --alpha 0, or a heuristic method "
    "(clean --truth --method greedy, count --method montecarlo)"
)


def _error(msg: str) -> int:
    msg = " ".join(str(msg).split()) or "invalid input"
    sys.stderr.write(f"nbcert: error: {msg}\n")
    return EXIT_ERROR


def _run(args) -> None:
    """Run the command and print its result."""
    from . import commands, render
    from .progress import Bars

    watched = sys.stderr.isatty() and not args.json  # a person, not a program, reads it
    session = commands.Session(progress=Bars(sys.stderr) if watched else None)
    try:
        result = commands.COMMANDS[args.command](args, session)
        sys.stdout.write(render.as_json(result) if args.json else render.as_text(result))
        sys.stdout.flush()
    finally:
        session.close()


def main(argv=None) -> int:
    """Run the command line; return the exit status (0 ok, 2 usage or input error)."""
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as e:  # -h, --version and usage errors
        return e.code if isinstance(e.code, int) else (0 if e.code is None else EXIT_ERROR)
    if args.command == "verify":  # the checker has its own lines and exit statuses
        from .. import verify

        return verify.main([args.certificate] + ["--json"] * args.json, prog="nbcert verify")
    set_digits = getattr(sys, "set_int_max_str_digits", None)  # world counts can be huge
    old_digits = sys.get_int_max_str_digits() if set_digits else None
    if set_digits:
        set_digits(0)
    try:
        _run(args)
    except InputError as e:
        return _error(str(e))
    except MemoryError:  # a last resort: every enumeration is sized before it is built
        return _error(OUT_OF_MEMORY)
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
    return EXIT_OK


__all__ = ["main", "build_parser", "EXIT_OK", "EXIT_ERROR"]
