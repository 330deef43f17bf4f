"""`installable.parse_entry_points` reads `entry_points.txt` as an installed distribution's is
read (`importlib.metadata`), and a wheel without the file costs no import of it."""

from __future__ import annotations

from importlib.metadata import Distribution
from pathlib import Path

import pytest

from k3diff.wheel.installable import parse_entry_points

TEXTS = [
    "[console_scripts]\ndemo = demo.cli:main\n",
    "# comment\n\n[gui_scripts]\n  tool  =  demo.gui : run [extra]\n[other]\nx=y=z\n",
    "orphan = before:any_section\n[console_scripts]\nok = m:f\n",
    "",
]


@pytest.mark.parametrize("text", TEXTS)
def test_entry_points_are_those_of_an_installed_distribution(tmp_path: Path, text: str) -> None:
    (tmp_path / "entry_points.txt").write_text(text)
    installed = Distribution.at(tmp_path).entry_points
    parsed = parse_entry_points(text)
    assert [(e.name, e.value, e.group) for e in parsed] == [
        (e.name, e.value, e.group) for e in installed
    ]


def test_no_file_is_no_entry_point() -> None:
    assert tuple(parse_entry_points(None)) == ()


def test_a_line_without_equals_fails_as_the_standard_library_fails(tmp_path: Path) -> None:
    text = "[console_scripts]\nno equals sign\n"
    (tmp_path / "entry_points.txt").write_text(text)
    with pytest.raises((ValueError, TypeError)) as installed:
        list(Distribution.at(tmp_path).entry_points)
    with pytest.raises((ValueError, TypeError)) as parsed:
        parse_entry_points(text)
    assert (type(parsed.value), str(parsed.value)) == (type(installed.value), str(installed.value))
