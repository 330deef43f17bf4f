"""An extension suffix in another case (W629, left67c): Linux's import system reads file names
as they are, so `demo/_ext.CPYTHON-313-x86_64-linux-gnu.so` alone in a `cp313-cp313-manylinux`
wheel is found by no Python the wheel installs on, and `import demo._ext` fails (it passed,
exit 0: the name was read as no ABI's, and its module was not judged). macOS's import system
matches names as written too (`FileFinder._fill_cache`: its file system ignores case, its
import does not; abi68: left67c read such a name as found there); Windows' lowers a name's
suffix first, and finds such a name as the ABI's. `test_version_bound_systems` holds these to
pip and the import system itself."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from wheel.test_installed_view import audit_code
from wheel.test_version_bound import PLATFORM, _w629, _wheel

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc builds the extensions")

UPPER = "demo/_ext.CPYTHON-313-x86_64-linux-gnu.so"


@pytest.mark.parametrize(
    "tag",
    [
        f"cp313-cp313-{PLATFORM}",
        "cp313-cp313-musllinux_1_2_x86_64",
        "cp313-cp313-android_21_arm64_v8a",  # a POSIX system k3diff reads no files' platform of
    ],
)
def test_an_upper_case_suffix_fails_under_linux_tags(tmp_path: Path, tag: str) -> None:
    wheel = _wheel(tmp_path, tag, UPPER)
    found = _w629(wheel)
    assert [path for path, _ in found] == [UPPER], found
    assert "'.CPYTHON-313-x86_64-linux-gnu.so'" in found[0][1], found
    # newuser68: said plainly, not "(a case no case-sensitive import finds)"
    assert (
        "named for '.CPYTHON-313-x86_64-linux-gnu.so' (its suffix not in lower case, which "
        "Python on Linux, macOS and other POSIX systems does not load) alone"
    ) in found[0][1], found
    assert "on CPython 3.13 'import demo._ext' finds no file of it" in found[0][1], found
    assert audit_code(wheel) == (1, {"W629"})


@pytest.mark.parametrize(
    "names",
    [
        ["demo/_ext.cpython-311-darwin.so", "demo/_ext.CPython-313-Darwin.so"],
        ["demo/_ext.cpython-311-darwin.so", "demo/_ext.cpython-313-darwin.SO"],
    ],
)
def test_a_suffix_in_another_case_is_found_by_none_on_macos(
    tmp_path: Path, names: list[str]
) -> None:
    """abi68: the other-case 3.13 file spared the module (left67c), and the wheel passed,
    exit 0, though macOS's 3.13 finds no file of it."""
    wheel = _wheel(tmp_path, "cp313-cp313-macosx_11_0_arm64", *names)
    found = _w629(wheel)
    assert sorted(path for path, _ in found) == sorted(names), found
    assert "on CPython 3.13 'import demo._ext' finds no file of it" in found[0][1], found
    assert audit_code(wheel) == (1, {"W629"})


def test_a_suffix_in_another_case_is_found_on_windows(tmp_path: Path) -> None:
    """The 3.11 file alone fails (3.13 finds none of it); the other-case 3.13 file beside it
    is what 3.13 finds there, `.PYD` too (before left67c, and for `.PYD` before abi68, it was
    not read as the ABI's, and the module failed)."""
    names = ["demo/_ext.cp311-win_amd64.pyd", "demo/_ext.CP313-WIN_AMD64.PYD"]
    tag = "cp313-cp313-win_amd64"
    assert [path for path, _ in _w629(_wheel(tmp_path / "a", tag, names[0]))] == names[:1]
    wheel = _wheel(tmp_path / "b", tag, *names)
    assert _w629(wheel) == []
    assert "W629" not in audit_code(wheel)[1]


def test_a_wheel_of_several_systems_reads_each_ones_suffixes_by_its_rule(
    tmp_path: Path,
) -> None:
    """Tags naming Linux and Windows: the upper-case `.PYD` is Windows' 3.13 file, the `.so`
    Linux's; tags naming Linux and macOS: the upper-case name is found on neither (abi68:
    before, tags of two kinds read suffixes as written, and the module passed, exit 0)."""
    both = f"cp313-cp313-{PLATFORM}.win_amd64"
    names = ["demo/_ext.cpython-313-x86_64-linux-gnu.so", "demo/_ext.CP313-WIN_AMD64.PYD"]
    assert _w629(_wheel(tmp_path / "a", both, *names)) == []
    wheel = _wheel(tmp_path / "b", f"cp313-cp313-{PLATFORM}.macosx_11_0_arm64", UPPER)
    found = _w629(wheel)
    assert [path for path, _ in found] == [UPPER], found
    assert "tags for darwin install it on CPython 3.13" in found[0][1], found
    assert "tags for x86_64-linux-gnu install it on CPython 3.13" in found[0][1], found
    assert audit_code(wheel) == (1, {"W629"})
