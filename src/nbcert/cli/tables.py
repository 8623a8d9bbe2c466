"""The pieces every text table and JSON record of the command line is made of: aligned
columns, the test-row keys (``test_index`` and the ``--id`` column), cell lists, and one
symbol per kind of absent value."""

from __future__ import annotations


def table(header: list, rows: list, right: set = frozenset()) -> str:
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(header)]

    def line(cells):
        out = [
            c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths))
        ]
        return "  ".join(out).rstrip()

    return "\n".join([line(header)] + [line(r) for r in rows])


def keys_json(res, pos: int, i) -> dict:
    """test_index (and the --id value) of the test point at position ``pos``."""
    keys = {"test_index": int(i)}
    if res.ids is not None:
        keys["id"] = plain(res.ids.values[pos])
    return keys


def plain(value) -> str | None:
    """A value as text, None for a missing one (NaN != NaN: an empty cell)."""
    return None if value is None or value != value else str(value)


def keyed(res, header: list, rows: list, right: set = frozenset()) -> str:
    """A table with one row per test point, led by test_index (and the --id column)."""
    lead = ["test_index"] + ([res.ids.name] if res.ids is not None else [])
    keys = [
        [str(int(i))] + ([shown_or(plain(res.ids.values[p]), NO_ID)] if res.ids is not None else [])
        for p, i in enumerate(res.index)
    ]
    return table(
        lead + header, [k + r for k, r in zip(keys, rows)], {0} | {c + len(lead) for c in right}
    )


def cells_json(cells) -> list:
    return [{"row": int(r), "column": str(c)} for r, c in cells]


#: cells a text table lists before it says how many more there are (JSON lists them all)
SHOWN_CELLS = 12


def cells_text(cells) -> str:
    """``row:column, ...``, the first SHOWN_CELLS of a long list and how many more."""
    cells = list(cells)
    shown = ", ".join(f"{int(r)}:{c}" for r, c in cells[:SHOWN_CELLS])
    rest = len(cells) - SHOWN_CELLS
    return shown if rest <= 0 else f"{shown}, ... and {rest} more (all in --json)"


# What the text tables show where there is no value, one symbol per meaning ("-" alone
# would say "not robust", "every world ties" and "no id" alike).
NONE = "-"  # no label: not robust, no cells found, and the like (null in JSON)
ALL_TIE = "(all tie)"  # no possible label: every world ties
NO_ID = "(no id)"  # a blank cell in the --id column


def shown_or(value, shown: str) -> str:
    return shown if value is None else str(value)


def dash(value) -> str:
    return shown_or(value, NONE)
