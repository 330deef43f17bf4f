"""Which wheel pip 26 installs on an interpreter, each release's, held against what `wheels`
accepts uncompared: an unpaired wheel is one-sided only where pip installs nothing of the other
release's project (stop 76: a third wheel beside a pair passed, exit 0, and wheels pip never
installs where the other release does were refused).

pip is asked as it is on a machine: `pip install --dry-run --report` from the release's
directory only, for a CPython version, ABI and the machine's platform values, best first, as
packaging lists them there."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_support import run_k3diff
from packaging.tags import android_platforms, ios_platforms, mac_platforms

from .wheelset_support import write

Interpreter = tuple[str, list[str], list[str]]
"""(Python version, ABIs, the machine's platform values best first)."""

_GLIBC_2_17 = ["linux_x86_64", "manylinux_2_17_x86_64", "manylinux2014_x86_64"]
_MAC_10_13 = list(mac_platforms((10, 13), "x86_64"))
_MAC_14_ARM = list(mac_platforms((14, 0), "arm64"))
_MAC_14_INTEL = list(mac_platforms((14, 0), "x86_64"))
_ARMV8L_2_17 = [  # a 32-bit Python on 64-bit Arm, glibc 2.17: packaging's `_linux_platforms`
    *("linux_armv8l", "linux_armv7l", "manylinux_2_17_armv8l", "manylinux2014_armv8l"),
    *("manylinux_2_17_armv7l", "manylinux2014_armv7l"),
]


def _pip_choice(directory: Path, interpreter: Interpreter) -> str | None:
    """The file pip installs `engine` from, out of `directory` alone, or None (none fits)."""
    version, abis, platforms = interpreter
    command = [
        sys.executable, "-m", "pip", "install", "--dry-run", "--report", "-", "--quiet",
        "--no-deps", "--no-index", "--find-links", str(directory), "--only-binary=:all:",
        "--ignore-installed", "--disable-pip-version-check", "--target", str(directory / "t"),
        "--implementation", "cp", "--python-version", version,
        *(f"--abi={abi}" for abi in abis), *(f"--platform={p}" for p in platforms), "engine",
    ]  # fmt: skip
    env = {**os.environ, "PIP_CONFIG_FILE": os.devnull, "PIP_NO_INPUT": "1"}
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)
    if done.returncode != 0:
        assert "No matching distribution" in done.stderr, done.stderr
        return None
    url: str = json.loads(done.stdout)["install"][0]["download_info"]["url"]
    return url.rsplit("/", 1)[1]


def _releases(root: Path, base: list[str], patch: list[str]) -> None:
    for side, version, tags in (("base", "1.0", base), ("patch", "1.1", patch)):
        for tag in tags:
            write(root / side, "engine", version, tag, {"engine/__init__.py": b"X = 1\n"})


@pytest.mark.parametrize(
    ("base", "patch", "interpreter", "extra"),
    [
        # The compared pair moved from macOS 10.13 to 11.0 (W630), and a universal2 wheel for
        # 10.9 is what an Intel Mac on 10.13 to 10.15 now installs (stop 76: exit 0).
        (
            ["cp312-cp312-macosx_10_13_x86_64"],
            ["cp312-cp312-macosx_11_0_x86_64", "cp312-cp312-macosx_10_9_universal2"],
            ("3.12", [], _MAC_10_13),
            ["--allow-unpaired", "--ignore", "W630"],
        ),
        # py2.py3 paired with py2; CPython 3.12 installs the added cp312-none-any (exit 0).
        (
            ["py2.py3-none-any"],
            ["py2-none-any", "cp312-none-any"],
            ("3.12", [], _GLIBC_2_17),
            ["--allow-unpaired"],
        ),
        # Each wheel paired, yet CPython 3.12 installs the base's py3 wheel and the patch's
        # cp311.cp312 one, paired with others: no option, and it passed (exit 0).
        (
            ["py3-none-any", "cp311-none-any"],
            ["py3-none-any", "cp311.cp312-none-any"],
            ("3.12", [], _GLIBC_2_17),
            [],
        ),
        # A debug CPython 3.12 takes cp312 wheels too, and prefers the added cp312d one.
        (
            ["cp312-cp312-manylinux_2_17_x86_64"],
            ["cp312-cp312-manylinux_2_17_x86_64", "cp312-cp312d-manylinux_2_17_x86_64"],
            ("3.12", ["cp312d", "cp312"], _GLIBC_2_17),
            ["--allow-unpaired"],
        ),
        # A 32-bit Python on 64-bit Arm takes armv7l wheels after armv8l ones (review76d:
        # the added armv8l wheel was one-sided, exit 0).
        (
            ["cp312-cp312-manylinux_2_17_armv7l"],
            ["cp312-cp312-manylinux_2_17_armv7l", "cp312-cp312-manylinux_2_17_armv8l"],
            ("3.12", [], _ARMV8L_2_17),
            ["--allow-unpaired"],
        ),
    ],
    ids=["macos-universal2-older", "py2-and-cp312", "paired-with-others", "debug-build", "armv8l"],
)
def test_two_wheels_pip_installs_on_one_interpreter_uncompared_are_refused(
    tmp_path: Path, base: list[str], patch: list[str], interpreter: Interpreter, extra: list[str]
) -> None:
    _releases(tmp_path, base, patch)
    chosen_base = _pip_choice(tmp_path / "base", interpreter)
    chosen_patch = _pip_choice(tmp_path / "patch", interpreter)
    assert chosen_base == f"engine-1.0-{base[0]}.whl"
    assert chosen_patch == f"engine-1.1-{patch[1]}.whl"
    result = run_k3diff("wheels", "base", "patch", *extra, cwd=tmp_path)
    assert result.exit_code == 2, result.stdout
    assert result.stderr.count("\n") == 1
    assert f"k3diff wheels base/{chosen_base} patch/{chosen_patch}" in result.stderr
    assert " on CPython 3.12" in result.stderr


@pytest.mark.parametrize(
    ("paired", "added", "one_sided", "both"),
    [
        # CPython 3.12 ranks cp312-cp312 above cp38-abi3: the abi3 wheel serves 3.8 to 3.11.
        (
            "cp312-cp312-manylinux_2_17_x86_64",
            "cp38-abi3-manylinux_2_17_x86_64",
            ("3.10", [], _GLIBC_2_17),
            ("3.12", [], _GLIBC_2_17),
        ),
        # cp39-abi3 ranks above cp37-abi3 from 3.9 on: the cp37 wheel serves 3.7 and 3.8.
        (
            "cp39-abi3-manylinux_2_17_x86_64",
            "cp37-abi3-manylinux_2_17_x86_64",
            ("3.8", [], _GLIBC_2_17),
            ("3.12", [], _GLIBC_2_17),
        ),
        # Android lists its own API level first: android_21 serves levels 21 to 23.
        (
            "cp313-cp313-android_24_arm64_v8a",
            "cp313-cp313-android_21_arm64_v8a",
            ("3.13", [], list(android_platforms(22, "arm64_v8a"))),
            ("3.13", [], list(android_platforms(30, "arm64_v8a"))),
        ),
        # iOS likewise: ios_13_0 serves iOS 13.0 to 14.x.
        (
            "cp313-cp313-ios_15_0_arm64_iphoneos",
            "cp313-cp313-ios_13_0_arm64_iphoneos",
            ("3.13", [], list(ios_platforms((14, 2), "arm64_iphoneos"))),
            ("3.13", [], list(ios_platforms((17, 0), "arm64_iphoneos"))),
        ),
        # An arm64 Mac ranks arm64 above universal2 of one version: universal2 serves Intel.
        (
            "cp312-cp312-macosx_11_0_arm64",
            "cp312-cp312-macosx_11_0_universal2",
            ("3.12", [], _MAC_14_INTEL),
            ("3.12", [], _MAC_14_ARM),
        ),
        # A free-threaded CPython takes no abi3 wheel, a GIL one prefers the abi3 wheel's tag
        # to none of cp313t's.
        (
            "cp39-abi3-manylinux_2_17_x86_64",
            "cp313-cp313t-manylinux_2_17_x86_64",
            ("3.13", ["cp313t"], _GLIBC_2_17),
            ("3.13", [], _GLIBC_2_17),
        ),
    ],
    ids=["cp38-abi3", "cp37-abi3", "android-21", "ios-13", "universal2-same-version", "cp313t"],
)
def test_a_wheel_pip_installs_only_where_the_other_release_has_none_is_one_sided(
    tmp_path: Path, paired: str, added: str, one_sided: Interpreter, both: Interpreter
) -> None:
    """stop 76: each was refused (exit 2) under --allow-unpaired."""
    _releases(tmp_path, [paired], [paired, added])
    assert _pip_choice(tmp_path / "base", one_sided) is None
    assert _pip_choice(tmp_path / "patch", one_sided) == f"engine-1.1-{added}.whl"
    assert _pip_choice(tmp_path / "base", both) == f"engine-1.0-{paired}.whl"
    assert _pip_choice(tmp_path / "patch", both) == f"engine-1.1-{paired}.whl"
    result = run_k3diff("wheels", "base", "patch", "--allow-unpaired", cwd=tmp_path)
    assert result.exit_code == 0, result.stderr
    assert "1 unpaired (allowed)" in result.stdout


@pytest.mark.parametrize("extra", [[], ["--allow-unpaired"]])
def test_a_pre_release_pip_passes_over_is_not_taken_as_its_choice(
    tmp_path: Path, extra: list[str]
) -> None:
    """pip installs a pre-release only with --pre or where no final release fits: CPython 3.12
    installs the patch's 1.1 platform wheel, not its 2.0rc1 pure one paired with the base's
    (review76d: the rc was taken as chosen, exit 0 with no option)."""
    base = [("1.0", "py3-none-any")]
    patch = [("2.0rc1", "py3-none-any"), ("1.1", "cp312-cp312-manylinux_2_17_x86_64")]
    if not extra:  # every wheel paired: the platform wheels of two versions each
        base.append(("0.9", "cp312-cp312-manylinux_2_17_x86_64"))
    for side, wheels in (("base", base), ("patch", patch)):
        for version, tag in wheels:
            write(tmp_path / side, "engine", version, tag, {"engine/__init__.py": b"X = 1\n"})
    interpreter: Interpreter = ("3.12", [], _GLIBC_2_17)
    assert _pip_choice(tmp_path / "base", interpreter) == "engine-1.0-py3-none-any.whl"
    chosen = "engine-1.1-cp312-cp312-manylinux_2_17_x86_64.whl"
    assert _pip_choice(tmp_path / "patch", interpreter) == chosen
    result = run_k3diff("wheels", "base", "patch", *extra, cwd=tmp_path)
    assert result.exit_code == 2, result.stdout
    assert f"k3diff wheels base/engine-1.0-py3-none-any.whl patch/{chosen}" in result.stderr


def test_a_release_of_pre_releases_is_compared_as_pip_installs_it(tmp_path: Path) -> None:
    """Where no final release fits, pip installs the pre-release: a 1.1rc1 patch release
    pairs as any other (exit 0)."""
    write(tmp_path / "base", "engine", "1.0", "py3-none-any", {"engine/__init__.py": b"X\n"})
    write(tmp_path / "patch", "engine", "1.1rc1", "py3-none-any", {"engine/__init__.py": b"X\n"})
    assert _pip_choice(tmp_path / "patch", ("3.12", [], _GLIBC_2_17)) == (
        "engine-1.1rc1-py3-none-any.whl"
    )
    result = run_k3diff("wheels", "base", "patch", cwd=tmp_path)
    assert result.exit_code == 0, result.stderr
