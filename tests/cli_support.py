"""Running the k3diff CLI from tests, and checking golden outputs (importable by name: pytest's
`pythonpath` puts tests/ and scripts/ on the path).

`run_k3diff` calls `k3diff.cli.main(argv)` in-process with stdout and stderr captured: the same
code path as the console script minus the interpreter start. `run_k3diff_process` runs
`python -m k3diff` in a subprocess for the few smoke tests that prove the real entry point.

Golden files live in ``golden/<group>/<case>.{stdout,stderr,exit}``. Regenerate them with
``make golden`` (``pytest -m golden --update-golden``) and review the diff before committing.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from k3diff.cli import main

ROOT = Path(__file__).resolve().parent.parent
GOLDEN_DIR = ROOT / "golden"


@dataclass(frozen=True)
class CliResult:
    """What one k3diff run did."""

    exit_code: int
    stdout: str
    stderr: str


@contextlib.contextmanager
def _columns(width: str) -> Iterator[None]:
    saved = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = width
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = saved


def run_k3diff(*args: str | os.PathLike[str], cwd: Path | None = None) -> CliResult:
    """Run `k3diff ARGS` in-process as a user would, and capture everything."""
    stdout, stderr = io.StringIO(), io.StringIO()
    with (
        contextlib.chdir(cwd or Path.cwd()),
        contextlib.redirect_stdout(stdout),
        contextlib.redirect_stderr(stderr),
        _columns("100"),
    ):
        code = main([str(arg) for arg in args])
    return CliResult(code, stdout.getvalue(), stderr.getvalue())


def run_k3diff_process(*args: str | os.PathLike[str], cwd: Path | None = None) -> CliResult:
    """Run ``python -m k3diff ARGS`` in a subprocess (smoke tests of the real entry point)."""
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


def run_json(*args: str | os.PathLike[str]) -> tuple[int, dict[str, Any]]:
    """Run k3diff with `--format json` and return (exit code, parsed report)."""
    result = run_k3diff(*args, "--format", "json")
    assert result.exit_code in (0, 1), result.stderr
    assert result.stderr == "", result.stderr
    return result.exit_code, json.loads(result.stdout)


def run_telemetry(*args: str | os.PathLike[str]) -> tuple[int, dict[str, Any], str]:
    """`k3diff telemetry ARGS` as text and as JSON: the same exit code (0 or 1) both ways, the
    JSON valid against the telemetry schema; (exit code, document, text)."""
    import jsonschema

    from k3diff.documents.catalog import load_schema

    text = run_k3diff("telemetry", *args)
    result = run_k3diff("telemetry", *args, "--format", "json")
    assert result.exit_code in (0, 1), result.stderr
    assert text.exit_code == result.exit_code
    doc: dict[str, Any] = json.loads(result.stdout)
    jsonschema.validate(doc, load_schema("telemetry"), cls=jsonschema.Draft202012Validator)
    return result.exit_code, doc, text.stdout


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


HOSTILE = "two  spaces\ta tab\na newline\x1ban escape\udcffa byte not UTF-8"
"""A recorded value a printed command must carry as it is: what a one-line output folds (a
run of spaces, a tab, a newline), escapes (ESC) or cannot print (a file name's byte that is not
UTF-8, which Python holds as a lone surrogate)."""


def pasted(command: str) -> list[str]:
    """The words bash reads from `command` pasted as printed (a name's bytes that are not UTF-8
    as Python's surrogates, as `sys.argv` holds them)."""
    done = subprocess.run(
        ["bash", "-c", f"printf '%s\\0' {command}"], capture_output=True, check=True
    )
    return done.stdout.decode("utf-8", "surrogateescape").split("\0")[:-1]


def twin(path: str | os.PathLike[str], cwd: Path | None = None) -> str:
    """A copy of `path` (relative to `cwd`) beside it, by the name `.twin` adds: one file given
    as both sides of `responses` is refused (hunt72b), so a test of how one file reads gives it
    and its copy."""
    source = Path(path) if cwd is None else cwd / path
    copy = source.with_name(f"{source.stem}.twin{source.suffix}")
    shutil.copyfile(source, copy)
    return str(copy if cwd is None else copy.relative_to(cwd))
