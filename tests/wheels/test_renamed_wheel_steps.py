"""`wheels`' step for a W616 that refuses a wheel's file name is `audit`'s (`refusedsteps.
bad_name`): rename the file (review74f: `wheels` and the bundle said to rebuild the wheel
without the entries named, and named none, after audit74 gave `audit` the rename step)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import wheelkit
from cli_support import run_k3diff

FILES = {"engine/__init__.py": b"VERSION = '1.0'\n"}
WHEEL = "engine-1.0-py3-none-any.whl"
REBUILD = "rebuild it without it"


def _steps(stdout: str) -> list[str]:
    """The lines of the text report's "Next steps" section, the verdict line left out."""
    said = stdout.split("\nNext steps\n", 1)[1].splitlines()[:-1]
    return [line for line in said if line]


def _only_step(*args: str, cwd: Path) -> str:
    """The one next step of a failing `wheels` run: a rename, no rebuild."""
    result = run_k3diff("wheels", *args, cwd=cwd)
    assert result.exit_code == 1
    steps = _steps(result.stdout)
    assert len(steps) == 1 and REBUILD not in steps[0], steps
    return steps[0]


def test_a_patch_named_in_upper_case_is_renamed_and_then_passes(tmp_path: Path) -> None:
    (tmp_path / "base").mkdir()
    wheelkit.make_wheel(tmp_path / "base", "engine", "1.0", FILES)
    odd = tmp_path / "it's $(touch x) dir"  # quoted for the shell
    odd.mkdir()
    wheelkit.make_wheel(odd, "engine", "1.0", FILES, filename="engine-1.0-py3-none-any.WHL")
    step = _only_step(f"base/{WHEEL}", f"{odd.name}/engine-1.0-py3-none-any.WHL", cwd=tmp_path)
    assert step.startswith(
        "  1 × W616 (patch wheel): no waiver accepts it (pip refuses the wheel by its file "
        "name, the detail says why): rename it with '.whl' in lower case (mv -n "
    )
    assert step.endswith("), then compare it again")
    found = re.search(r"\((mv -n .+?)\), then", step)
    assert found is not None
    subprocess.run(["bash", "-c", found.group(1)], cwd=tmp_path, check=True)
    assert not (tmp_path / "x").exists()
    again = run_k3diff("wheels", f"base/{WHEEL}", f"{odd.name}/{WHEEL}", cwd=tmp_path)
    assert again.exit_code == 0, again.stdout


def test_a_build_number_pip_refuses_says_to_rename_the_base(tmp_path: Path) -> None:
    bad = "engine-1.0-x-py3-none-any.whl"
    (tmp_path / "p").mkdir()
    wheelkit.make_wheel(tmp_path, "engine", "1.0", FILES, filename=bad)
    wheelkit.make_wheel(tmp_path / "p", "engine", "1.0", FILES)
    assert _only_step(bad, f"p/{WHEEL}", cwd=tmp_path).startswith(
        "  1 × W616 (base wheel): no waiver accepts it (pip refuses the wheel by its file name, "
        "the detail says why): rename it to the name its build wrote, "
        "NAME-VERSION[-BUILD]-PYTHON-ABI-PLATFORM.whl: the project and version its METADATA "
        f"gives (unzip -p {bad} '*.dist-info/METADATA'"
    )


def test_the_bundle_says_the_same_step(tmp_path: Path) -> None:
    (tmp_path / "p").mkdir()
    wheelkit.make_wheel(tmp_path, "engine", "1.0", FILES)
    wheelkit.make_wheel(
        tmp_path / "p", "engine", "1.0", FILES, filename="engine-1.0-py3-none-any.WHL"
    )
    args = ("wheels", WHEEL, "p/engine-1.0-py3-none-any.WHL", "--format", "json", "-o", "w.json")
    text = _steps(run_k3diff(*args[:3], cwd=tmp_path).stdout)
    assert run_k3diff(*args, cwd=tmp_path).exit_code == 1
    assert run_k3diff("report", "w.json", "--out", "bundle", cwd=tmp_path).exit_code == 1
    summary = json.loads((tmp_path / "bundle" / "summary.json").read_text())
    steps = [step["step"] for step in summary["next_steps"]]
    assert steps == [text[0].strip()], steps
    assert "rename it with '.whl' in lower case (mv -n " in steps[0]
