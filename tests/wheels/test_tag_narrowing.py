"""A patch whose tags install on fewer systems than the base's fails (W630, waivable).

pip installs a wheel on a system when one of its filename's tags is among the tags packaging's
`sys_tags` lists there. A patch tagged `cp311-cp311` where the base was `cp39-abi3`, or
`manylinux_2_34` where it was `manylinux_2_17`, no longer installs where the base did; before
W630 this was the informational W301 "wheel metadata changed" and `k3diff wheels` exited 0.
The expected systems below are worked out by hand from packaging's rules (a glibc 2.X system
takes `manylinux_2_Y` for Y <= X, `manylinux2014` is 2.17, `manylinux1` 2.5; macOS 14 takes
`macosx_11_0` to `macosx_14_0`; `cp39-abi3` installs on CPython 3.9 and every later 3.x), and
held to packaging itself where a test can ask it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff
from packaging.tags import compatible_tags, cpython_tags, ios_platforms, mac_platforms
from wheel.rawwheel import metadata, write_wheel

from wheels.wheelset_support import write

FILES = {"demo/__init__.py": b"VALUE = 1\n"}


def _pair(tmp_path: Path, base_tag: str, patch_tag: str) -> tuple[Path, Path]:
    base = write_wheel(tmp_path / "base", "demo", "1.0", FILES, tag=base_tag)
    patch = write_wheel(tmp_path / "patch", "demo", "1.1", FILES, tag=patch_tag)
    return base, patch


def _wheels(*args: str | Path) -> tuple[int, dict[str, Any]]:
    result = run_k3diff("wheels", *args, "--format", "json")
    assert result.exit_code in (0, 1), result.stderr
    return result.exit_code, json.loads(result.stdout)


def _w630(report: dict[str, Any]) -> list[str]:
    return [f["detail"] for f in report["findings"] if f["code"] == "W630"]


@pytest.mark.parametrize(
    ("base_tag", "patch_tag", "dropped"),
    [
        # abi3 for 3.9+ rebuilt for 3.11 alone: 3.9, 3.10 and 3.12 on are lost, on every
        # glibc from 2.17 (the newest either side names, so every later one too).
        (
            "cp39-abi3-manylinux_2_17_x86_64",
            "cp311-cp311-manylinux_2_17_x86_64",
            "CPython 3.9-3.10, 3.12+ on glibc 2.17+ x86_64",
        ),
        # glibc raised: systems of glibc 2.17 to 2.33 take the base and not the patch.
        (
            "cp311-cp311-manylinux_2_17_x86_64",
            "cp311-cp311-manylinux_2_34_x86_64",
            "CPython 3.11 on glibc 2.17-2.33 x86_64",
        ),
        (
            "cp311-cp311-manylinux1_x86_64",
            "cp311-cp311-manylinux2014_x86_64",
            "CPython 3.11 on glibc 2.5-2.16 x86_64",
        ),
        (
            "cp311-cp311-macosx_11_0_arm64",
            "cp311-cp311-macosx_14_0_arm64",
            "CPython 3.11 on macOS 11-13 arm64",
        ),
        (
            "cp311-cp311-musllinux_1_1_x86_64",
            "cp311-cp311-musllinux_1_2_x86_64",
            "CPython 3.11 on musl 1.1 x86_64",
        ),
        (
            "py3-none-any",
            "py3-none-linux_x86_64",
            "CPython 3.0+, free-threaded CPython 3.13+, GraalPy 3.10-3.12, PyPy 3.6-3.11 on "
            "platforms no tag names "
            "(the base's 'any')",
        ),
        # One platform of a compressed set dropped: the other two stay.
        (
            "cp311-cp311-manylinux_2_17_x86_64.manylinux_2_17_aarch64.win_amd64",
            "cp311-cp311-manylinux_2_17_x86_64.win_amd64",
            "CPython 3.11 on glibc 2.17+ aarch64",
        ),
        # `linux_x86_64` installs on every x86_64 Linux; manylinux_2_17 on glibc 2.17+ alone.
        (
            "cp311-cp311-linux_x86_64",
            "cp311-cp311-manylinux_2_17_x86_64",
            "CPython 3.11 on linux_x86_64 alone (a Linux of neither glibc nor musl); "
            "CPython 3.11 on glibc 2.5-2.16 x86_64; CPython 3.11 on musl 1.0+ x86_64",
        ),
        (
            "cp313-cp313t-manylinux_2_17_x86_64",
            "cp313-cp313-manylinux_2_17_x86_64",
            "free-threaded CPython 3.13 on glibc 2.17+ x86_64",
        ),
        # universal2 narrowed to x86_64: every Apple Silicon Mac (macOS 11 on) is lost, though
        # neither side names a macOS past 10.9 (review66b: before, only 10.x was checked).
        (
            "cp312-cp312-macosx_10_9_universal2",
            "cp312-cp312-macosx_10_9_x86_64",
            "CPython 3.12 on macOS 11+ arm64",
        ),
        # `py3-none-PLATFORM` installs on free-threaded CPython and PyPy too, `cp39-abi3` on
        # neither (review66b: before, a `py3` base stood for default CPython builds alone).
        (
            "py39-none-manylinux_2_17_x86_64",
            "cp39-abi3-manylinux_2_17_x86_64",
            "free-threaded CPython 3.13+, GraalPy 3.10-3.12, PyPy 3.9-3.11 on glibc 2.17+ x86_64",
        ),
        (
            "cp313-none-win_amd64",
            "cp313-cp313-win_amd64",
            "free-threaded CPython 3.13 on win_amd64",
        ),
        (
            "cp311-cp311-manylinux_2_17_armv8l",
            "cp311-cp311-manylinux_2_17_x86_64",
            "CPython 3.11 on glibc 2.17+ armv8l",
        ),
        # A raised iOS or Android floor (review66b: before, each was a platform of its own).
        (
            "cp313-cp313-ios_13_0_arm64_iphoneos",
            "cp313-cp313-ios_15_0_arm64_iphoneos",
            "CPython 3.13 on iOS 13.0-14.9 arm64_iphoneos",
        ),
        (
            "cp313-cp313-android_21_arm64_v8a",
            "cp313-cp313-android_24_arm64_v8a",
            "CPython 3.13 on Android API level 21-23 arm64_v8a",
        ),
    ],
)
def test_a_patch_that_installs_on_fewer_systems_fails(
    tmp_path: Path, base_tag: str, patch_tag: str, dropped: str
) -> None:
    base, patch = _pair(tmp_path, base_tag, patch_tag)
    exit_code, report = _wheels(base, patch)
    assert exit_code == 1
    (detail,) = _w630(report)
    assert f" on {dropped} (tags read from the filename)" in detail, detail
    # W301 still says the tags changed; W630 is what fails.
    assert [f["severity"] for f in report["findings"] if f["code"] == "W630"] == ["error"]
    assert run_k3diff("wheels", base, patch, "--ignore", "W630").exit_code == 0


@pytest.mark.parametrize(
    ("base_tag", "patch_tag"),
    [
        ("cp311-cp311-manylinux_2_17_x86_64", "cp311-cp311-manylinux_2_17_x86_64"),
        # One tag set spelled twice (the alias is the same glibc), compressed or not.
        (
            "cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64",
            "cp311-cp311-manylinux_2_17_x86_64",
        ),
        ("cp311-cp311-manylinux_2_17_x86_64", "cp311-cp311-manylinux2014_x86_64"),
        # Widened: an older glibc, abi3 for more Pythons, any platform, Python 2 dropped.
        ("cp311-cp311-manylinux_2_34_x86_64", "cp311-cp311-manylinux_2_17_x86_64"),
        ("cp311-cp311-manylinux_2_17_x86_64", "cp39-abi3-manylinux_2_17_x86_64"),
        ("cp311-cp311-manylinux_2_17_x86_64", "cp311-cp311-linux_x86_64"),
        ("py3-none-linux_x86_64", "py3-none-any"),
        ("py2.py3-none-any", "py3-none-any"),
        ("cp311-cp311-macosx_14_0_arm64", "cp311-cp311-macosx_11_0_arm64"),
        ("cp311-cp311-macosx_11_0_arm64", "cp311-cp311-macosx_10_9_universal2"),
        # A lowered iOS or Android floor widens (review66b: before, W630 said iOS 15 was lost).
        ("cp313-cp313-ios_15_0_arm64_iphoneos", "cp313-cp313-ios_13_0_arm64_iphoneos"),
        ("cp313-cp313-android_24_arm64_v8a", "cp313-cp313-android_21_arm64_v8a"),
        # Every PyPy has its own ABI: `pp310-none` and `pp310-pypy310_pp73` install alike there.
        ("pp310-none-manylinux_2_17_x86_64", "pp310-pypy310_pp73-manylinux_2_17_x86_64"),
        # Free-threaded builds exist from 3.13: `cp39-abi3t` → `cp313-abi3t` loses none.
        ("cp39-abi3t-manylinux_2_17_x86_64", "cp313-abi3t-manylinux_2_17_x86_64"),
        # 32-bit Arm on a 64-bit kernel (armv8l) takes the armv7l tags too.
        ("cp311-cp311-manylinux_2_17_armv8l", "cp311-cp311-manylinux_2_17_armv7l"),
        # packaging lists no manylinux tag on sparc64: the base installed nowhere there.
        ("cp311-cp311-manylinux_2_17_sparc64", "cp311-cp311-manylinux_2_17_x86_64"),
    ],
)
def test_equal_or_wider_tags_pass(tmp_path: Path, base_tag: str, patch_tag: str) -> None:
    base, patch = _pair(tmp_path, base_tag, patch_tag)
    exit_code, report = _wheels(base, patch)
    assert (exit_code, _w630(report)) == (0, [])


def test_the_systems_said_are_the_ones_packaging_tells_apart(tmp_path: Path) -> None:
    """The first cases asked of packaging directly: on glibc 2.17 x86_64 CPython 3.10's
    supported tags hold the base's and not the patch's, 3.11's hold both; on macOS 13 arm64
    the base's `macosx_11_0` is listed and the patch's `macosx_14_0` not."""
    linux = ["manylinux_2_17_x86_64", "manylinux2014_x86_64", "linux_x86_64"]

    def supported(minor: int) -> set[str]:
        own = cpython_tags((3, minor), [f"cp3{minor}"], linux)
        return {str(t) for t in (*own, *compatible_tags((3, minor), f"cp3{minor}", linux))}

    assert "cp39-abi3-manylinux_2_17_x86_64" in supported(10)
    assert "cp311-cp311-manylinux_2_17_x86_64" not in supported(10)
    assert {"cp39-abi3-manylinux_2_17_x86_64", "cp311-cp311-manylinux_2_17_x86_64"} <= supported(11)
    mac13 = set(mac_platforms((13, 0), "arm64"))
    assert "macosx_11_0_arm64" in mac13 and "macosx_14_0_arm64" not in mac13
    base, patch = _pair(
        tmp_path, "cp39-abi3-manylinux_2_17_x86_64", "cp311-cp311-manylinux_2_17_x86_64"
    )
    (detail,) = _w630(_wheels(base, patch)[1])
    assert "3.9-3.10, 3.12+" in detail


def test_a_tag_line_dropped_from_wheel_fails_where_wheel_is_what_k3diff_reads(
    tmp_path: Path,
) -> None:
    """Files not named as wheels (pip refuses them) are judged by their WHEEL `Tag:` lines."""
    two = b"Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-manylinux_2_17_x86_64\n"
    base = write_wheel(
        tmp_path / "b", "demo", "1.0", FILES, filename="base.whl",
        wheel=two + b"Tag: py3-none-win_amd64\n",
    )  # fmt: skip
    patch = write_wheel(tmp_path / "p", "demo", "1.1", FILES, filename="patch.whl", wheel=two)
    exit_code, report = _wheels(base, patch)
    assert exit_code == 1
    (detail,) = _w630(report)
    assert detail.endswith(
        " on CPython 3.0+, free-threaded CPython 3.13+, GraalPy 3.10-3.12, PyPy 3.6-3.11 on "
        "win_amd64 "
        "(tags read from the WHEEL Tag lines)"
    )


def test_a_wheel_filename_is_what_pip_installs_by(tmp_path: Path) -> None:
    """A WHEEL that lost a tag its filename still names is W605 (the filename contradicts
    WHEEL), not W630: pip installs by the filename, which did not narrow."""
    tag = "cp311-cp311-manylinux_2_17_x86_64.manylinux_2_17_aarch64"
    patch_wheel = (
        b"Wheel-Version: 1.0\nRoot-Is-Purelib: false\nTag: cp311-cp311-manylinux_2_17_x86_64\n"
    )
    base = write_wheel(tmp_path / "b", "demo", "1.0", FILES, tag=tag)
    patch = write_wheel(tmp_path / "p", "demo", "1.1", FILES, tag=tag, wheel=patch_wheel)
    exit_code, report = _wheels(base, patch)
    codes = {f["code"] for f in report["findings"]}
    assert exit_code == 1 and "W605" in codes and "W630" not in codes


def test_a_waiver_covers_the_narrowing(tmp_path: Path) -> None:
    base, patch = _pair(
        tmp_path, "cp311-cp311-manylinux_2_17_x86_64", "cp311-cp311-manylinux_2_28_x86_64"
    )
    waivers = tmp_path / "waivers.toml"
    waivers.write_text('[[waiver]]\ncode = "W630"\npath = ""\nreason = "glibc 2.28 is our floor"\n')
    assert run_k3diff("wheels", base, patch).exit_code == 1
    result = run_k3diff("wheels", base, patch, "--waivers", waivers)
    assert result.exit_code == 0, result.stdout


def test_a_release_set_pair_that_shares_a_tag_but_drops_a_platform_fails(
    tmp_path: Path,
) -> None:
    """Release sets pair wheels by a shared tag: a patch wheel that kept the glibc tag and lost
    the musl one pairs with the base, and fails for the musl systems alone; a pair that
    shares a tag and widens passes."""
    files = {"engine/__init__.py": b"X = 1\n"}
    write(
        tmp_path / "base",
        "engine",
        "1.0",
        "cp311-cp311-manylinux_2_17_x86_64.musllinux_1_1_x86_64",
        files,
    )
    write(tmp_path / "base", "tools", "1.0", "py3-none-linux_x86_64", files)
    write(tmp_path / "patch", "engine", "1.1", "cp311-cp311-manylinux_2_17_x86_64", files)
    write(tmp_path / "patch", "tools", "1.1", "py3-none-linux_x86_64.any", files)
    result = run_k3diff("wheels", tmp_path / "base", tmp_path / "patch", "--format", "json")
    assert result.exit_code == 1, result.stderr
    pairs = {Path(p["base"]).name.partition("-")[0]: p for p in json.loads(result.stdout)["pairs"]}
    assert {name: pair["verdict"] for name, pair in pairs.items()} == {
        "engine": "FAIL",
        "tools": "OK",
    }
    assert [d.partition(") on ")[2] for d in _w630(pairs["engine"]["wheels"])] == [
        "CPython 3.11 on musl 1.1+ x86_64 (tags read from the filename)"
    ]
    assert _w630(pairs["tools"]["wheels"]) == []


@pytest.mark.parametrize(
    ("requires_python", "dropped"),
    [
        (">=3.9", None),
        (">=3.8", "CPython 3.8, PyPy 3.8 on every platform (both wheels' tags say 'any')"),
    ],
)
def test_pythons_the_bases_requires_python_excludes_are_not_lost(
    tmp_path: Path, requires_python: str, dropped: str | None
) -> None:
    """pip installs the base on no Python its Requires-Python excludes: `py3` → `py39` loses
    nothing where the base required 3.9, and CPython 3.8 where it required 3.8."""
    meta = metadata("demo", "1.0", f"Requires-Python: {requires_python}")
    base = write_wheel(tmp_path / "b", "demo", "1.0", FILES, tag="py3-none-any", meta=meta)
    patch = write_wheel(tmp_path / "p", "demo", "1.1", FILES, tag="py39-none-any")
    exit_code, report = _wheels(base, patch)
    said = [detail.partition(") on ")[2] for detail in _w630(report)]
    if dropped is None:
        assert (exit_code, said) == (0, [])
    else:
        assert (exit_code, said) == (1, [f"{dropped} (tags read from the filename)"])


def test_a_pure_wheel_narrowing_its_requires_python_is_said_to_lose_every_platform(
    tmp_path: Path,
) -> None:
    """packaging 24.0 → 24.1 (both `py3-none-any`, Requires-Python >=3.7 → >=3.8) loses
    Python 3.7 on every platform: said so, not as "platforms no tag names" (newuser78)."""
    base_meta = metadata("demo", "1.0", "Requires-Python: >=3.7")
    patch_meta = metadata("demo", "1.1", "Requires-Python: >=3.8")
    base = write_wheel(tmp_path / "b", "demo", "1.0", FILES, tag="py3-none-any", meta=base_meta)
    patch = write_wheel(tmp_path / "p", "demo", "1.1", FILES, tag="py3-none-any", meta=patch_meta)
    exit_code, report = _wheels(base, patch)
    assert (exit_code, _w630(report)) == (
        1,
        [
            "pip installs the base (py3-none-any; Requires-Python >=3.7) and not the patch "
            "(py3-none-any; Requires-Python >=3.8) on CPython 3.7, PyPy 3.7 on every platform "
            "(both wheels' tags say 'any') (tags read from the filename)"
        ],
    )


def test_hostile_version_numbers_are_judged_in_bounded_work(tmp_path: Path) -> None:
    """A tag naming glibc 2.99999999999999999999 or CPython 3.<5,000 digits> installs on no
    system: the patch loses every one of the base's, said without a traceback or a hang."""
    base, patch = _pair(
        tmp_path,
        "cp311-cp311-manylinux_2_17_x86_64",
        "cp311-cp311-manylinux_2_99999999999999999999_x86_64",
    )
    exit_code, report = _wheels(base, patch)
    assert exit_code == 1
    assert [d.partition(") on ")[2] for d in _w630(report)] == [
        "CPython 3.11 on glibc 2.17+ x86_64 (tags read from the filename)"
    ]
    huge = "3" + "9" * 5000
    wheel = f"Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: cp{huge}-cp{huge}-any\n".encode()
    patch = write_wheel(tmp_path / "h", "demo", "1.1", FILES, filename="patch.whl", wheel=wheel)
    base = write_wheel(tmp_path / "hb", "demo", "1.0", FILES, filename="base.whl")
    exit_code, report = _wheels(base, patch)
    assert exit_code == 1
    assert [d.partition(") on ")[2] for d in _w630(report)] == [
        "CPython 3.0+, free-threaded CPython 3.13+, GraalPy 3.10-3.12, PyPy 3.6-3.11 on "
        "every platform (both wheels' tags say 'any') (tags read from the WHEEL Tag lines)"
    ]


def test_a_tag_set_past_the_systems_cap_is_judged_up_to_the_cap(tmp_path: Path) -> None:
    """3,000 platforms a `py3` tag names are 114,000 systems (CPython 3.0-3.20, free-threaded
    3.13-3.20, PyPy 3.6-3.11 and GraalPy 3.10-3.12 on each): the first 100,000 are checked, and the finding says
    how many more there may be (systems two tags name are counted once each time)."""
    platforms = ".".join(f"plat{i:04d}" for i in range(3000))
    wheel = f"Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-{platforms}\n".encode()
    base = write_wheel(tmp_path / "b", "demo", "1.0", FILES, filename="base.whl", wheel=wheel)
    one = b"Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-win_amd64\n"
    patch = write_wheel(tmp_path / "p", "demo", "1.1", FILES, filename="patch.whl", wheel=one)
    exit_code, report = _wheels(base, patch)
    (detail,) = _w630(report)
    assert exit_code == 1
    assert detail.endswith(
        " (up to 14,000 more systems not checked: k3diff's cap 100,000) "
        "(tags read from the WHEEL Tag lines)"
    ), detail[-200:]


def test_a_tag_line_naming_more_tags_than_the_cap_stands_for_itself(tmp_path: Path) -> None:
    """stop 66: a `Tag:` line's parts multiply, and packaging built every tag they name, so a
    few kilobytes of WHEEL named billions (memory and minutes; review66b measured 1.37 M tags
    at 766 MB). Past `MAX_TAGS` (4,096) the set stands for itself, as a malformed one does:
    here WHEEL no longer declares the filename's `py3-none-any` (W605, failing), where
    expanding its 8,000 tags had found it there (exit 0)."""
    pythons = ".".join(["py3", *(f"py{i}" for i in range(30, 49))])
    abis = ".".join(["none", *(f"x{i}" for i in range(19))])
    platforms = ".".join(["any", *(f"p{i}" for i in range(19))])
    line = f"Tag: {pythons}-{abis}-{platforms}\n"  # 20 x 20 x 20 = 8,000 tags
    wheel = f"Wheel-Version: 1.0\nRoot-Is-Purelib: true\n{line}".encode()
    base = write_wheel(tmp_path / "b", "demo", "1.0", FILES, tag="py3-none-any")
    patch = write_wheel(tmp_path / "p", "demo", "1.0", FILES, tag="py3-none-any", wheel=wheel)
    exit_code, report = _wheels(base, patch)
    details = [f["detail"] for f in report["findings"] if f["code"] == "W605"]
    assert exit_code == 1 and len(details) == 1, report["findings"]
    assert "py3-none-any" in details[0] and "py3.py30" in details[0]
    # Several lines count together: 2,000 tags each, the third past the cap.
    small = f"{pythons}-{abis}-{'.'.join(['any', *(f'p{i}' for i in range(4))])}"
    lines = "".join(f"Tag: {small.replace('py30', f'q{n}')}\n" for n in range(3))
    wheel = f"Wheel-Version: 1.0\nRoot-Is-Purelib: true\n{lines}".encode()
    patch = write_wheel(tmp_path / "q", "demo", "1.0", FILES, tag="py3-none-any", wheel=wheel)
    exit_code, report = _wheels(base, patch)
    assert exit_code == 0 and not [f for f in report["findings"] if f["code"] == "W605"]


def test_the_detail_says_the_tags_in_the_filenames_order(tmp_path: Path) -> None:
    """abi67: the detail re-sorted a compressed set (`manylinux2014_x86_64.manylinux_2_17_…`),
    so it named tags in an order no filename had; it now quotes the filename's."""
    base, patch = _pair(
        tmp_path,
        "cp39-abi3-manylinux_2_17_x86_64.manylinux2014_x86_64",
        "cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64",
    )
    (detail,) = _w630(_wheels(base, patch)[1])
    assert detail.startswith(
        "pip installs the base (cp39-abi3-manylinux_2_17_x86_64.manylinux2014_x86_64) and not "
        "the patch (cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64) on "
    ), detail


def test_macos_systems_are_the_releases_macs_run(tmp_path: Path) -> None:
    """After macOS 15 came macOS 26: `mac_platforms` lists `macosx_16_0` to `macosx_25_0` tags
    on it, but no Mac runs those releases (abi67: a 15 → 26 bump said `macOS 15-25`)."""
    assert "macosx_20_0_arm64" in mac_platforms((26, 0), "arm64")  # packaging's listing
    base, patch = _pair(tmp_path, "cp312-cp312-macosx_15_0_arm64", "cp312-cp312-macosx_26_0_arm64")
    exit_code, report = _wheels(base, patch)
    assert exit_code == 1
    assert [d.partition(") on ")[2] for d in _w630(report)] == [
        "CPython 3.12 on macOS 15 arm64 (tags read from the filename)"
    ]


def test_ios_systems_are_the_releases_devices_run(tmp_path: Path) -> None:
    """After iOS 18 came iOS 26: `ios_platforms` lists `ios_19_0` to `ios_25_9` tags on it, but
    no device runs those releases (left67: an 18 → 26 bump said `iOS 18.0-25.9`, as macOS did
    before abi67)."""
    assert "ios_20_0_arm64_iphoneos" in ios_platforms((26, 0), "arm64_iphoneos")
    base, patch = _pair(
        tmp_path, "cp313-cp313-ios_18_0_arm64_iphoneos", "cp313-cp313-ios_26_0_arm64_iphoneos"
    )
    exit_code, report = _wheels(base, patch)
    assert exit_code == 1
    assert [d.partition(") on ")[2] for d in _w630(report)] == [
        "CPython 3.13 on iOS 18.0-18.9 arm64_iphoneos (tags read from the filename)"
    ]


@pytest.mark.parametrize(
    ("requires_python", "versions"),
    [
        # The base's specifier stops admitting at 3.25, past the 3.20 judged by default: the
        # lost run ends at 3.24, not open (left67: it said `3.12+`).
        (">=3.9,<3.25", "3.9-3.10, 3.12-3.24"),
        # One excluded past the default horizon: the run resumes after it, open.
        (">=3.9,!=3.22.*", "3.9-3.10, 3.12-3.21, 3.23+"),
        (">=3.9", "3.9-3.10, 3.12+"),
    ],
)
def test_the_bases_requires_python_past_the_horizon_bounds_the_lost_pythons(
    tmp_path: Path, requires_python: str, versions: str
) -> None:
    meta = metadata("demo", "1.0", f"Requires-Python: {requires_python}")
    tag = "cp39-abi3-manylinux_2_17_x86_64"
    base = write_wheel(tmp_path / "b", "demo", "1.0", FILES, tag=tag, meta=meta)
    patch = write_wheel(
        tmp_path / "p", "demo", "1.1", FILES, tag="cp311-cp311-manylinux_2_17_x86_64"
    )
    exit_code, report = _wheels(base, patch)
    assert exit_code == 1
    assert [d.partition(") on ")[2] for d in _w630(report)] == [
        f"CPython {versions} on glibc 2.17+ x86_64 (tags read from the filename)"
    ]


def test_graalpy_is_a_python_a_py3_tag_installs_on(tmp_path: Path) -> None:
    """packaging's `compatible_tags` lists `py3-none-…` for every interpreter, GraalPy's too,
    so pip on GraalPy installs a `py3` wheel (abi67: GraalPy was not counted, and a `py3` base
    narrowed to CPython's tags passed where it lost GraalPy alone)."""
    assert "py3-none-any" in {str(t) for t in compatible_tags((3, 12), "graalpy312", ["any"])}
    meta = metadata("demo", "1.0", "Requires-Python: ==3.12.*")
    base = write_wheel(tmp_path / "b", "demo", "1.0", FILES, tag="py3-none-any", meta=meta)
    patch = write_wheel(tmp_path / "p", "demo", "1.1", FILES, tag="cp312-none-any")
    exit_code, report = _wheels(base, patch)
    assert exit_code == 1
    assert [d.partition(") on ")[2] for d in _w630(report)] == [
        "GraalPy 3.12 on every platform (both wheels' tags say 'any') (tags read from the filename)"
    ]


def test_the_waiver_step_says_how_a_wheel_wide_finding_is_waived(tmp_path: Path) -> None:
    """A W630 is about the wheel as a whole: its path is '', which a waiver's `path = ""`
    covers (a glob on the finding's path). The step said "each stanza below names one exact
    path" (abi67); it now says so, and the stanza it shows passes the pair."""
    base, patch = _pair(
        tmp_path, "cp39-abi3-manylinux_2_17_x86_64", "cp311-cp311-manylinux_2_17_x86_64"
    )
    text = run_k3diff("wheels", base, patch).stdout
    assert 'W630, about the wheel as a whole, is waived by path = "", which covers no entry' in text
    waivers = tmp_path / "waivers.toml"
    waivers.write_text('[[waiver]]\ncode = "W630"\npath = ""\nreason = "3.9 dropped, reviewed"\n')
    assert run_k3diff("wheels", base, patch, "--waivers", waivers).exit_code == 0
    document = tmp_path / "wheels.json"
    run_k3diff("wheels", base, patch, "--format", "json", "-o", document)
    assert run_k3diff("report", document, "--out", tmp_path / "bundle").exit_code == 1
    bundle = (tmp_path / "bundle" / "REPORT.md").read_text()
    assert 'W630, about the wheel as a whole, is waived by path = "", which covers' in bundle


def test_a_wheel_wide_finding_is_named_by_one_word_failing_or_waived(tmp_path: Path) -> None:
    """The failing table named a W630 `(wheel)`, the waived list, the verdict line and the
    bundle `(artifact)` (left67b): the same finding reads the same wherever it is listed."""
    base, patch = _pair(
        tmp_path, "cp39-abi3-manylinux_2_17_x86_64", "cp311-cp311-manylinux_2_17_x86_64"
    )
    failing = run_k3diff("wheels", base, patch).stdout
    assert [line.split()[:2] for line in failing.splitlines() if line.startswith("W630")] == [
        ["W630", "(wheel)"]
    ]
    waivers = tmp_path / "waivers.toml"
    waivers.write_text('[[waiver]]\ncode = "W630"\npath = ""\nreason = "3.9 dropped, reviewed"\n')
    waived = run_k3diff("wheels", base, patch, "--waivers", waivers)
    assert waived.exit_code == 0, waived.stdout
    assert "1 finding waived: W630 (wheel) — 3.9 dropped, reviewed" in waived.stdout
    assert "- waived W630 (wheel) in " in waived.stdout
    document = tmp_path / "wheels.json"
    run_k3diff("wheels", base, patch, "--waivers", waivers, "--format", "json", "-o", document)
    assert run_k3diff("report", document, "--out", tmp_path / "bundle").exit_code == 0
    bundle = (tmp_path / "bundle" / "REPORT.md").read_text()
    assert "W630 (wheel) (waiver 1: 3.9 dropped, reviewed)" in bundle
    assert "(artifact)" not in waived.stdout + bundle
