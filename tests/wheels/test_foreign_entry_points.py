"""Entry points in another distribution's metadata that the patch installs.

`importlib.metadata` takes every directory at the top of site-packages whose name ends in
`.dist-info` or `.egg-info`, in any case, for a distribution, and plugin hosts load their
groups from all of them (pytest's `pytest11`, vLLM's `vllm.general_plugins`): a wheel that
installs `other-1.0.DIST-INFO/entry_points.txt` (pip takes only the lower-case `.dist-info`
for its own), `other.egg-info/` or `.data/purelib/other-1.0.dist-info/` adds code that runs at
every start of such a host. Each of its entry points is an execution surface (W704), failing
as the wheel's own new entry points do; pip 26 installs all three. So is one deeper down (a
`.pth` path line or the package's own code puts its parent on `sys.path`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import run_json, run_k3diff
from wheel.pipinstall import pip_install
from wheel.rawwheel import write_wheel

FILES = {"engine/__init__.py": b"", "engine/evil.py": b"print('runs')\n"}
POINTS = b"[pytest11]\nevil = engine.evil\n"
META = b"Metadata-Version: 2.1\nName: other\nVersion: 1.0\n"


@pytest.mark.parametrize(
    "directory",
    [
        "other-1.0.DIST-INFO",
        "other.egg-info",
        "engine-2.0.data/purelib/other-1.0.dist-info",
        "engine/vendored/other-1.0.dist-info",  # a distribution once a .pth puts its parent on
    ],
)
def test_entry_points_of_another_distribution_are_a_surface(tmp_path: Path, directory: str) -> None:
    base = write_wheel(tmp_path / "b", "engine", "1.0", FILES)
    added = {f"{directory}/METADATA": META, f"{directory}/entry_points.txt": POINTS}
    patch = write_wheel(tmp_path / "p", "engine", "2.0", {**FILES, **added})
    installed = pip_install(patch, tmp_path / "target")
    assert installed.ok, installed.output
    code, report = run_json("wheels", base, patch)
    assert code == 1
    (w704,) = [f for f in report["findings"] if f["code"] == "W704"]
    assert w704["path"] == f"{directory}/entry_points.txt" and w704["severity"] == "error"
    assert "pytest11" in w704["detail"] and "engine.evil" in w704["detail"]
    same = write_wheel(tmp_path / "s", "engine", "1.0", {**FILES, **added})
    assert run_k3diff("wheels", same, patch).exit_code == 0  # the base had it: unchanged


def test_another_distributions_metadata_without_entry_points_runs_nothing(tmp_path: Path) -> None:
    base = write_wheel(tmp_path / "b", "engine", "1.0", FILES)
    patch = write_wheel(tmp_path / "p", "engine", "2.0", {**FILES, "other.egg-info/PKG-INFO": META})
    code, report = run_json("wheels", base, patch)
    assert code == 0, report["findings"]
    assert not [f for f in report["findings"] if f["code"] == "W704"]


def test_a_vendored_distribution_upgraded_with_the_same_entry_points_is_unchanged(
    tmp_path: Path,
) -> None:
    """The key leaves the directory's version out: `other-1.0` -> `other-1.1` with the same
    points changes no surface; a point whose object changed is W704."""
    old = "engine/vendored/other-1.0.dist-info"
    new = "engine/vendored/other-1.1.dist-info"
    base = write_wheel(
        tmp_path / "b", "engine", "1.0", {**FILES, f"{old}/entry_points.txt": POINTS}
    )
    same = {**FILES, f"{new}/entry_points.txt": POINTS}
    assert (
        run_k3diff("wheels", base, write_wheel(tmp_path / "p", "engine", "2.0", same)).exit_code
        == 0
    )
    moved = {**FILES, f"{new}/entry_points.txt": POINTS.replace(b"engine.evil", b"engine.other")}
    code, report = run_json("wheels", base, write_wheel(tmp_path / "q", "engine", "2.0", moved))
    assert code == 1
    (w704,) = [f for f in report["findings"] if f["code"] == "W704"]
    assert w704["detail"].startswith("changed: ") and "engine.other" in w704["detail"]
