"""`escape.terminal`'s ASCII fast path passes exactly what its regular expression passes."""

from __future__ import annotations

import random

from k3diff import escape


def _by_regex(value: str) -> str:
    return escape._DRIVES_A_TERMINAL.sub(escape._escape_match, value)


def test_fast_path_agrees_with_the_regex_on_ascii() -> None:
    alphabet = ["a", "{", "\x7f", "\t", "\n", "\r", "\r\n", "\x1b", "\x00", "\x0b", " "]
    rng = random.Random(41)
    values = ["", "\r", "\n", "\r\n", "\n\r", "x\r", "\rx", "x\r\n\r", "\x7f\t\n"]
    values += [
        "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 12))) for _ in range(3000)
    ]
    for value in values:
        assert escape.terminal(value) == _by_regex(value), repr(value)
        if escape._plain_ascii(value):
            assert _by_regex(value) == value, repr(value)


def test_non_ascii_still_goes_through_the_regex() -> None:
    assert escape.terminal("é\u202e\x1b\r\n") == "é\\u202e\\x1b\r\n"
    assert not escape._plain_ascii("é")
