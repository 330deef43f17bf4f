"""`installable.parse_entry_points` reads `entry_points.txt` as an installed distribution's is
read (`importlib.metadata`), and a wheel without the file, or with a plain one
(`wheel.plainentrypoints`), costs no import of it."""

from __future__ import annotations

import os
import subprocess
import sys
from importlib.metadata import Distribution
from pathlib import Path

import pytest

from k3diff.wheel.installable import parse_entry_points
from k3diff.wheel.plainentrypoints import plain_entry_points

TEXTS = [
    "[console_scripts]\ndemo = demo.cli:main\n",
    "# comment\n\n[gui_scripts]\n  tool  =  demo.gui : run [extra]\n[other]\nx=y=z\n",
    "orphan = before:any_section\n[console_scripts]\nok = m:f\n",
    "",
    # plain (`plainentrypoints`): tabs, brackets stripped whole, empty names and values,
    # a comment inside a group, a line without `=` before any group, no final line break
    "\t[console_scripts]\t\n\ta\t=\tb:c\t\n#x\n[[g]]]\n=\n k = \n[]\nz=1",
    "not a group\n[ spaced group ]\n a = b [x, y] \n;c = d\n",
    # not plain: other line breaks (splitlines), non-ASCII, control characters
    "[console_scripts]\r\nwin = m:f\r\n[gui_scripts]\rold = m:g\r",
    "[console_scripts]\x0cff = m:f\x1cgs = m:g\x85nel = m:h\u2028ls = m:i\n",
    "[console_scripts]\ncaf\u00e9 = m:f\n\u00a0nbsp\u00a0=\u00a0m:g\u00a0\n",
    "[console_scripts]\nunit\x1f = m:f\x1f\n",
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


@pytest.mark.parametrize(
    ("text", "plain"),
    [
        ("[console_scripts]\ndemo = demo.cli:main\n", True),
        ("orphan without equals\n[g]\na=b\n", True),
        ("[g]\r\na=b\r\n", False),
        ("[g]\na=b\x0b\n", False),
        ("[g]\ncaf\u00e9=b\n", False),
        ("[g]\nno equals\n", False),  # the standard library's error is the finding
    ],
)
def test_only_a_plain_text_is_read_without_the_standard_library(text: str, plain: bool) -> None:
    assert (plain_entry_points(text) is not None) is plain


def test_a_plain_text_loads_no_importlib_metadata() -> None:
    code = (
        "import sys\n"
        "from k3diff.wheel.installable import parse_entry_points\n"
        "points = parse_entry_points('[console_scripts]\\ntorchrun = torch.distributed.run:main\\n')\n"
        "assert [(p.name, p.value, p.group) for p in points] == "
        "[('torchrun', 'torch.distributed.run:main', 'console_scripts')]\n"
        "assert 'importlib.metadata' not in sys.modules, 'loaded'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, env=_env())


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
