"""The text report's own "simple" table is tabulate's, cell for cell, wherever it draws one: on
random tables of printable ASCII (spaces around and inside cells, empty cells, values tabulate
would read as numbers or booleans, no rows at all) it returns exactly what tabulate returns with
the report's options, and it declines (None, so tabulate draws it) whatever it does not model."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tabulate import tabulate

from k3diff.report.texttable import simple_table

ASCII = st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=12)
CELL = st.one_of(ASCII, st.sampled_from(["", "  ", " 1.5 ", "True", "False", "-", "1e5", "0x1f"]))
ALIGN = st.sampled_from(["left", "right"])


@st.composite
def tables(draw: st.DrawFn) -> tuple[list[list[str]], list[str], list[str] | None]:
    width = draw(st.integers(1, 6))
    headers = draw(st.lists(ASCII, min_size=width, max_size=width))
    rows = draw(st.lists(st.lists(CELL, min_size=width, max_size=width), max_size=6))
    align = draw(st.none() | st.lists(ALIGN, max_size=width))
    return rows, headers, align


def _tabulate(rows: list[list[str]], headers: list[str], align: list[str] | None) -> str:
    return tabulate(rows, headers=headers, colalign=align, tablefmt="simple", disable_numparse=True)


@settings(max_examples=400, deadline=None)
@given(tables())
def test_the_simple_table_is_tabulates(
    table: tuple[list[list[str]], list[str], list[str] | None],
) -> None:
    rows, headers, align = table
    assert simple_table(rows, headers, align) == _tabulate(rows, headers, align)


def test_the_reports_summary_table_is_tabulates() -> None:
    rows = [["native", "136", "136", "0", "0", "0"], ["python", "2415", "2402", "12", "0", "1"]]
    headers = ["kind", "total", "identical", "changed", "missing", "added"]
    align = ["left", "right", "right", "right", "right", "right"]
    assert simple_table(rows, headers, align) == _tabulate(rows, headers, align)
    assert simple_table([], headers, align) == _tabulate([], headers, align)


@pytest.mark.parametrize(
    ("rows", "headers", "align"),
    [
        ([["caf\u00e9"]], ["name"], None),  # not ASCII: wide and combining characters
        ([["\u4e2d\u6587"]], ["name"], None),
        ([["a\nb"]], ["name"], None),  # a line break: tabulate's multiline table
        ([["\x1b[31mred"]], ["name"], None),  # an ANSI code: tabulate's invisible width
        ([["a\tb"]], ["name"], None),
        ([["a"]], ["n\u00e4me"], None),
        ([["a", "b"]], ["name"], None),  # uneven rows
        ([["a"]], ["name"], ["center"]),  # an alignment the reports do not use
        ([["a"]], ["name"], ["left", "right"]),
        ([["a"]], [], None),
    ],
)
def test_it_declines_what_it_does_not_model(
    rows: list[list[str]], headers: list[str], align: list[str] | None
) -> None:
    assert simple_table(rows, headers, align) is None
