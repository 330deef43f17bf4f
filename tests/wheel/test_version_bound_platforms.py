"""W629 reads a suffix's platform as the import system matches it (review68), held to pip 26
and CPython's import system (`wheel.importoracle`).

A CPython's suffix names its platform exactly as `configure` wrote it, in lower case
(`.cpython-313-x86_64-linux-gnu.so`), and Linux's and macOS's import systems match names as
written. abi68 read any platform it did not recognise as naming none, found everywhere: a
`manylinux` wheel whose module was `_ext.cpython-313-x86_64-Linux-gnu.so`, musl's
`-linux-musl` (which no glibc CPython lists), a platform-less `.cpython-313.so` (FreeBSD's), or
a macOS wheel's `-Darwin`, each passed both commands (exit 0) though pip installs the wheel on
CPython 3.13 and `import demo._ext` then fails. A musl system still finds `-linux-gnu` names
(CPython before 3.13 on musl wrote them), and a `ppc64` tag's CPython is `powerpc64-linux-gnu`
(abi68 failed its own name). CPython 3.13 on musl names its files `-linux-musl`
(`configure`, gh-95855), so a `cp313` musllinux wheel of glibc names fails (it passed)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from cli_support import run_k3diff

from wheel.importoracle import (
    LINUX,
    LINUX_313,
    MAC_313,
    WINDOWS_313,
    Target,
    installs_importable,
)
from wheel.rawwheel import wheel_file, write_wheel
from wheel.test_installed_view import audit_code, codes, wheels_json
from wheel.test_version_bound import _w629, _wheel

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc builds the extensions")

MAC = "cp313-cp313-macosx_11_0_arm64"
MUSL_313 = Target(
    "3.13",
    ("cp313",),
    "musllinux_1_2_x86_64",
    "linux",
    (".cpython-313-x86_64-linux-musl.so", ".abi3.so", ".so"),
)


@pytest.mark.parametrize(
    ("tag", "name", "target", "said"),
    [
        (
            f"cp313-cp313-{LINUX}",
            "demo/_ext.cpython-313-x86_64-Linux-gnu.so",
            LINUX_313,
            "(for x86_64-Linux-gnu, while its tags install it on x86_64-linux-gnu alone)",
        ),
        (
            f"cp313-cp313-{LINUX}",
            "demo/_ext.cpython-313-x86_64-linux-GNU.so",
            LINUX_313,
            "(for x86_64-linux-GNU, while its tags install it on x86_64-linux-gnu alone)",
        ),
        (
            f"cp313-cp313-{LINUX}",
            "demo/_ext.cpython-313-x86_64-linux-musl.so",
            LINUX_313,
            "(for x86_64-linux-musl, while its tags install it on x86_64-linux-gnu alone)",
        ),
        (
            f"cp313-cp313-{LINUX}",
            "demo/_ext.cpython-313.so",
            LINUX_313,
            "(for no platform, while its tags install it on x86_64-linux-gnu alone)",
        ),
        (
            f"cp313-cp313-{LINUX}",
            "demo/_ext.cpython-313-x86_64-banana.so",
            LINUX_313,
            "(for x86_64-banana, while its tags install it on x86_64-linux-gnu alone)",
        ),
        (
            MAC,
            "demo/_ext.cpython-313-Darwin.so",
            MAC_313,
            "(for Darwin, while its tags install it on darwin alone)",
        ),
        (
            "cp313-cp313-musllinux_1_2_x86_64",
            "demo/_ext.cpython-313-x86_64-linux-gnu.so",
            MUSL_313,
            "alone (as -linux-gnu, which CPython on musl names -linux-musl from 3.13), while",
        ),
    ],
)
def test_a_platform_the_import_system_does_not_match_fails(
    tmp_path: Path, tag: str, name: str, target: Target, said: str
) -> None:
    """Failed on base68 and on abi68: exit 0, no W629."""
    wheel = _wheel(tmp_path, tag, name)
    assert installs_importable(wheel, target, "demo", "_ext") is False  # installed, not found
    found = _w629(wheel)
    assert [path for path, _ in found] == [name], found
    assert said in found[0][1], found
    assert "on CPython 3.13 'import demo._ext' finds no file of it" in found[0][1], found
    base = _wheel(tmp_path / "b", tag, "demo/_ext.so")
    exit_code, report = wheels_json(base, wheel, "--allow-native-changes")
    assert exit_code == 1 and "W629" in codes(report)


@pytest.mark.parametrize(
    ("tag", "name"),
    [
        (f"cp313-cp313-{LINUX}", "demo/_ext.cpython-313-x86_64-linux-gnu.so"),
        (MAC, "demo/_ext.cpython-313-darwin.so"),
        ("cp313-cp313-musllinux_1_2_x86_64", "demo/_ext.cpython-313-x86_64-linux-musl.so"),
        ("cp312-cp312-musllinux_1_2_x86_64", "demo/_ext.cpython-312-x86_64-linux-gnu.so"),
        ("cp313-cp313-linux_x86_64", "demo/_ext.cpython-313-x86_64-linux-musl.so"),
        ("cp313-cp313-manylinux_2_31_armv7l", "demo/_ext.cpython-313-arm-linux-gnueabihf.so"),
        ("cp313-cp313-manylinux2014_ppc64", "demo/_ext.cpython-313-powerpc64-linux-gnu.so"),
        ("cp34-cp34m-manylinux1_x86_64", "demo/_ext.cpython-34m.so"),
    ],
)
def test_the_platform_a_systems_cpython_writes_passes(tmp_path: Path, tag: str, name: str) -> None:
    """The names each system's CPython writes (the ppc64 one failed on abi68)."""
    assert _w629(_wheel(tmp_path, tag, name)) == []


def test_a_windows_platform_in_another_case_is_named_as_windows_reads_it(
    tmp_path: Path,
) -> None:
    """Windows lowers a suffix before it matches it: `-WIN32` is win32's (abi68 said
    "(for , while ...)")."""
    name = "demo/_ext.cp313-WIN32.pyd"
    found = _w629(_wheel(tmp_path, "cp313-cp313-win_amd64", name))
    assert [path for path, _ in found] == [name], found
    assert "(for win32, while its tags install it on win_amd64 alone)" in found[0][1], found


LINUX_AARCH64_313 = Target(
    "3.13",
    ("cp313",),
    "manylinux_2_17_aarch64",
    "linux",
    (".cpython-313-aarch64-linux-gnu.so", ".abi3.so", ".so"),
)
GIL = "demo/_ext.cpython-313-x86_64-linux-gnu.so"
NOGIL = "demo/_ext.cpython-313t-x86_64-linux-gnu.so"
ANY_CASES = [
    # (the module's files, which of Linux x86_64, Linux aarch64, macOS, Windows 3.13 import it)
    ([GIL, NOGIL], [True, False, False, False]),
    (["demo/_ext.cp313-win_amd64.pyd", "demo/_ext.cp313t-win_amd64.pyd"], [False] * 3 + [True]),
    (
        [GIL, NOGIL, "demo/_ext.cpython-313-darwin.so", "demo/_ext.cpython-313t-darwin.so"],
        [True, False, True, False],
    ),
]


@pytest.mark.parametrize(("names", "importing"), ANY_CASES)
def test_an_any_tag_is_judged_on_every_system(
    tmp_path: Path, names: list[str], importing: list[bool]
) -> None:
    """pip installs a `cp313-none-any` wheel on CPython 3.13 (and 3.13t) everywhere: a module
    whose files are one platform's builds is found on that platform alone. Failed on base68
    and on abi68 (exit 0), which read the `any` tag's files as found everywhere."""
    wheel = _wheel(tmp_path, "cp313-none-any", *names)
    targets = [LINUX_313, LINUX_AARCH64_313, MAC_313, WINDOWS_313]
    assert [installs_importable(wheel, t, "demo", "_ext") for t in targets] == importing
    found = _w629(wheel)
    assert sorted(path for path, _ in found) == sorted(names), found
    assert audit_code(wheel) == (1, {"W629"})
    base = _wheel(tmp_path / "b", "cp313-none-any", "demo/_ext.so", "demo/_ext.pyd")
    exit_code, report = wheels_json(base, wheel, "--allow-native-changes")
    assert exit_code == 1 and "W629" in codes(report)


@pytest.mark.parametrize("tag", ["cp313-cp313-any", "cp313-abi3-any", "cp313.cp314-cp313-any"])
def test_a_tag_pairing_an_abi_with_any_installs_nowhere(tmp_path: Path, tag: str) -> None:
    """packaging lists `any` beside the ABI `none` alone, so pip refuses such a wheel on every
    Python (W616). Failed on base68 and on abi68: exit 0, though pip installs it nowhere."""
    wheel = _wheel(tmp_path, tag, GIL)
    targets = [LINUX_313, MAC_313, WINDOWS_313]
    assert [installs_importable(wheel, t, "demo", "_ext") for t in targets] == [None] * 3
    exit_code, found = audit_code(wheel)
    assert exit_code == 1 and "W616" in found, found
    said = run_k3diff("audit", wheel, "--format", "json").stdout
    assert "install it on no Python" in said and "W629" not in said
    base = _wheel(tmp_path / "b", "cp313-none-any", "demo/_ext.so")
    exit_code, report = wheels_json(base, wheel, "--allow-native-changes")
    assert exit_code == 1 and "W616" in codes(report)


def test_tags_naming_more_systems_than_judged_fail_and_stay_bounded(tmp_path: Path) -> None:
    """A WHEEL file's Tag lines (read where the filename names none) may name 4,096 made-up
    architectures: on abi68 each extension was judged on each and its finding named them all
    (4,000 systems and 3,000 modules: 428 s, 6.2 GB). W629 judges the first 64 and fails the
    wheel for the rest, never a pass; base68 said nothing of them."""
    platforms = ".".join(f"manylinux_2_17_a{i:03d}" for i in range(400))
    names = [f"demo/m{i}.cpython-312-x86_64-linux-gnu.so" for i in range(5)]
    wheel = write_wheel(
        tmp_path,
        "demo",
        "1.0",
        {"demo/__init__.py": b"", **{name: b"\x7fELF" for name in names}},
        filename="demo.whl",
        wheel=wheel_file(f"cp313-cp313-{platforms}", purelib=False),
    )
    found = _w629(wheel)
    assert audit_code(wheel)[0] == 1
    over = [why for _, why in found if why.startswith("its tags name 400 systems")]
    assert over == [
        "its tags name 400 systems (a000-linux-gnu, a001-linux-gnu, a002-linux-gnu, ...), more "
        "than W629 judges (64): on the 336 past them no extension was judged, so a module no "
        "Python there imports is not ruled out"
    ], found
    judged = [why for _, why in found if why not in over]
    assert len(judged) == len(names), found
    assert all(why.count("while its tags for") == 64 for why in judged), judged[0][:400]
