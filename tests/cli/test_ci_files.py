"""The files CI users copy: `action.yml` (a composite GitHub Action) and
`.pre-commit-hooks.yaml`. Their commands are run here as the runner / pre-commit would run
them, against real wheels, with the k3diff of this checkout (the install step itself, a pip
install of the action's checkout, is what `make test` already does)."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import wheelkit
import yaml

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
SCHEMA = json.loads((ROOT / "tests/report/data/sarif-2.1.0.schema.json").read_text())
SO = wheelkit.elf_bytes(b"\x55\x48\x89\xe5" * 512)
SO_CHANGED = wheelkit.elf_bytes(b"\x31\xc0\xc3\x90" * 512)
TAG = "cp311-cp311-manylinux_2_17_x86_64"  # a tag PyPI takes (A141 holds linux_x86_64)


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    return {**env, **extra}


def _steps() -> dict[str, dict[str, Any]]:
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    return {step["id"]: step for step in action["runs"]["steps"] if "id" in step}


def _bash(script: str, env: dict[str, str], cwd: Path) -> int:
    return subprocess.run(["bash", "-e", "-c", script], env=env, cwd=cwd, check=False).returncode


def _pair(tmp_path: Path) -> tuple[Path, Path]:
    files = {"engine/__init__.py": b"x = 1\n", "engine/_C.so": SO}
    base = wheelkit.make_wheel(tmp_path / "base", "engine", "1.0", files, tag=TAG)
    patch = wheelkit.make_wheel(
        tmp_path / "patch", "engine", "1.0", {**files, "engine/_C.so": SO_CHANGED}, tag=TAG
    )
    return base, patch


def test_the_action_runs_the_command_writes_sarif_and_fails_the_job(tmp_path: Path) -> None:
    base, patch = _pair(tmp_path)
    steps = _steps()
    outputs = tmp_path / "github-output"
    outputs.write_text("")
    env = _env(
        GITHUB_OUTPUT=str(outputs),
        K3DIFF_ARGS=f"wheels {base} {patch} --no-file-hash",
        K3DIFF_SARIF=str(tmp_path / "k3diff.sarif"),
    )
    assert _bash(steps["run"]["run"], env, tmp_path) == 0  # the run step records, never hides
    assert outputs.read_text().strip() == "exit-code=1"
    document = json.loads((tmp_path / "k3diff.sarif").read_text())
    jsonschema.Draft4Validator(SCHEMA).validate(document)
    assert {r["ruleId"] for r in document["runs"][0]["results"]} >= {"W101"}
    verdict = steps["verdict"]["run"]
    assert _bash(verdict, _env(K3DIFF_EXIT="1"), tmp_path) == 1
    assert _bash(verdict, _env(K3DIFF_EXIT="0"), tmp_path) == 0
    assert _bash(verdict, _env(K3DIFF_EXIT=""), tmp_path) == 2  # never ran: not a pass


def test_the_action_passes_inputs_only_through_the_environment() -> None:
    for step in _steps().values():
        assert "${{" not in step.get("run", ""), step["id"]


def test_the_pre_commit_hook_audits_the_wheels_it_is_given(tmp_path: Path) -> None:
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook["language"] == "python" and hook["pass_filenames"] is True
    good, _ = _pair(tmp_path)
    bad = wheelkit.make_wheel(
        tmp_path / "bad",
        "tool",
        "1.0",
        {"tool/__init__.py": b"x = 1\n"},
        record_overrides={"tool/__init__.py": "tool/__init__.py,sha256=AAAA,6"},
    )
    entry = shlex.split(hook["entry"])
    run = subprocess.run([*entry, str(good)], env=_env(), capture_output=True, check=False)
    assert run.returncode == 0, run.stderr
    run = subprocess.run(
        [*entry, str(good), str(bad)], env=_env(), capture_output=True, check=False
    )
    assert run.returncode == 1
    assert re.search(hook["files"], bad.name) and not re.search(hook["files"], "setup.py")
