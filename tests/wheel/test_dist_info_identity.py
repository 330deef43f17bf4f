"""A `.dist-info` directory named for another project or version than the wheel's filename.

pip 26 accepts a `.dist-info` whose normalised name only starts with the project's (`demo`
installs `demox-1.0.dist-info`; `py` would install `pytest-8.0.dist-info`, over pytest's own
metadata and entry points) and never compares its version (`demo-9.9.dist-info` in a 1.0
wheel). pip is the oracle that it installs; both commands fail it as W605 (the filename
contradicts the wheel's metadata), naming the directory."""

from __future__ import annotations

import json
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
    """Normalised name and PEP 440 version equal: `Demo` is `demo`, `1.0.0` is `1.0`."""
    wheel = write_wheel(tmp_path / "w", "demo", "1.0", FILES, dist_info=dist_info)
    assert _w605("audit", wheel) == (0, [])
