"""`escape.text`'s ASCII pattern escapes exactly what the whole pattern escapes: on ASCII text
the whole set (C0, DEL, C1, the bidirectional and invisible format characters, lone
surrogates) can only match C0 and DEL, and the whole set compiles only for text beyond ASCII."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from k3diff import escape

WHOLE = re.compile(f"[\x00-\x1f\x7f{escape._C1_AND_BEYOND}]")
"""The pattern `escape.text` used on every value before (compiled here, not lazily)."""


def _by_whole_pattern(value: str) -> str:
    return WHOLE.sub(escape._escape_match, value)


@given(st.text())
def test_text_agrees_with_the_whole_pattern(value: str) -> None:
    assert escape.text(value) == _by_whole_pattern(value)


@given(st.text(alphabet=st.characters(max_codepoint=0x7F)))
def test_text_agrees_with_the_whole_pattern_on_ascii(value: str) -> None:
    assert escape.text(value) == _by_whole_pattern(value)


def test_the_ascii_pattern_is_the_whole_pattern_cut_to_ascii() -> None:
    ascii_chars = [chr(code) for code in range(0x80)]
    assert [c for c in ascii_chars if WHOLE.match(c)] == [
        c for c in ascii_chars if escape._UNSAFE_ASCII.match(c)
    ]
    assert escape.text("a\x1b[2K\x7fb") == "a\\x1b[2K\\x7fb"
    assert escape.text("x\u202ey\u200b") == "x\\u202ey\\u200b"
