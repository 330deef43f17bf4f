"""The Markdown rules every report shares: fences outlast the content, cells stay cells."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from k3diff import escape
from k3diff.report.markdown import (
    capped,
    capped_lines,
    cell,
    fence_for,
    fenced,
    inline_code,
    markdown_cell,
)


def test_fence_is_three_backticks_for_plain_content() -> None:
    assert fenced("a\nb", "diff") == "```diff\na\nb\n```"


def test_fence_outlasts_a_fence_line_in_the_content() -> None:
    block = fenced("```python\nrun()\n```", "diff")
    assert block.startswith("````diff\n") and block.endswith("\n````")


@given(st.text(alphabet="`ab\n", max_size=40))
def test_no_backtick_run_inside_can_close_the_fence(body: str) -> None:
    fence = fence_for(body)
    assert len(fence) >= 3
    assert all(len(run) < len(fence) for run in re.findall(r"`+", body))


def test_inline_code_wraps_backticks_with_a_longer_run() -> None:
    assert inline_code("__init__.py") == "`__init__.py`"
    assert inline_code("a`b") == "`` a`b ``"


def test_cell_escapes_pipes_html_and_shows_newlines_as_escapes() -> None:
    assert cell("a|b\nc") == "a\\|b\\nc"  # renders as a|b\nc, one cell on one line
    assert cell("<script>x&y</script>") == "&lt;script>x&amp;y&lt;/script>"  # no tag opens
    assert cell("engine 1.0 -> 1.1") == "engine 1.0 -> 1.1"
    assert escape.markdown_prose("> quoted") == "&gt; quoted"  # no block quote either
    # emphasis, code spans and escapes cannot start: a path renders as itself
    assert cell("engine/__init__.py") == "engine/\\_\\_init\\_\\_.py"
    assert cell("*a* `b`") == "\\*a\\* \\`b\\`"
    assert cell("a\\_b") == "a\\\\\\_b"  # the backslash before punctuation escaped too


def test_markdown_cell_escapes_only_the_pipes_not_yet_escaped() -> None:
    assert markdown_cell(inline_code("a|b") + " \\| c\nd") == "`a\\|b` \\| c d"


def test_inline_code_and_fences_show_control_characters_as_escapes() -> None:
    assert inline_code("a\nb\x1b[2K") == "`a\\nb\\x1b[2K`"
    assert fenced("+x\x1b[G\r# ok\r\n", "diff") == "```diff\n+x\\x1b[G\\r# ok\r\n\n```"


def test_capping_says_how_many_were_left_out() -> None:
    assert capped_lines(["1", "2", "3"], 3) == (["1", "2", "3"], None)
    assert capped_lines(["1", "2", "3"], 1) == (["1"], "… 2 more lines, see --format json")
    assert capped([1, 2, 3], 2, str) == ["1", "2", "… 1 more"]
