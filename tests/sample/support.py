"""Helpers for `k3diff sample` tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_support import CliResult, run_k3diff


def sample(*args: str | Path) -> CliResult:
    """Run `k3diff sample ARGS`."""
    return run_k3diff("sample", *args)


def write_prompts(path: Path, records: list[dict[str, Any]]) -> Path:
    """A requests JSONL file."""
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def read_samples(out: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The header's run object and the sample lines of OUT/samples.jsonl."""
    lines = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    return lines[0]["run"], [line for line in lines[1:] if "schema" not in line]
