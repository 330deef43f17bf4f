"""A `.dist-info` directory named for another project or version than the wheel's filename.

pip 26 accepts a `.dist-info` whose normalised name only starts with the project's (`demo`
installs `demox-1.0.dist-info`; `py` would install `pytest-8.0.dist-info`, over pytest's own
metadata and entry points) and never compares its version (`demo-9.9.dist-info` in a 1.0
wheel). pip is the oracle that it installs; both commands fail it as W605 (the filename
contradicts the wheel's metadata), naming the directory. The directory is read as pip reads
it (name before the first '-', version after it), and pip's own reading is the oracle."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_support import run_k3diff

from wheel.pipinstall import pip_install
from wheel.rawwheel import write_wheel

FILES = {"demo/__init__.py": b"VALUE = 1\n"}


def _w605(*args: str | Path) -> tuple[int, list[str]]:
    result = run_k3diff(*args, "--format", "json")
    assert result.exit_code in (0, 1), result.stderr
    report = json.loads(result.stdout)
    found = report["artifacts"][0]["findings"] if "artifacts" in report else report["findings"]
    return result.exit_code, [f["detail"] for f in found if f["code"] == "W605"]


@pytest.mark.parametrize(
    ("dist_info", "words"),
    [
        ("demox-1.0.dist-info", "project demox"),
        ("demo_tools-1.0.dist-info", "project demo_tools"),
        ("demo-9.9.dist-info", "version 9.9"),
    ],
)
def test_a_dist_info_of_another_project_or_version_fails_both_commands(
    tmp_path: Path, dist_info: str, words: str
) -> None:
    wheel = write_wheel(tmp_path / "w", "demo", "1.0", FILES, dist_info=dist_info)
    installed = pip_install(wheel, tmp_path / "target")
    assert installed.ok, installed.output  # pip installs it: not W616
    assert any(path.startswith(f"site-packages/{dist_info}/") for path in installed.tree)
    code, details = _w605("audit", wheel)
    assert code == 1 and any(dist_info in d and words in d for d in details), details
    base = write_wheel(tmp_path / "b", "demo", "0.9", FILES)
    code, details = _w605("wheels", base, wheel)
    assert code == 1 and any(dist_info in d and words in d for d in details), details


@pytest.mark.parametrize(
    "dist_info", ["demo-1.0.dist-info", "Demo-1.0.dist-info", "demo-1.0.0.dist-info"]
)
def test_the_projects_own_dist_info_passes(tmp_path: Path, dist_info: str) -> None:
    """Normalised name and PEP 440 version equal: `Demo` is `demo`, `1.0.0` is `1.0` (no W605;
    but PyPI reads `demo-1.0.dist-info/WHEEL` at that literal path: A141, hunt80)."""
    wheel = write_wheel(tmp_path / "w", "demo", "1.0", FILES, dist_info=dist_info)
    assert _w605("audit", wheel) == (int(dist_info != "demo-1.0.dist-info"), [])


def _pip_reads(wheel: Path, target: Path) -> tuple[str, str] | None:
    """The (project, version) pip 26 says it installed ("Successfully installed NAME-VERSION",
    the installed directory read back by pip's own metadata backend), or None when it fails."""
    command = [
        sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--no-compile",
        "--disable-pip-version-check", "--target", str(target), str(wheel),
    ]  # fmt: skip
    env = {**os.environ, "PIP_NO_INPUT": "1", "PIP_CONFIG_FILE": os.devnull}
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
    if done.returncode != 0:
        return None
    line = next(x for x in done.stdout.splitlines() if x.startswith("Successfully installed "))
    name, _, version = line.removeprefix("Successfully installed ").strip().rpartition("-")
    return name, version


@pytest.mark.parametrize(
    ("filename_version", "dist_info", "w605"),
    [
        # hostile59 item 3: the spec-breaking build number in the directory's name. pip reads
        # the version after the name's first '-': `1.0-1`, which PEP 440 reads as 1.0.post1.
        ("1.0.post1", "demo-1.0-1.dist-info", False),  # pip installs demo 1.0.post1: the same
        ("1.0", "demo-1.0-1.dist-info", True),  # pip installs demo 1.0.post1, the filename 1.0
        ("1.0", "demo.dist-info", False),  # no '-': pip reads METADATA's name and version
        ("1.0", "demo-.dist-info", False),  # nothing after '-': pip reads METADATA's version
        ("1.0", "demo-1.0-1-2.dist-info", True),  # '1.0-1-2' is no PEP 440 version: pip fails
        ("1.0+x", "demo-1.0.dist-info", True),  # pip installs demo 1.0, not the local 1.0+x
        ("1!1.0", "demo-1!1.0.dist-info", False),  # an epoch, as the filename's
        ("1.0", "demo-1.0_1.dist-info", True),  # no PEP 440 version: pip fails
    ],
)
def test_w605_holds_the_dist_info_to_what_pip_installs(
    tmp_path: Path, filename_version: str, dist_info: str, w605: bool
) -> None:
    """The oracle is pip 26's own reading of the installed directory: W605 fires exactly when
    it differs from the filename's project and version, or when pip cannot read it."""
    wheel = write_wheel(tmp_path / "w", "demo", filename_version, FILES, dist_info=dist_info)
    read = _pip_reads(wheel, tmp_path / "target")
    assert (read != ("demo", filename_version)) is w605, read
    code, details = _w605("audit", wheel)
    literal = dist_info == f"demo-{filename_version}.dist-info"  # else A141, PyPI refuses it
    assert (code, bool(details)) == (int(w605 or not literal), w605), details
    assert all(dist_info in d for d in details), details
    base = write_wheel(tmp_path / "b", "demo", "0.9", FILES)
    code, details = _w605("wheels", base, wheel)
    assert bool(details) is w605, details


def test_a_build_number_in_the_dist_info_says_the_version_pip_reads(tmp_path: Path) -> None:
    wheel = write_wheel(tmp_path / "w", "demo", "1.0", FILES, dist_info="demo-1.0-1.dist-info")
    _, details = _w605("audit", wheel)
    assert details == [
        "the .dist-info directory demo-1.0-1.dist-info says version 1.0-1 (pip reads "
        "1.0.post1), the filename 1.0: pip installs it, and knows the installed project by "
        "that other version"
    ]


def test_a_dist_info_whose_name_holds_a_dash_fails_as_pip_fails(tmp_path: Path) -> None:
    """`my-tool-1.0.dist-info` in `my_tool-1.0-….whl`: pip reads project `my`, version
    `tool-1.0`, and fails on it (InvalidVersion); split at the last '-' it read as the
    project's own directory and the wheel passed."""
    files = {"my_tool/__init__.py": b"VALUE = 1\n"}
    wheel = write_wheel(tmp_path / "w", "my_tool", "1.0", files, dist_info="my-tool-1.0.dist-info")
    assert _pip_reads(wheel, tmp_path / "target") is None
    code, details = _w605("audit", wheel)
    assert code == 1 and len(details) == 1, details
    assert "says version 'tool-1.0'" in details[0] and "InvalidVersion" in details[0]
