"""A certificate as a file: where it goes (``Target``), what it pins (``inputs``), and
writing it whole or not at all (``write``).

The document is JSON::

    {"format": "nbcert certificate", "version": 2, "command": "certify",
     "inputs": {"files": {"train": {"path": ..., "sha256": ..., "rows": ...}, "test": ...},
                "label": ..., "alpha": "1/2",
                "reading": {"sep": ",", "encoding": "utf-8", "missing": [...],
                            "decimal": ".", "id": null, "numeric": [...],
                            "bins": {column: {"edges": [...], "names": [...]}}},
                "test_indices": [...],  (only when a few of the test file's points)
                "nbcert": "0.1.0"},
     "results": [...]}

Each file is named by its path relative to the certificate's folder, its SHA-256 and its
number of data rows (the checker reads no more).  ``results`` are the claims of the answer
``--json`` prints (not how it was found: no method or limit), each with an ``evidence``
object (``nbcert.certificate.questions``); ``verify.py`` reads it and refuses any field it
does not know.
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
from ..stats.domains import Domains
from ..verify import FORMAT, VERSION

STDIN = "-"


@dataclass(frozen=True)
class Target:
    """Where a certificate is written (``path``) and the files it pins: ``files`` maps a
    table's role (``train``, ``test``, ``truth``) to its path as given; ``frames`` the
    roles given as DataFrames to the tables themselves, each written beside the certificate
    as the file ``files`` names when the certificate is written; ``ids`` is the command
    line's test id column (``nbcert.inputs.RowIds``), if any, and ``text`` how the command
    line read the files' text (``missing``, ``sep``, ``encoding``), which the API was not
    given."""

    path: str
    files: dict = field(default_factory=dict)
    ids: object = None
    text: dict = field(default_factory=dict)
    frames: dict = field(default_factory=dict, compare=False)

    @classmethod
    def of(cls, certificate, **tables) -> Target:
        """The checked target of a ``certificate=`` argument, before any data is read.

        Parameters
        ----------
        certificate : str, path or Target
            Where to write it; a Target may name the files (the command line's paths).
        **tables
            The question's tables by role (``train``, ``test``, ``truth``): a table given
            as a path is the file the certificate pins, unless the Target names one; a
            DataFrame is written beside the certificate as ``<certificate>.<role>.csv``
            (when the certificate is, and hashed as any file).

        Returns
        -------
        Target

        Raises
        ------
        ParameterError
            A table that is not a file or a DataFrame the checker can read again (standard
            input, a folder, a coded table, a DataFrame holding an empty string).
        InputError
            A certificate path in a folder that does not exist, or naming an input file.
        """
        import pandas as pd

        target = certificate if isinstance(certificate, Target) else cls(os.fspath(certificate))
        files, frames = dict(target.files), dict(target.frames)
        for role, table in tables.items():
            if table is None or role in files:
                continue
            if isinstance(table, pd.DataFrame):
                _check_frame(table, role)
                frames[role], files[role] = table, beside(target.path, role)
            else:
                files[role] = _path_of(table, role)
        for role, path in files.items():
            if role not in frames:
                _check_file(role, path)
        _check_destination(target.path, files)
        for role in frames:
            for other, given in files.items():
                if other not in frames and _same(given, files[role]):
                    raise InputError(
                        f"{files[role]}: is the {other} table; the {role} table written "
                        "beside the certificate would overwrite it"
                    )
        return cls(target.path, files, target.ids, target.text, frames)


def beside(certificate: str, role: str) -> str:
    """Where a table given as a DataFrame is written: ``<certificate's stem>.<role>.csv``."""
    path = Path(certificate)
    return str(path.with_name(f"{path.stem}.{role}.csv"))


def _check_frame(frame, role: str) -> None:
    """A DataFrame that a CSV file holds as nbcert read it.

    In a file an empty field is a missing cell, so an empty string (a value in a DataFrame)
    cannot be written; and a test point is named by its data row in the file, so the test
    table's index must be its rows' positions (results name a point by its index label).
    """
    import pandas as pd

    if role == "test" and not frame.index.equals(pd.RangeIndex(len(frame))):
        raise ParameterError(
            "certificate: the test table's index is not 0, 1, ..., and a certificate names "
            "a test point by its row in the file written; pass test.reset_index(drop=True)"
        )
    text = frame.select_dtypes(include=["object", "string"])
    empty = [c for c in text.columns if (text[c] == "").any()]
    if empty:
        raise ParameterError(
            f"certificate: column {str(empty[0])!r} of the {role} table holds an empty string, "
            "a value that a file would read as a missing cell; replace it (or make it None) "
            "to write a certificate"
        )


def _write_frames(target: Target, reading) -> None:
    """Each table given as a DataFrame, written whole beside the certificate as the CSV the
    certificate names (with the reading's separator and encoding; an empty field for a
    missing cell)."""
    sep = target.text.get("sep") or getattr(reading, "sep", None) or ","
    encoding = target.text.get("encoding") or getattr(reading, "encoding", None) or "utf-8"
    for role, frame in target.frames.items():
        path = target.files[role]
        fd, tmp = tempfile.mkstemp(prefix=".table-", suffix=".csv", dir=os.path.dirname(
            os.path.abspath(path)))  # fmt: skip
        try:
            with os.fdopen(fd, "w", encoding=encoding, newline="") as f:
                frame.to_csv(f, index=False, sep=sep, na_rep="")
            os.chmod(tmp, 0o666 & ~_umask())
            os.replace(tmp, path)
        except (OSError, UnicodeEncodeError) as e:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise InputError(f"{path}: cannot write the {role} table ({e})") from None


def _path_of(table, role: str) -> str:
    from ..reading.files import TableSource

    if isinstance(table, TableSource):
        return os.fspath(table.path)
    if isinstance(table, (str, os.PathLike)):
        return os.fspath(table)
    raise ParameterError(
        f"certificate: the {role} table must be a file or a DataFrame the checker can read "
        f"again (not a {type(table).__name__})"
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


def _same(a: str, b: str) -> bool:
    return os.path.abspath(a) == os.path.abspath(b) or (
        os.path.exists(a) and os.path.exists(b) and os.path.samefile(a, b)
    )


def _check_destination(path: str, files: dict) -> None:
    folder = Path(path).parent
    if not folder.is_dir():
        raise InputError(f"{path}: no folder {str(folder)!r} to write the certificate in")
    if Path(path).is_dir():
        raise InputError(f"{path}: is a folder, not a file to write the certificate to")
    for role, given in files.items():
        if _same(given, path):
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


def relative(path: str, certificate: str) -> str:
    """A file's path as the certificate names it: relative to the certificate's folder (so
    the two may move together), absolute where no relative path leads there."""
    folder = os.path.dirname(os.path.abspath(certificate))
    try:
        return os.path.relpath(os.path.abspath(path), folder)
    except ValueError:  # another drive
        return os.path.abspath(path)


def _reading(target: Target, table: Domains, reading, bins) -> dict:
    """How the files were read: the certificate's ``inputs.reading``."""
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
        "sep": text["sep"] or ",",
        "encoding": text["encoding"] or "utf-8",
        "missing": [str(t) for t in (text["missing"] or ())],
        "decimal": getattr(reading, "decimal", None) or ".",
        "id": None if ids is None else str(ids),
        "numeric": numeric,
        "bins": binned,
    }


def inputs(
    target: Target, table: Domains, label, alpha, reading=None, bins=(), *, rows, test_indices=None
) -> dict:
    """What the certificate's answers were given: each file's path, SHA-256 and data rows,
    the label column, alpha as an exact fraction, how the files were read, the test points
    answered where they are a few of the file's, and nbcert's version.

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
    rows : dict
        Each file's number of data rows, by role.
    test_indices : list of int, optional
        The test points answered, when not every one of the test file.

    Returns
    -------
    dict
    """
    _write_frames(target, reading)
    files = {
        role: {"path": relative(p, target.path), "sha256": sha256(p), "rows": int(rows[role])}
        for role, p in target.files.items()
    }
    out = {
        "files": files,
        "label": str(label),
        "alpha": str(Fraction(alpha)),
        "reading": _reading(target, table, reading, bins),
    }
    if test_indices is not None:
        out["test_indices"] = [int(i) for i in test_indices]
    out["nbcert"] = _version()
    return out


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


__all__ = ["FORMAT", "VERSION", "Target", "inputs", "relative", "write", "sha256"]
