"""W629 on each system a wheel's tags name, held to pip 26 and CPython's import system
(`wheel.importoracle`): the wheel fails exactly where pip installs it for some Python whose
import system then finds no file of the module (abi68; each case marked `before` passed both
commands, exit 0, or failed a wheel every such Python imports).

* A suffix's case: Linux's and macOS's import systems match a name as written (macOS's file
  system ignores case, its import system does not: `FileFinder._fill_cache`), Windows' lowers
  its suffix. So `_ext.cpython-313-x86_64-linux-gnu.SO` is found by no Linux Python (it was not
  read as an extension at all), nor `_ext.CPython-313-Darwin.so` by macOS's (left67c read it
  as found); `_ext.CP313-WIN_AMD64.PYD` is 3.13's on Windows.
* Windows' debug build looks for `_d.pyd` (`dynload_win.c`): beside `_ext.cp312-win_amd64.pyd`,
  `_ext_d.pyd` is module `_ext`'s, for debug builds alone, so a release 3.13 that pip installs
  a `cp313-cp313` wheel on finds none of it (it was read as a module `_ext_d` of a bare `.pyd`,
  not judged). Alone it may be module `_ext_d`'s too (`test_version_bound_debug_names`).
* A tag set naming several systems (`manylinux_2_17_x86_64.win_amd64`) is judged on each: a
  module whose file is a `.so` alone is found by no Python on Windows, and the reverse.
* A debug build's names: since 3.8 a debug CPython on Linux and macOS also finds the release
  build's names (`ALT_SOABI`, bpo-36722), so a `cp313-cp313d` wheel holding the release name
  imports there (it failed); on Windows it does not. A `cpython-313d` name under a plain
  `cp313` tag is found by the debug build alone: alone, it fails on the release 3.13 pip also
  installs the wheel on; beside the release name, both find theirs.
* A `-none-any` wheel: pip installs it on every system, Windows and macOS included, so a module
  whose files all name one platform (`x86_64-linux-gnu`), or are `.so` files alone, is found by
  none there (left68: `any` was one system whose every file was read as found, and a
  `cp313-none-any` wheel of the 3.13 and 3.13t Linux names passed). An interpreter's own ABI
  with `any` (`cp313-cp313-any`) is one pip installs nowhere: W616."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from cli_support import run_k3diff

from wheel.importoracle import (
    LINUX,
    LINUX_313,
    LINUX_313D,
    MAC_313,
    WINDOWS_313,
    WINDOWS_313D,
    Target,
    installs_importable,
)
from wheel.test_installed_view import audit_code, codes, wheels_json
from wheel.test_version_bound import _named, _w629, _wheel

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc builds the extensions")

BOTH = f"cp313-cp313-{LINUX}.win_amd64"
MAC = "cp313-cp313-macosx_11_0_arm64"
WINDOWS = "cp313-cp313-win_amd64"
ANY = "cp313-none-any"

CASES = [
    # (tag, the module's files, the Pythons pip installs the wheel for, which of them import)
    (f"cp313-cp313-{LINUX}", [_named("313").replace(".so", ".SO")], [LINUX_313], []),  # before
    (MAC, ["demo/_ext.cpython-313-darwin.SO"], [MAC_313], []),  # before
    (MAC, ["demo/_ext.CPython-313-Darwin.so"], [MAC_313], []),  # before (left67c)
    (WINDOWS, ["demo/_ext.CP313-WIN_AMD64.PYD"], [WINDOWS_313], [WINDOWS_313]),
    (WINDOWS, [_named("313").replace(".so", ".SO")], [WINDOWS_313], []),  # before
    (WINDOWS, ["demo/_ext.cp312-win_amd64.pyd", "demo/_ext_d.pyd"], [WINDOWS_313], []),  # before
    ("py3-none-win_amd64", ["demo/_ext.cp312-win_amd64.pyd", "demo/_ext_d.pyd"], [WINDOWS_313], []),
    ("cp313-cp313d-win_amd64", ["demo/_ext_d.pyd"], [WINDOWS_313D], [WINDOWS_313D]),
    (
        WINDOWS,
        ["demo/_ext.cp313-win_amd64.pyd", "demo/_ext_d.pyd"],
        [WINDOWS_313],
        [WINDOWS_313],
    ),
    (BOTH, [_named("313")], [LINUX_313, WINDOWS_313], [LINUX_313]),  # before
    (BOTH, ["demo/_ext.cp313-win_amd64.pyd"], [LINUX_313, WINDOWS_313], [WINDOWS_313]),  # before
    (
        BOTH,
        [_named("313"), "demo/_ext.cp313-win_amd64.pyd"],
        [LINUX_313, WINDOWS_313],
        [LINUX_313, WINDOWS_313],
    ),
    (f"cp313-cp313d-{LINUX}", [_named("313")], [LINUX_313D], [LINUX_313D]),  # before: failed
    ("cp313-cp313d-win_amd64", ["demo/_ext.cp313-win_amd64.pyd"], [WINDOWS_313D], []),
    (f"cp313-cp313-{LINUX}", [_named("313d")], [LINUX_313], []),
    (f"cp313-cp313-{LINUX}", [_named("313"), _named("313d")], [LINUX_313], [LINUX_313]),
    (
        ANY,
        [_named("313"), _named("313t")],
        [LINUX_313, MAC_313, WINDOWS_313],
        [LINUX_313],
    ),  # before
    (ANY, ["demo/_ext.abi3.so"], [LINUX_313, MAC_313, WINDOWS_313], [LINUX_313, MAC_313]),
    (
        ANY,
        ["demo/_ext.cpython-313-darwin.so", "demo/_ext.cp313-win_amd64.pyd"],
        [LINUX_313, MAC_313, WINDOWS_313],
        [MAC_313, WINDOWS_313],
    ),
    ("py3-none-any", [_named("313")], [LINUX_313, MAC_313, WINDOWS_313], [LINUX_313]),
]


@pytest.mark.parametrize(("tag", "names", "targets", "importing"), CASES)
def test_w629_fails_where_pip_installs_a_module_no_import_finds(
    tmp_path: Path, tag: str, names: list[str], targets: list[Target], importing: list[Target]
) -> None:
    wheel = _wheel(tmp_path, tag, *names)
    imports = [installs_importable(wheel, target, "demo", "_ext") for target in targets]
    assert imports == [target in importing for target in targets]  # pip installs it on each
    found = _w629(wheel)
    if all(imports):
        assert found == []
        assert "W629" not in audit_code(wheel)[1]
        return
    assert sorted(path for path, _ in found) == sorted(names), found
    assert audit_code(wheel) == (1, {"W629"})
    base = _wheel(tmp_path / "b", tag, "demo/_ext.so", "demo/_ext.pyd")
    exit_code, report = wheels_json(base, wheel, "--allow-native-changes")
    assert exit_code == 1 and "W629" in codes(report)


@pytest.mark.parametrize(
    ("names", "said"),
    [
        (
            [_named("313")],
            "named for CPython 3.13 alone (as .so, which no Python on Windows loads), while its "
            "tags for win_amd64 install it on CPython 3.13: on CPython 3.13 'import demo._ext' "
            "finds no file of it",
        ),
        (
            ["demo/_ext.cp313-win_amd64.pyd"],
            "named for CPython 3.13 alone (as .pyd, which Python loads on Windows alone), while "
            "its tags for x86_64-linux-gnu install it on CPython 3.13: on CPython 3.13 'import",
        ),
    ],
)
def test_the_finding_names_the_system_where_the_tags_name_several(
    tmp_path: Path, names: list[str], said: str
) -> None:
    found = _w629(_wheel(tmp_path, BOTH, *names))
    assert [path for path, _ in found] == names and said in found[0][1], found


def test_a_debug_builds_untagged_name_is_said_as_one(tmp_path: Path) -> None:
    found = _w629(_wheel(tmp_path, WINDOWS, "demo/_ext.cp312-win_amd64.pyd", "demo/_ext_d.pyd"))
    said = (
        "named for CPython 3.12, debug CPython on Windows ('_d.pyd') alone, while its tags "
        "install it on CPython 3.13: on CPython 3.13 'import demo._ext' finds no file of it"
    )
    assert found == [("demo/_ext.cp312-win_amd64.pyd", said), ("demo/_ext_d.pyd", said)]


@pytest.mark.parametrize("tag", ["cp313-cp313-any", "cp313-abi3-any"])
def test_a_wheel_pip_installs_nowhere_fails_as_such(tmp_path: Path, tag: str) -> None:
    """packaging lists an interpreter's own ABI and the stable ABI with a platform alone, so
    pip refuses these everywhere (left68: read as CPython 3.13's, W629 judged them, and a
    `cp313-cp313-any` wheel of the Linux name alone passed both commands, exit 0)."""
    wheel = _wheel(tmp_path, tag, _named("313"))
    targets = [LINUX_313, MAC_313, WINDOWS_313]
    assert [installs_importable(wheel, target, "demo", "_ext") for target in targets] == [
        None
    ] * len(targets)
    exit_code, found = audit_code(wheel)
    assert exit_code == 1 and "W616" in found and "W629" not in found, found
    report = json.loads(run_k3diff("audit", wheel, "--format", "json").stdout)
    [refusal] = [f for a in report["artifacts"] for f in a["findings"] if f["code"] == "W616"]
    assert refusal["path"] == "" and "install it on no Python" in refusal["detail"], refusal
    base = _wheel(tmp_path / "b", "cp313-none-any", _named("313"), "demo/_ext.so", "demo/_ext.pyd")
    exit_code, report = wheels_json(base, wheel, "--allow-native-changes")
    assert exit_code == 1 and "W616" in codes(report)


def test_an_any_wheel_names_the_platform_its_files_are_for(tmp_path: Path) -> None:
    found = _w629(_wheel(tmp_path, ANY, _named("313"), _named("313t")))
    assert [path for path, _ in found] == [_named("313"), _named("313t")], found
    assert (
        "(as .so, which no Python on Windows loads), while its tags for Windows (any) install it on "
        "CPython 3.13, free-threaded CPython 3.13: on CPython 3.13, free-threaded CPython 3.13 "
        "'import demo._ext' finds no file of it" in found[0][1]
    ), found
    assert (
        "(for x86_64-linux-gnu), while its tags for Linux and macOS (any) install it on"
        in found[0][1]
    ), found
