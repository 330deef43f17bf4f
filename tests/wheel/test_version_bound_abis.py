"""W629 reads a suffix's platform as the one ABI it names (w629c), held to pip 26 and CPython's
import system (`wheel.importoracle`).

* The libc part of a Linux triplet is part of its ABI (`Misc/platform_triplet.c`): an x32
  build's `-linux-gnux32`, ARM's soft-float `-linux-gnueabi` and musl's `-linux-muslx32` are
  no CPython's of the `x86_64`, `armv7l` tags (glibc's `x86_64-linux-gnu`, ARM's hard-float
  `arm-linux-gnueabihf`, musl's `x86_64-linux-musl`). On the code before, the libc was read by
  family, so such a name counted as the tag's own, and a wheel no Python it installs on imports
  passed (exit 0).
* Android and iOS (CPython 3.13, PEP 738 and PEP 730) were one system whose every file was read
  as found: a Linux build's name under an Android tag, a simulator's under a device's, passed.
  Android's SOABI names its triplet (`aarch64-linux-android` for `android_21_arm64_v8a`),
  iOS's its SDK alone (`iphoneos`, `iphonesimulator`, either architecture).
* MSYS2's MinGW CPython (`mingw_x86_64_ucrt_gnu`) is a Windows build (`dynload_win.c`) whose
  tagged suffix names that platform (`.cp312-mingw_x86_64_ucrt_gnu.pyd`): such a name was read
  as no ABI's, so its module was not judged and a wheel of another version's passed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from wheel.importoracle import LINUX_313, Target, installs_importable
from wheel.test_installed_view import audit_code, codes, wheels_json
from wheel.test_version_bound import _w629, _wheel

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc builds the extensions")

ARM = "manylinux_2_31_armv7l"
ARM_313 = Target(
    "3.13", ("cp313",), ARM, "linux", (".cpython-313-arm-linux-gnueabihf.so", ".abi3.so", ".so")
)
MUSL_313 = Target(
    "3.13",
    ("cp313",),
    "musllinux_1_2_x86_64",
    "linux",
    (".cpython-313-x86_64-linux-musl.so", ".abi3.so", ".so"),
)
MUSL_ARM_312 = Target(
    "3.12",
    ("cp312",),
    "musllinux_1_2_armv7l",
    "linux",
    (".cpython-312-arm-linux-musleabihf.so", ".cpython-312-arm-linux-gnueabihf.so", ".abi3.so",
     ".so"),
)  # fmt: skip
"""Before 3.13 a musl CPython may name its files by the glibc triplet (`System.until`); this
target lists both, so that the oracle checks pip's tag choice alone there."""
PI_311 = Target(
    "3.11",
    ("cp311",),
    "linux_armv7l",
    "linux",
    (".cpython-311-arm-linux-gnueabihf.so", ".abi3.so", ".so"),
)
ANDROID = "android_21_arm64_v8a"
ANDROID_313 = Target(
    "3.13",
    ("cp313",),
    ANDROID,
    "android",
    (".cpython-313-aarch64-linux-android.so", ".abi3.so", ".so"),
)
IOS = "ios_13_0_arm64_iphoneos"
IOS_313 = Target("3.13", ("cp313",), IOS, "ios", (".cpython-313-iphoneos.so", ".abi3.so", ".so"))
MINGW = "mingw_x86_64_ucrt_gnu"
MINGW_312 = Target("3.12", ("cp312",), MINGW, "win32", (".cp312-mingw_x86_64_ucrt_gnu.pyd", ".pyd"))


@pytest.mark.parametrize(
    ("platform", "name", "target", "said"),
    [
        (
            "manylinux_2_17_x86_64",
            "demo/_ext.cpython-313-x86_64-linux-gnux32.so",
            LINUX_313,
            "(for x86_64-linux-gnux32, while its tags install it on x86_64-linux-gnu alone)",
        ),
        (
            ARM,
            "demo/_ext.cpython-313-arm-linux-gnueabi.so",
            ARM_313,
            "(for arm-linux-gnueabi, while its tags install it on arm-linux-gnueabihf alone)",
        ),
        (
            "musllinux_1_2_x86_64",
            "demo/_ext.cpython-313-x86_64-linux-muslx32.so",
            MUSL_313,
            "(for x86_64-linux-muslx32, while its tags install it on x86_64-linux-musl alone)",
        ),
        (
            ANDROID,
            "demo/_ext.cpython-313-x86_64-linux-gnu.so",
            ANDROID_313,
            "(for x86_64-linux-gnu, while its tags install it on aarch64-linux-android alone)",
        ),
        (
            ANDROID,
            "demo/_ext.cpython-313-x86_64-linux-android.so",
            ANDROID_313,
            "(for x86_64-linux-android, while its tags install it on aarch64-linux-android alone)",
        ),
        (
            IOS,
            "demo/_ext.cpython-313-iphonesimulator.so",
            IOS_313,
            "(for iphonesimulator, while its tags install it on iphoneos alone)",
        ),
        (
            IOS,
            "demo/_ext.cpython-313-darwin.so",
            IOS_313,
            "(for darwin, while its tags install it on iphoneos alone)",
        ),
    ],
)
def test_a_name_of_another_abi_than_the_tags_fails(
    tmp_path: Path, platform: str, name: str, target: Target, said: str
) -> None:
    """Passed on the code before (exit 0): pip installs the wheel, the import finds nothing."""
    wheel = _wheel(tmp_path, f"cp313-cp313-{platform}", name)
    assert installs_importable(wheel, target, "demo", "_ext") is False
    found = _w629(wheel)
    assert [path for path, _ in found] == [name], found
    assert said in found[0][1], found
    assert "on CPython 3.13 'import demo._ext' finds no file of it" in found[0][1], found
    exit_code, said_codes = audit_code(wheel)  # A125 too on ARM: the test's ELF is this host's
    assert exit_code == 1 and "W629" in said_codes
    base = _wheel(tmp_path / "b", f"cp313-cp313-{platform}", "demo/_ext.so")
    exit_code, report = wheels_json(base, wheel, "--allow-native-changes")
    assert exit_code == 1 and "W629" in codes(report)


def test_a_mingw_name_of_another_version_fails(tmp_path: Path) -> None:
    """A `cp312` MSYS2 wheel whose module is 3.11's MinGW build: MSYS2's 3.12 finds
    `.cp312-mingw_x86_64_ucrt_gnu.pyd` and `.pyd` alone (passed, exit 0: not judged)."""
    name = "demo/_ext.cp311-mingw_x86_64_ucrt_gnu.pyd"
    wheel = _wheel(tmp_path, f"cp312-cp312-{MINGW}", name)
    assert installs_importable(wheel, MINGW_312, "demo", "_ext") is False
    found = _w629(wheel)
    assert [path for path, _ in found] == [name], found
    assert (
        "named for CPython 3.11 alone, while its tags install it on CPython 3.12: on CPython "
        "3.12 'import demo._ext' finds no file of it"
    ) in found[0][1], found
    assert audit_code(wheel) == (1, {"A141", "W629"})  # A141: PyPI refuses the tag (hunt80)


def test_an_msvc_name_is_no_mingw_builds(tmp_path: Path) -> None:
    """MSYS2's CPython lists its own platform's tagged suffix, not MSVC's `win_amd64`."""
    name = "demo/_ext.cp312-win_amd64.pyd"
    wheel = _wheel(tmp_path, f"cp312-cp312-{MINGW}", name)
    assert installs_importable(wheel, MINGW_312, "demo", "_ext") is False
    found = _w629(wheel)
    assert (
        "(for win_amd64, while its tags install it on mingw_x86_64_ucrt_gnu alone)" in (found[0][1])
    ), found


@pytest.mark.parametrize(
    ("tag", "names", "target"),
    [
        (f"cp313-cp313-{ARM}", ["demo/_ext.cpython-313-arm-linux-gnueabihf.so"], ARM_313),
        # piwheels' tags and names (either libc under `linux_`).
        ("cp311-cp311-linux_armv7l", ["demo/_ext.cpython-311-arm-linux-gnueabihf.so"], PI_311),
        (
            "cp312-cp312-musllinux_1_2_armv7l",
            ["demo/_ext.cpython-312-arm-linux-gnueabihf.so"],
            MUSL_ARM_312,
        ),
        (f"cp313-cp313-{ANDROID}", ["demo/_ext.cpython-313-aarch64-linux-android.so"], ANDROID_313),
        (f"cp313-cp313-{IOS}", ["demo/_ext.cpython-313-iphoneos.so"], IOS_313),
        (f"cp313-abi3-{IOS}", ["demo/_ext.abi3.so"], IOS_313),
        (f"cp312-cp312-{MINGW}", ["demo/_ext.cp312-mingw_x86_64_ucrt_gnu.pyd"], MINGW_312),
        (f"cp312-cp312-{MINGW}", ["demo/_ext.CP312-MINGW_X86_64_UCRT_GNU.PYD"], MINGW_312),
        (
            f"cp312-cp312-{MINGW}",
            ["demo/_ext.cp311-mingw_x86_64_ucrt_gnu.pyd", "demo/_ext.pyd"],
            MINGW_312,
        ),
    ],
)
def test_the_name_each_systems_cpython_writes_passes(
    tmp_path: Path, tag: str, names: list[str], target: Target
) -> None:
    wheel = _wheel(tmp_path, tag, *names)
    assert installs_importable(wheel, target, "demo", "_ext") is True
    assert _w629(wheel) == []
