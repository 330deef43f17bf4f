"""An extension suffix in another case (W629, left67c): Linux's import system reads file names
as they are, so `demo/_ext.CPYTHON-313-x86_64-linux-gnu.so` alone in a `cp313-cp313-manylinux`
wheel is found by no Python the wheel installs on, and `import demo._ext` fails (it passed,
exit 0: the name was read as no ABI's, and its module was not judged). macOS's and Windows'
file systems ignore case, and their import systems find such a name as the ABI's."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from wheel.test_installed_view import audit_code
from wheel.test_version_bound import PLATFORM, _w629, _wheel

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc builds the extensions")

UPPER = "demo/_ext.CPYTHON-313-x86_64-linux-gnu.so"


@pytest.mark.parametrize("tag", [f"cp313-cp313-{PLATFORM}", "cp313-cp313-musllinux_1_2_x86_64"])
def test_an_upper_case_suffix_fails_under_linux_tags(tmp_path: Path, tag: str) -> None:
    wheel = _wheel(tmp_path, tag, UPPER)
    found = _w629(wheel)
    assert [path for path, _ in found] == [UPPER], found
    assert "'.CPYTHON-313-x86_64-linux-gnu.so'" in found[0][1], found
    assert "on CPython 3.13 'import demo._ext' finds no file of it" in found[0][1], found
    assert audit_code(wheel) == (1, {"W629"})


@pytest.mark.parametrize(
    ("tag", "names"),
    [
        (
            "cp313-cp313-macosx_11_0_arm64",
            ["demo/_ext.cpython-311-darwin.so", "demo/_ext.CPython-313-Darwin.so"],
        ),
        (
            "cp313-cp313-win_amd64",
            ["demo/_ext.cp311-win_amd64.pyd", "demo/_ext.CP313-WIN_AMD64.pyd"],
        ),
    ],
)
def test_a_suffix_in_another_case_is_found_where_case_is_ignored(
    tmp_path: Path, tag: str, names: list[str]
) -> None:
    """The 3.11 file alone failed (3.13 finds none of it); the other-case 3.13 file beside it
    is what 3.13 finds there (before, it was read as no ABI's, and the module failed)."""
    assert [path for path, _ in _w629(_wheel(tmp_path / "a", tag, names[0]))] == names[:1]
    wheel = _wheel(tmp_path / "b", tag, *names)
    assert _w629(wheel) == []
    assert "W629" not in audit_code(wheel)[1]


def test_a_wheel_of_both_kinds_reads_suffixes_as_written(tmp_path: Path) -> None:
    """Tags naming Linux and macOS: the upper-case name is read as no ABI's, as before."""
    tags = f"cp313-cp313-{PLATFORM}.macosx_11_0_arm64"
    assert _w629(_wheel(tmp_path, tags, UPPER)) == []
