"""The Markdown rules every report shares: fences outlast the content, cells stay cells."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from k3diff.report.markdown import capped, capped_lines, cell, fence_for, fenced, inline_code


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


def test_cell_escapes_pipes_and_folds_newlines() -> None:
    assert cell("a|b\nc") == "a\\|b c"


def test_capping_says_how_many_were_left_out() -> None:
    assert capped_lines(["1", "2", "3"], 3) == (["1", "2", "3"], None)
    assert capped_lines(["1", "2", "3"], 1) == (["1"], "… 2 more lines, see --format json")
    assert capped([1, 2, 3], 2, str) == ["1", "2", "… 1 more"]
