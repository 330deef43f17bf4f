"""Shared fixtures: running the real CLI in a subprocess and checking golden outputs.

Golden files live in ``golden/<group>/<case>.{stdout,stderr,exit}``. Regenerate them with
``make golden`` (which runs ``pytest --update-golden``) and review the diff before committing.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GOLDEN_DIR = ROOT / "golden"
# Fixture builders (wheelkit) live in scripts/ so the demo and benchmarks share them.
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "tests"))


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="Rewrite golden/ files from the current output instead of comparing.",
    )


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Stop tests/integration's inference server once, in the process that owns the run (the
    xdist controller, or pytest itself), after every worker is done with it."""
    if hasattr(session.config, "workerinput"):
        return
    from integration.serve import run_dir, stop_shared_server

    timings = stop_shared_server(run_dir(session.config._tmp_path_factory.getbasetemp()))
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if timings is not None and reporter is not None:
        shown = ", ".join(f"{name} {seconds:.1f}s" for name, seconds in timings.items())
        reporter.ensure_newline()
        reporter.write_line(f"inference server (tests/integration): {shown}")


@dataclass(frozen=True)
class CliResult:
    """What one k3diff process did."""

    exit_code: int
    stdout: str
    stderr: str


def run_k3diff(*args: str | os.PathLike[str], cwd: Path | None = None) -> CliResult:
    """Run ``python -m k3diff ARGS`` as a user would, and capture everything."""
    env = dict(os.environ)
    env["COLUMNS"] = "100"
    env.pop("FORCE_COLOR", None)
    proc = subprocess.run(
        [sys.executable, "-m", "k3diff", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    return CliResult(proc.returncode, proc.stdout, proc.stderr)


@pytest.fixture
def k3diff_cli() -> type[CliResult]:
    """Gives tests ``k3diff_cli(*args, cwd=...)``; see `run_k3diff`."""
    return run_k3diff  # type: ignore[return-value]


class Golden:
    """Compares a CLI result with ``golden/<group>/<case>.*`` or rewrites them on request."""

    def __init__(self, update: bool) -> None:
        self.update = update

    def check(self, group: str, case: str, result: CliResult) -> None:
        base = GOLDEN_DIR / group
        parts = {
            "stdout": result.stdout,
            "stderr": result.stderr,
            "exit": f"{result.exit_code}\n",
        }
        if self.update:
            base.mkdir(parents=True, exist_ok=True)
            for suffix, text in parts.items():
                (base / f"{case}.{suffix}").write_text(text, encoding="utf-8")
            return
        for suffix, text in parts.items():
            path = base / f"{case}.{suffix}"
            assert path.exists(), f"missing golden file {path}; run `make golden`"
            expected = path.read_text(encoding="utf-8")
            assert text == expected, f"{path} differs from the output; run `make golden` and review"


@pytest.fixture
def golden(request: pytest.FixtureRequest) -> Golden:
    """Gives tests ``golden.check(group, case, result)``."""
    return Golden(bool(request.config.getoption("--update-golden")))
