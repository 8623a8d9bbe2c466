"""A certificate as a file: where it goes (``Target``), what it pins (``inputs``), and
writing it whole or not at all (``write``).

The document is JSON::

    {"format": "nbcert certificate", "version": 1, "command": "certify",
     "inputs": {"files": {"train": {"path": ..., "sha256": ...}, "test": ...},
                "label": ..., "alpha": "1/2",
                "reading": {"sep": ",", "encoding": "utf-8", "missing": [...],
                            "decimal": ".", "id": null, "numeric": [...],
                            "bins": {column: {"edges": [...], "names": [...]}}},
                "nbcert": "0.1.0"},
     "results": [...]}

``results`` are the objects ``--json`` prints, each with an ``evidence`` object
(``nbcert.certificate.questions``); ``verify.py`` reads it.  A path is written as given
(relative paths are read from the folder the checker runs in, or beside the certificate).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

from ..errors import InputError, ParameterError
from ..reading.encoding import Domains

FORMAT = "nbcert certificate"
VERSION = 1
STDIN = "-"


@dataclass(frozen=True)
class Target:
    """Where a certificate is written (``path``) and the files it pins: ``files`` maps a
    table's role (``train``, ``test``, ``truth``) to its path as given; ``ids`` is the
    command line's test id column (``nbcert.inputs.RowIds``), if any, and ``text`` how the
    command line read the files' text (``missing``, ``sep``, ``encoding``), which the API
    was not given."""

    path: str
    files: dict = field(default_factory=dict)
    ids: object = None
    text: dict = field(default_factory=dict)

    @classmethod
    def of(cls, certificate, **tables) -> Target:
        """The checked target of a ``certificate=`` argument, before any data is read.

        Parameters
        ----------
        certificate : str, path or Target
            Where to write it; a Target may name the files (the command line's paths).
        **tables
            The question's tables by role (``train``, ``test``, ``truth``): a table given
            as a path is the file the certificate pins, unless the Target names one.

        Returns
        -------
        Target

        Raises
        ------
        ParameterError
            A table that is not a file the checker can read again (a DataFrame, standard
            input, a folder).
        InputError
            A certificate path in a folder that does not exist, or naming an input file.
        """
        target = certificate if isinstance(certificate, Target) else cls(os.fspath(certificate))
        files = dict(target.files)
        for role, table in tables.items():
            if table is not None and role not in files:
                files[role] = _path_of(table, role)
        for role, path in files.items():
            _check_file(role, path)
        _check_destination(target.path, files)
        return cls(target.path, files, target.ids, target.text)


def _path_of(table, role: str) -> str:
    from ..reading.files import TableSource

    if isinstance(table, TableSource):
        return os.fspath(table.path)
    if isinstance(table, (str, os.PathLike)):
        return os.fspath(table)
    raise ParameterError(
        f"certificate: the {role} table must be a file the checker can read again "
        f"(pass its path, not a {type(table).__name__})"
    )


def _check_file(role: str, path: str) -> None:
    if path == STDIN:
        raise ParameterError(
            f"certificate: the checker reads every file again; the {role} table cannot be "
            "standard input (-)"
        )
    if os.path.isdir(path):
        raise ParameterError(
            f"certificate: the {role} table {path} is a folder; the checker reads one file"
        )


def _check_destination(path: str, files: dict) -> None:
    folder = Path(path).parent
    if not folder.is_dir():
        raise InputError(f"{path}: no folder {str(folder)!r} to write the certificate in")
    if Path(path).is_dir():
        raise InputError(f"{path}: is a folder, not a file to write the certificate to")
    for role, given in files.items():
        if os.path.abspath(given) == os.path.abspath(path) or (
            os.path.exists(path) and os.path.exists(given) and os.path.samefile(given, path)
        ):
            raise InputError(f"{path}: is the {role} table; the certificate would overwrite it")


def sha256(path: str) -> str:
    """The SHA-256 of a file's bytes, as hex."""
    h = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            while block := f.read(1 << 20):
                h.update(block)
    except OSError as e:
        raise InputError(f"{path}: cannot read the file again ({e.strerror or e})") from None
    return h.hexdigest()


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("nbcert")
    except PackageNotFoundError:  # pragma: no cover - imported from a source tree
        return "unknown"


def inputs(target: Target, table: Domains, label, alpha, reading=None, bins=()) -> dict:
    """What the certificate's answers were given: each file's path and SHA-256, the label
    column, alpha as an exact fraction, how the files were read and nbcert's version.

    Parameters
    ----------
    target : Target
    table : Domains
        The training table as coded (its numeric columns are those compared by value).
    label : str
    alpha : Fraction
    reading : nbcert.reading.options.Reading, optional
        The reading options (default: nbcert's defaults).
    bins : sequence of nbcert.reading.binning.ColumnBins
        The fitted bins of the binned columns.

    Returns
    -------
    dict
    """
    import pandas as pd

    binned = {
        str(cb.column): {
            "edges": [float(e) for e in cb.kb.bin_edges_[0]],
            "names": list(cb.names),
        }
        for cb in bins
    }
    numeric = [
        str(f)
        for f, cats in zip(table.features, table.categories)
        if pd.Index(cats).dtype.kind in "iuf" and str(f) not in binned
    ]
    ids = getattr(target.ids, "name", None) or getattr(reading, "id", None)
    text = {k: getattr(reading, k, None) for k in ("missing", "sep", "encoding")}
    text.update({k: v for k, v in target.text.items() if v})
    return {
        "files": {role: {"path": p, "sha256": sha256(p)} for role, p in target.files.items()},
        "label": str(label),
        "alpha": str(Fraction(alpha)),
        "reading": {
            "sep": text["sep"] or ",",
            "encoding": text["encoding"] or "utf-8",
            "missing": [str(t) for t in (text["missing"] or ())],
            "decimal": getattr(reading, "decimal", None) or ".",
            "id": None if ids is None else str(ids),
            "numeric": numeric,
            "bins": binned,
        },
        "nbcert": _version(),
    }


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _text(doc: dict) -> str:
    """The document as JSON: the inputs indented, each result (and each other answer) on a
    line of its own."""

    def dumps(value) -> str:
        return json.dumps(value, ensure_ascii=False, allow_nan=False)

    def block(value: dict, depth: int) -> str:  # a key a line down to ``depth`` levels
        pad = " " * (depth + 1)
        lines = [
            f"{pad}{dumps(k)}: "
            + (block(v, depth + 1) if isinstance(v, dict) and v and depth < 2 else dumps(v))
            for k, v in value.items()
        ]
        return "{\n" + ",\n".join(lines) + "\n" + " " * depth + "}"

    parts = []
    for key, value in doc.items():
        if key == "results":
            rows = ",\n".join(dumps(r) for r in value)
            parts.append(f'"results": [\n{rows}\n]')
        else:
            parts.append(f"{dumps(key)}: " + (block(value, 0) if key == "inputs" else dumps(value)))
    return "{\n" + ",\n".join(parts) + "\n}\n"


def write(target: Target, command: str, inputs: dict, results: list, **more) -> dict:
    """Write the certificate whole (a file beside it, renamed over it when complete) and
    return the document."""
    doc = {
        "format": FORMAT,
        "version": VERSION,
        "command": command,
        "inputs": inputs,
        "results": results,
        **more,
    }
    text = _text(doc)
    folder = os.path.dirname(os.path.abspath(target.path))
    fd, tmp = tempfile.mkstemp(prefix=".certificate-", suffix=".json", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o666 & ~_umask())  # as a file opened for writing would be
        os.replace(tmp, target.path)
    except OSError as e:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise InputError(
            f"{target.path}: cannot write the certificate ({e.strerror or e})"
        ) from None
    return doc


__all__ = ["FORMAT", "VERSION", "Target", "inputs", "write", "sha256"]
