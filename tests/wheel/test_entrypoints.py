"""`entry_points.txt` read without `importlib.metadata` gives what `importlib.metadata` gives:
the same (group, name, value) triples in the same order, or the same error, on random texts
built from the characters the format cares about (brackets, `=`, `#`, every kind of blank and
line break `str.splitlines` knows) and on the hostile ones W616 reports."""

from __future__ import annotations

from importlib.metadata import Distribution
from os import PathLike
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from k3diff.wheel.entrypoints import parse_entry_points

PIECES = st.sampled_from(
    [
        "[", "]", "=", "#", ";", " ", "\t", "\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x1d",
        "\x1e", "\x85", "\u2028", "\u2029", "\u3000", "\xa0", "console_scripts", "gui_scripts",
        "demo", "demo:main", "a.b:c [x]", "é",
    ]
)  # fmt: skip
TEXTS = st.lists(PIECES, max_size=30).map("".join)


class _Text(Distribution):
    """An installed distribution whose only metadata file is this `entry_points.txt`."""

    def __init__(self, text: str) -> None:
        self._text = text

    def read_text(self, filename: str) -> str | None:
        return self._text if filename == "entry_points.txt" else None

    def locate_file(self, path: str | PathLike[str]) -> Any:
        raise NotImplementedError


def _standard(text: str) -> list[tuple[str, str, str]] | str:
    """importlib.metadata's parse (the one pip uses), or its error's type and words."""
    try:
        parsed = _Text(text).entry_points
        return [(point.group, point.name, point.value) for point in parsed]
    except Exception as exc:  # the error itself is compared
        return f"{type(exc).__name__}: {exc}"


def _ours(text: str) -> list[tuple[str, str, str]] | str:
    try:
        return [(point.group, point.name, point.value) for point in parse_entry_points(text)]
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"


@settings(max_examples=1500, deadline=None)
@given(TEXTS)
def test_random_texts_parse_as_the_standard_library_parses_them(text: str) -> None:
    assert _ours(text) == _standard(text)


@pytest.mark.parametrize(
    "text",
    [
        "[console_scripts]\ntorchrun = torch.distributed.run:main\n",
        "[console_scripts]\nno equals sign\n",
        "stray = before any group\n[gui_scripts]\n a = b = c \n",
        "[[nested]]\n x=y\n# comment\n; not a comment\n",
        "[]\n=\n",
        "",
    ],
)
def test_hand_written_texts(text: str) -> None:
    assert _ours(text) == _standard(text)


def test_an_absent_file_has_no_entry_points() -> None:
    assert parse_entry_points(None) == ()
