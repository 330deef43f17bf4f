"""The text report's tables drawn without importing tabulate, where that is exact.

`k3diff wheels` prints its summary and its differences as tabulate's "simple" table with number
parsing off; importing tabulate (with `html` and `wcwidth`) costs a run several milliseconds.
For cells and headers of printable ASCII only, and the left and right alignments the reports
use, that table is a few lines: each cell stripped, each column as wide as its widest cell or
its header plus two, cells padded to it and joined by two spaces, a rule of dashes under the
headers, trailing spaces dropped. Anything else (a wide or combining character, a control
character, a line break, another alignment, rows of uneven length) returns None and the caller
draws the table with tabulate. `tests/report/test_texttable.py` holds the two equal on random
tables."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

_PADS = {"left": str.ljust, "right": str.rjust}


def _printable(text: str) -> bool:
    return text.isascii() and text.isprintable()


def simple_table(
    rows: Sequence[Sequence[str]],
    headers: Sequence[str],
    align: Sequence[str] | None = None,
) -> str | None:
    """`tabulate(rows, headers=headers, colalign=align, tablefmt="simple",
    disable_numparse=True)` when every cell and header is printable ASCII, every row has one
    cell per header and every alignment is left or right; else None."""
    aligns = list(align or ())
    if not headers or len(aligns) > len(headers) or any(a not in _PADS for a in aligns):
        return None
    if not all(map(_printable, headers)):
        return None
    if any(len(row) != len(headers) or not all(map(_printable, row)) for row in rows):
        return None
    aligns += ["left"] * (len(headers) - len(aligns))
    if not rows:
        aligns = ["left"] * len(headers)  # tabulate aligns the headers of an empty table left
    columns = [[cell.strip() for cell in column] for column in zip(*rows, strict=True)] or [
        []
    ] * len(headers)
    widths = [
        max(len(header) + 2, max(map(len, column), default=0))
        for header, column in zip(headers, columns, strict=True)
    ]
    pads = [_PADS[a] for a in aligns]
    lines = [
        _line(pad(header, width) for header, pad, width in zip(headers, pads, widths, strict=True)),
        _line("-" * width for width in widths),
    ]
    lines += [
        _line(pad(cell, width) for cell, pad, width in zip(cells, pads, widths, strict=True))
        for cells in zip(*columns, strict=True)
    ]
    return "\n".join(lines)


def _line(cells: Iterable[str]) -> str:
    return "  ".join(cells).rstrip()
