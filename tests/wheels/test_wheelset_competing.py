"""`--allow-unpaired` accepts a wheel on one side only, never an unpaired wheel pip may install
instead of a compared one (hunt75b: such a patch wheel, never compared, passed with exit 0)."""

from __future__ import annotations

import shlex
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest
from cli_support import run_k3diff

from .wheelset_support import CHANGED_LIB, CP312, LIB, _engine, write

_SOLO = {"solo.py": b"pass\n"}


@pytest.mark.parametrize(
    ("base_tag", "patch_tags"),
    [
        # CPython 3.12 prefers cp312-none-any to py3-none-any.
        ("py3-none-any", ["py3-none-any", "cp312-none-any"]),
        # A glibc 2.28 machine prefers manylinux_2_28 to manylinux_2_17.
        (CP312, [CP312, "cp312-cp312-manylinux_2_28_x86_64"]),
        # The legacy alias manylinux2014 is glibc 2.17.
        (
            "cp312-cp312-manylinux2014_x86_64",
            ["cp312-cp312-manylinux2014_x86_64", "cp312-cp312-manylinux_2_28_x86_64"],
        ),
        # An abi3 wheel for 3.8 and later installs on 3.12 too, and pip prefers it to any
        # wheel of the base that 3.12 takes.
        ("py3-none-any", ["py3-none-any", "cp38-abi3-manylinux_2_17_x86_64"]),
        # pip on a glibc Linux accepts linux_x86_64 too.
        (CP312, [CP312, "cp312-cp312-linux_x86_64"]),
        # An arm64 Mac accepts a universal2 wheel and an arm64 one, the newer system's first.
        (
            "cp312-cp312-macosx_11_0_arm64",
            ["cp312-cp312-macosx_11_0_arm64", "cp312-cp312-macosx_14_0_universal2"],
        ),
        # Android API level 24 takes wheels for 21 and for 24 (PEP 738).
        (
            "cp313-cp313-android_21_arm64_v8a",
            ["cp313-cp313-android_21_arm64_v8a", "cp313-cp313-android_24_arm64_v8a"],
        ),
        # Every Python 3.10 and later accepts py310 and py38 (packaging's compatible tags),
        # and prefers py310 (review75h: exit 0).
        ("py38-none-any", ["py38-none-any", "py310-none-any"]),
        # A py38 platform wheel ranks above any platform-any wheel on 3.12 (review75h: exit 0).
        ("cp312-none-any", ["cp312-none-any", "py38-none-manylinux_2_17_x86_64"]),
        # A free-threaded 3.14 prefers cp314-abi3t to cp313-abi3t (review75h: exit 0).
        (
            "cp313-abi3t-manylinux_2_17_x86_64",
            ["cp313-abi3t-manylinux_2_17_x86_64", "cp314-abi3t-manylinux_2_17_x86_64"],
        ),
    ],
    ids=[
        "py3-and-cp312",
        "raised-glibc",
        "manylinux2014",
        "abi3",
        "linux",
        "universal2",
        "android",
        "py-minor-later",
        "py-minor-platform",
        "abi3t",
    ],
)
def test_an_unpaired_wheel_pip_may_install_instead_is_refused(
    tmp_path: Path, base_tag: str, patch_tags: list[str]
) -> None:
    write(tmp_path / "base", "engine", "1.0", base_tag, _engine("1.0", LIB))
    write(tmp_path / "patch", "engine", "1.1", patch_tags[0], _engine("1.1", LIB))
    write(tmp_path / "patch", "engine", "1.1", patch_tags[1], _engine("1.1", CHANGED_LIB))
    default = run_k3diff("wheels", "base", "patch", cwd=tmp_path)
    assert default.exit_code == 1
    allowed = run_k3diff("wheels", "base", "patch", "--allow-unpaired", cwd=tmp_path)
    assert allowed.exit_code == 2, allowed.stdout
    assert allowed.stdout == ""
    assert allowed.stderr.count("\n") == 1
    assert f"patch wheel patch/engine-1.1-{patch_tags[1]}.whl is not one-sided" in allowed.stderr
    assert f"k3diff wheels base/engine-1.0-{base_tag}.whl patch/engine-1.1-" in allowed.stderr


def test_the_refusal_names_a_command_that_compares_the_two(tmp_path: Path) -> None:
    """The refusal's command compares the two wheels it names (newuser76: it advised
    `--base A --patch B`, which pairs by shared tags as the set did, so it compared nothing:
    exit 1, nothing paired). The base's cp312-none-any wheel faces the patch's py3 one, which
    is paired with the base's py3 one: no pair by pip's choice."""
    write(tmp_path / "base", "solo", "1.0", "py3-none-any", _SOLO)
    write(tmp_path / "base", "solo", "1.0", "cp312-none-any", _SOLO)
    write(tmp_path / "patch", "solo", "1.1", "py3-none-any", _SOLO)
    allowed = run_k3diff("wheels", "base", "patch", "--allow-unpaired", cwd=tmp_path)
    assert allowed.exit_code == 2, allowed.stdout
    assert "base wheel base/solo-1.0-cp312-none-any.whl is not one-sided" in allowed.stderr
    command = shlex.split(allowed.stderr.split("compare them on their own: ", 1)[1])
    assert command[:2] == ["k3diff", "wheels"]
    compared = run_k3diff(*command[1:], cwd=tmp_path)
    assert compared.exit_code == 0, compared.stdout
    assert "nothing paired" not in compared.stdout
    assert "Verdict: OK (exit 0)" in compared.stdout


def test_a_base_wheel_the_patch_dropped_for_a_compared_one_is_refused(tmp_path: Path) -> None:
    write(tmp_path / "base", "solo", "1.0", "py3-none-any", _SOLO)
    write(tmp_path / "base", "solo", "1.0", "cp312-none-any", _SOLO)
    write(tmp_path / "patch", "solo", "1.1", "py3-none-any", _SOLO)
    allowed = run_k3diff("wheels", "base", "patch", "--allow-unpaired", cwd=tmp_path)
    assert allowed.exit_code == 2
    assert "base wheel base/solo-1.0-cp312-none-any.whl is not one-sided" in allowed.stderr


@pytest.mark.parametrize(
    "added",
    [
        "cp313-cp313-manylinux_2_17_x86_64",
        "cp312-cp312-win_amd64",
        "cp312-cp312-musllinux_1_2_x86_64",
        "cp312-cp312-manylinux_2_17_aarch64",
        "cp312-cp312-macosx_11_0_arm64",
    ],
)
def test_a_python_or_platform_added_is_still_one_sided(tmp_path: Path, added: str) -> None:
    write(tmp_path / "base", "engine", "1.0", CP312, _engine("1.0", LIB))
    write(tmp_path / "patch", "engine", "1.1", CP312, _engine("1.1", LIB))
    write(tmp_path / "patch", "engine", "1.1", added, _engine("1.1", LIB))
    allowed = run_k3diff("wheels", "base", "patch", "--allow-unpaired", cwd=tmp_path)
    assert allowed.exit_code == 0, allowed.stderr
    assert "1 unpaired (allowed)" in allowed.stdout


def test_a_pure_fallback_added_beside_platform_wheels_is_one_sided(tmp_path: Path) -> None:
    """pip prefers a platform wheel to a platform-`any` one wherever both install: the added
    py3-none-any is installed only where the base had no wheel."""
    write(tmp_path / "base", "engine", "1.0", CP312, _engine("1.0", LIB))
    write(tmp_path / "patch", "engine", "1.1", CP312, _engine("1.1", LIB))
    write(tmp_path / "patch", "engine", "1.1", "py3-none-any", _SOLO)
    allowed = run_k3diff("wheels", "base", "patch", "--allow-unpaired", cwd=tmp_path)
    assert allowed.exit_code == 0, allowed.stderr


def test_a_pure_wheel_of_a_later_version_beside_platform_wheels_is_refused(tmp_path: Path) -> None:
    """pip ranks a wheel's version before its tags: a `py3-none-any` of 1.2 beside the compared
    1.1 platform wheel is what pip installs everywhere (review75h: exit 0, never compared)."""
    write(tmp_path / "base", "engine", "1.0", CP312, _engine("1.0", LIB))
    write(tmp_path / "patch", "engine", "1.1", CP312, _engine("1.1", LIB))
    write(tmp_path / "patch", "engine", "1.2", "py3-none-any", _SOLO)
    allowed = run_k3diff("wheels", "base", "patch", "--allow-unpaired", cwd=tmp_path)
    assert allowed.exit_code == 2, allowed.stdout
    assert "patch wheel patch/engine-1.2-py3-none-any.whl is not one-sided" in allowed.stderr
    assert (
        f"k3diff wheels base/engine-1.0-{CP312}.whl patch/engine-1.2-py3-none-any.whl"
        in allowed.stderr
    )


def test_a_wheel_replaced_by_an_unpaired_one_of_the_other_side_is_compared(
    tmp_path: Path,
) -> None:
    """The base's py3 wheel dropped and a cp312 one added: CPython 3.12 installed the one and
    installs the other, each facing only the other, so they are compared as a pair
    (`choicepairing`; release77: refused, exit 2), which fails W630 for the Pythons the patch
    no longer installs on."""
    write(tmp_path / "base", "engine", "1.0", CP312, _engine("1.0", LIB))
    write(tmp_path / "patch", "engine", "1.1", CP312, _engine("1.1", LIB))
    write(tmp_path / "base", "solo", "1.0", "py3-none-any", _SOLO)
    write(tmp_path / "patch", "solo", "1.1", "cp312-none-any", _SOLO)
    allowed = run_k3diff("wheels", "base", "patch", "--allow-unpaired", cwd=tmp_path)
    assert allowed.exit_code == 1, allowed.stderr
    assert "pair: FAIL: 1 × W630" in allowed.stdout
    assert "(2 pairs, 1 failing, 0 unpaired)" in allowed.stdout


def test_the_checks_are_capped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("k3diff.wheels.competing.MAX_CHECKS", 1)
    write(tmp_path / "base", "solo", "1.0", "py3-none-any", _SOLO)
    write(tmp_path / "patch", "solo", "1.1", "py3-none-any", _SOLO)
    write(tmp_path / "patch", "solo", "1.1", "cp313-none-any", _SOLO)
    write(tmp_path / "patch", "solo", "1.1", "cp314-none-any", _SOLO)
    allowed = run_k3diff("wheels", "base", "patch", "--allow-unpaired", cwd=tmp_path)
    assert allowed.exit_code == 2
    assert allowed.stderr.startswith("k3diff: error: patch: --allow-unpaired: project solo: ")
    assert "over k3diff's cap of 1 checks" in allowed.stderr


def test_the_cap_holds_for_every_project_together(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """review76d: the cap held one project at a time, so 8,000 projects of two empty files,
    each under it, took 27 s: 10 checks each here, the second passes a cap of 15."""
    monkeypatch.setattr("k3diff.wheels.competing.MAX_CHECKS", 15)
    for name in ("one", "two"):
        write(tmp_path / "base", name, "1.0", "py3-none-any", _SOLO)
        write(tmp_path / "patch", name, "1.1", "py3-none-any", _SOLO)
    refused = run_k3diff("wheels", "base", "patch", cwd=tmp_path)
    assert refused.exit_code == 2, refused.stdout
    assert refused.stderr.startswith("k3diff: error: base: project two: its 2 wheels ")
    assert "10 checks of which wheel pip installs, 20 with the projects before it" in (
        refused.stderr
    )


def _implementations(side: str, wheel: int) -> str:
    """20 implementations and 20 ABIs no other wheel names: Pythons multiply."""
    start = wheel * 20 + (0 if side == "base" else 26**3 // 2)
    names = ["".join(chr(97 + n // 26**k % 26) for k in range(3)) for n in range(start, start + 20)]
    return ".".join(f"{n}3" for n in names) + "-" + ".".join(names) + f"-{side}{wheel}"


def _ios_versions(side: str, wheel: int) -> str:
    """18 iOS versions no other wheel names: machines multiply."""
    start = wheel * 18 + (0 if side == "base" else 4000)
    versions = [divmod(12 * 100 + n, 100) for n in range(start, start + 18)]
    return "xx-none-" + ".".join(f"ios_{major}_{minor}_a" for major, minor in versions)


@pytest.mark.parametrize(("tag_set", "wheels"), [(_implementations, 20), (_ios_versions, 100)])
def test_the_interpreters_past_the_cap_are_never_made(
    tmp_path: Path, tag_set: Callable[[str, int], str], wheels: int
) -> None:
    """review76d: the Pythons and machines were all made before the cap was weighed: 60 empty
    files a side naming implementations made 2.4 million Pythons, 2.2 GB and 18 s; 440 naming
    iOS versions 8,801 machines, 466 MB; each now stops at the cap."""
    for side, version in (("base", "1.0"), ("patch", "1.1")):
        (tmp_path / side).mkdir()
        for wheel in range(wheels):
            (tmp_path / side / f"e-{version}-{tag_set(side, wheel)}.whl").write_bytes(b"")
    tracemalloc.start()
    try:
        refused = run_k3diff("wheels", "base", "patch", "--allow-unpaired", cwd=tmp_path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert refused.exit_code == 2, refused.stdout
    assert "over k3diff's cap of 1,000,000 checks a run" in refused.stderr
    assert peak < 40_000_000


def test_free_threaded_wheels_added_beside_abi3_ones_are_one_sided(tmp_path: Path) -> None:
    """A free-threaded CPython takes no abi3 wheel (packaging's `_abi3_applies`): cp313t wheels
    added beside the compared cp39-abi3 ones install where nothing did (review75h: refused)."""
    abi3 = "cp39-abi3-manylinux_2_17_x86_64"
    write(tmp_path / "base", "solo", "1.0", abi3, _SOLO)
    write(tmp_path / "patch", "solo", "1.1", abi3, _SOLO)
    write(tmp_path / "patch", "solo", "1.1", "cp313-cp313t-manylinux_2_17_x86_64", _SOLO)
    allowed = run_k3diff("wheels", "base", "patch", "--allow-unpaired", cwd=tmp_path)
    assert allowed.exit_code == 0, allowed.stderr
    assert "1 unpaired (allowed)" in allowed.stdout


@pytest.mark.parametrize(
    ("base_tags", "patch_tags"),
    [
        # manylinux_2_17 dropped: glibc 2.28 installed (and installs) the compared 2_28 wheel.
        ([CP312, "cp312-cp312-manylinux_2_28_x86_64"], ["cp312-cp312-manylinux_2_28_x86_64"]),
        # manylinux2014 added for older systems beside the compared manylinux_2_28.
        (["cp312-cp312-manylinux_2_28_x86_64"], ["cp312-cp312-manylinux_2_28_x86_64", CP312]),
        # macOS 10.13 added for older Macs beside the compared 11.0 (Intel) wheel.
        (
            ["cp312-cp312-macosx_11_0_x86_64"],
            ["cp312-cp312-macosx_11_0_x86_64", "cp312-cp312-macosx_10_13_x86_64"],
        ),
        # An arm64 Mac (macOS 11 or later) lists macosx_11_0_arm64 above macosx_10_9_universal2.
        (
            ["cp312-cp312-macosx_11_0_arm64"],
            ["cp312-cp312-macosx_11_0_arm64", "cp312-cp312-macosx_10_9_universal2"],
        ),
    ],
    ids=["glibc-2-17-dropped", "glibc-2-17-added", "macos-10-13-added", "universal2-10-9"],
)
def test_a_wheel_for_an_older_system_is_one_sided(
    tmp_path: Path, base_tags: list[str], patch_tags: list[str]
) -> None:
    """pip on a machine lists platforms newest system first: a wheel for an older glibc or macOS
    beside a compared newer one installs only where that one does not (review75h: refused)."""
    for side, tags in (("base", base_tags), ("patch", patch_tags)):
        for tag in tags:
            write(tmp_path / side, "engine", "1.0", tag, _engine("1.0", LIB))
    allowed = run_k3diff("wheels", "base", "patch", "--allow-unpaired", cwd=tmp_path)
    assert allowed.exit_code == 0, allowed.stderr
    assert "1 unpaired (allowed)" in allowed.stdout
