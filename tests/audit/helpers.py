"""Running `k3diff audit` and reading its JSON report."""

from __future__ import annotations

import json
import os
from collections import Counter
from typing import Any

from cli_support import run_k3diff


def audit_json(*args: str | os.PathLike[str]) -> tuple[int, dict[str, Any]]:
    """Run `k3diff audit ARGS --format json`: (exit code, report). Fails on any stderr output."""
    result = run_k3diff("audit", *args, "--format", "json")
    assert result.exit_code in (0, 1), result.stderr
    assert result.stderr == "", result.stderr
    return result.exit_code, json.loads(result.stdout)


def all_findings(report: dict[str, Any]) -> list[dict[str, Any]]:
    """Every finding: each artifact's, then the run's own (the manifest check)."""
    found = [f for artifact in report["artifacts"] for f in artifact["findings"]]
    return found + list(report["findings"])


def codes(report: dict[str, Any]) -> Counter[str]:
    """How many findings of each code the report holds."""
    return Counter(finding["code"] for finding in all_findings(report))


def entries_with(report: dict[str, Any], code: str) -> set[str]:
    """The entries findings of `code` are about."""
    return {f["path"] for f in all_findings(report) if f["code"] == code}
