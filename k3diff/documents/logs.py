"""The `k3diff.logs/1` document, built from the frozen log-scan values, and its writer."""

from __future__ import annotations

from typing import Any

from k3diff.documents.ids import LOGS as SCHEMA
from k3diff.documents.jsondoc import json_document
from k3diff.logs.model import FileScan, LogFinding, LogsReport, SideScan


def _finding_json(finding: LogFinding, side: str, new: bool | None) -> dict[str, Any]:
    data: dict[str, Any] = {
        "side": side,
        "rule": finding.rule,
        "severity": finding.severity.value,
        "message": finding.message,
        "count": finding.count,
        "examples": [{"file": e.file, "line": e.line, "text": e.text} for e in finding.examples],
    }
    if new is not None:
        data["new"] = new
    return data


def _file_json(scan: FileScan, side: str) -> dict[str, Any]:
    return {
        "side": side,
        "path": scan.path,
        "lines": scan.lines,
        "size": scan.size,
        "compressed": scan.compressed,
        "server_starts": scan.starts,
        "long_lines": scan.long_lines,
    }


def _side_json(side: SideScan) -> dict[str, Any]:
    errors = sum(f.count for f in side.findings if f.severity.value == "error")
    return {
        "paths": list(side.paths),
        "files": len(side.files),
        "lines": side.lines,
        "skipped": list(side.skipped),
        "error_lines": errors,
        "warning_lines": sum(f.count for f in side.findings) - errors,
        "distinct": len(side.findings),
        "overflow": side.overflow,
    }


def logs_document(report: LogsReport) -> dict[str, Any]:
    """The `k3diff.logs/1` document."""
    new = {(f.rule, f.message) for f in report.new_on_patch}
    code = int(report.exit_code)
    return {
        "schema": SCHEMA,
        "base": _side_json(report.base),
        "patch": _side_json(report.patch),
        "rules": [
            {
                "name": r.name,
                "severity": r.severity.value,
                "builtin": r.builtin,
                "pattern": r.pattern,
                "base": r.base,
                "patch": r.patch,
                "new_on_patch": r.new_on_patch,
            }
            for r in report.rules
        ],
        "summary": {
            "new_on_patch": len(report.new_on_patch),
            "new_errors_on_patch": sum(
                1 for f in report.new_on_patch if f.severity.value == "error"
            ),
            "gone_on_patch": len(report.gone_on_patch),
        },
        "files": [_file_json(f, "base") for f in report.base.files]
        + [_file_json(f, "patch") for f in report.patch.files],
        "findings": [_finding_json(f, "base", None) for f in report.base.findings]
        + [_finding_json(f, "patch", (f.rule, f.message) in new) for f in report.patch.findings],
        "verdict": {
            "ok": code == 0,
            "exit_code": code,
            "strict": report.strict,
            "failures": list(report.failures),
        },
    }


def write(report: LogsReport) -> str:
    """The document as JSON text (`k3diff logs --format json`)."""
    return json_document(logs_document(report), per_line=("findings", "files"))
