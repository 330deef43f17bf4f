"""Markdown building blocks every renderer uses: fences, inline code, table cells, capping.

One home so the rules cannot drift between commands:
- a fenced block's fence is longer than any backtick run in its content (at least three), so a
  diff of a Markdown file, or a response quoting code, can never close it early;
- inline code uses the same rule with single backticks;
- a table cell escapes `|` and folds newlines, so one value stays one cell;
- text from an input is escaped by `k3diff.escape` (control characters shown as escapes,
  HTML's `&<>` as entities), so no name can start a tag, a cell or a new line;
- long lists are capped with a line saying how many were left out.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from k3diff import escape
from k3diff.lazyre import lazy
from k3diff.output import plural

T = TypeVar("T")

_BACKTICK_RUN = lazy(r"`+")


def _longest_backtick_run(text: str) -> int:
    return max((len(run) for run in _BACKTICK_RUN.findall(text)), default=0)


def fence_for(body: str) -> str:
    """A backtick fence no backtick run inside `body` can close (three backticks at least)."""
    return "`" * max(3, _longest_backtick_run(body) + 1)


def fenced(body: str, info: str = "") -> str:
    """`body` as a fenced code block with the info string `info` (`diff`, `text`, …); its
    control characters other than line breaks and tabs are shown as escapes."""
    body = escape.markdown_code_block(body)
    fence = fence_for(body)
    return f"{fence}{info}\n{body}\n{fence}"


def inline_code(text: str) -> str:
    """`text` as inline code; keeps `__init__.py` from turning into bold `init.py`. Control
    characters (newlines too) are shown as escapes, so the span stays on its line."""
    text = escape.markdown_code(text)
    fence = "`" * (_longest_backtick_run(text) + 1)
    padding = " " if "`" in text else ""
    return f"{fence}{padding}{text}{padding}{fence}"


def cell(text: str) -> str:
    """Plain `text` (a name, key or value) as one pipe-table cell: escaped by
    `escape.markdown` (HTML, `|`, control characters)."""
    return escape.markdown(text)


_UNESCAPED_PIPE = lazy(r"(?<!\\)\|")


def markdown_cell(fragment: str) -> str:
    """A Markdown `fragment` built from escaped parts (inline code, escaped prose) as one
    table cell: pipes not yet escaped are, newlines folded to spaces."""
    return _UNESCAPED_PIPE.sub(r"\\|", fragment.replace("\n", " "))


def escape_inline(text: str) -> str:
    """Plain `text` as Markdown prose that cannot turn into table cells, bold, italics, HTML or
    a new line (`escape.markdown_prose`)."""
    return escape.markdown_prose(text)


def capped_lines(lines: Sequence[str], cap: int) -> tuple[list[str], str | None]:
    """The first `cap` diff lines, and a note saying how many were left out (None if none)."""
    if len(lines) <= cap:
        return list(lines), None
    hidden = len(lines) - cap
    return list(lines[:cap]), f"… {plural(hidden, 'more line')}, see --format json"


def capped(items: Sequence[T], cap: int, render: Callable[[T], str]) -> list[str]:
    """The first `cap` items rendered, then `… N more` when some were left out."""
    lines = [render(item) for item in items[:cap]]
    if len(items) > cap:
        lines.append(f"… {len(items) - cap} more")
    return lines
