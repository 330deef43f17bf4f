"""Helpers shared by test modules (kept out of conftest so they can be imported by name)."""

from __future__ import annotations

import json
import os
from typing import Any

from conftest import run_k3diff


def run_json(*args: str | os.PathLike[str]) -> tuple[int, dict[str, Any]]:
    """Run k3diff with `--format json` and return (exit code, parsed report)."""
    result = run_k3diff(*args, "--format", "json")
    assert result.exit_code in (0, 1), result.stderr
    assert result.stderr == "", result.stderr
    return result.exit_code, json.loads(result.stdout)
