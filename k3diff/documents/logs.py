"""The `k3diff.logs/1` document: its writer, built from the frozen log-scan values, and its
typed reader (`read`: what the bundle reads of it)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from k3diff.documents.jsondoc import json_document
from k3diff.fields import Fields, Within, words
from k3diff.ids import LOGS as SCHEMA
from k3diff.logs.model import (
    FileScan,
    Location,
    LogFinding,
    LogsReport,
    Settings,
    Severity,
    SideScan,
)
from k3diff.sample.names import SIDES


def _finding_json(finding: LogFinding, side: str, new: bool | None) -> dict[str, Any]:
    data: dict[str, Any] = {
        "side": side,
        "rule": finding.rule,
        "severity": finding.severity.value,
        "message": finding.message,
        "count": finding.count,
        "examples": [_example_json(e) for e in finding.examples],
    }
    if new is not None:
        data["new"] = new
    if finding.consequence_of is not None:  # written only where there is one (logs64)
        rule, message = finding.consequence_of
        data["consequence_of"] = {"rule": rule, "message": message}
    return data


def _example_json(where: Location) -> dict[str, Any]:
    data: dict[str, Any] = {"file": where.file, "line": where.line, "text": where.text}
    if where.context:  # a traceback's: written only where there is one (polish63)
        data["context"] = [{"role": c.role, "line": c.line, "text": c.text} for c in where.context]
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
    digest = side.digest
    tie: dict[str, Any] = {} if digest is None else {"sha256": digest[0], "size": digest[1]}
    if side.read is not None:  # a directory or several files (rerun63)
        tie["read"] = [{"name": n, "sha256": h, "size": b} for n, h, b in side.read]
    return {
        "paths": list(side.paths),
        "files": len(side.files),
        "lines": side.lines,
        "skipped": [str(s) for s in side.skipped],
        "error_lines": errors,
        "warning_lines": sum(f.count for f in side.findings) - errors,
        "distinct": len(side.findings),
        "overflow": side.overflow,
        **tie,
        # Written only where there is one (logs64), as `context` is
        **(
            {"links": [{"name": k.name, "target": k.target} for k in side.links]}
            if side.links
            else {}
        ),
    }


def rerun_json(settings: Settings) -> dict[str, Any]:
    """Every setting that changes the document: what `report` runs `logs` again with."""
    return {
        "rules": [
            {"name": name, "severity": severity.value, "pattern": pattern}
            for name, severity, pattern in settings.rules
        ],
        "ignored": list(settings.ignored),
        "strict": settings.strict,
        "max_inflated_bytes": settings.max_inflated,
        "max_seconds": settings.max_seconds,
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
        "rerun": rerun_json(report.settings),
    }


def write(report: LogsReport) -> str:
    """The document as JSON text (`k3diff logs --format json`)."""
    return json_document(logs_document(report), per_line=("findings", "files"))


# The typed reader ---------------------------------------------------------------------------


@dataclass(frozen=True)
class LogsFinding:
    """One finding of `findings` (what the bundle counts)."""

    side: str
    """base or patch."""
    rule: str
    """The rule that matched (what the bundle names of a failing row)."""
    severity: str
    """error or warning."""
    count: int
    """Lines the finding stands for."""
    new: bool | None
    """On the patch: whether the base lacks it (None on the base)."""
    consequence_of: str | None = None
    """The rule of the crash it follows from (an engine dead of it; logs64), else None."""
    first: tuple[str, int] | None = None
    """Its first example's file and line (what the logs report lists it at), None without."""


@dataclass(frozen=True)
class LogsDocument:
    """A `k3diff.logs/1` document, typed: what the bundle reads of it."""

    findings: tuple[LogsFinding, ...]
    """Every finding, the base's then the patch's."""
    lines: Mapping[str, int]
    """Lines scanned, per side."""
    strict: bool
    """The scan was `--strict`: any error finding fails it."""
    summary: Mapping[str, int]
    """The document's counts (`new_on_patch`, `new_errors_on_patch`, `gone_on_patch`)."""
    ok: bool
    """The document's verdict."""
    exit_code: int
    """The exit code `logs` returned."""
    failures: tuple[str, ...] = ()
    """Why the verdict fails, as it says (`verdict.failures`; review63b)."""
    skipped: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Per side, the entries found and not read as logs (links, FIFOs, devices, binary files;
    review63b: the bundle names them)."""


def _finding(fields: Fields) -> LogsFinding:
    return LogsFinding(
        side=fields.string("side", SIDES),
        rule=fields.string("rule"),
        severity=fields.string("severity", words(Severity)),
        count=fields.integer("count"),
        new=fields.optional_boolean("new"),
        consequence_of=fields.object("consequence_of").string("rule")
        if fields.has("consequence_of")
        else None,
        first=next(
            iter(fields.each("examples", lambda e: (e.string("file"), e.integer("line")))),
            None,
        ),
    )


def read(body: object, name: str) -> LogsDocument:
    """The typed view of a `k3diff.logs/1` document; InputError naming the file and the field
    when one is missing or of another type."""
    fields = Fields(body, name)
    verdict = fields.object("verdict")
    _held(fields)
    return LogsDocument(
        findings=fields.each("findings", _finding),
        lines={side: fields.object(side).integer("lines") for side in ("base", "patch")},
        strict=verdict.boolean("strict"),
        summary=fields.counts("summary"),
        ok=verdict.boolean("ok"),
        exit_code=verdict.integer("exit_code"),
        failures=verdict.strings("failures") if verdict.has("failures") else (),
        skipped={
            side: fields.object(side).strings("skipped")
            for side in ("base", "patch")
            if fields.object(side).has("skipped")
        },
    )


def _held(fields: Fields) -> None:
    """What no view keeps, held to the ranges the schema states (readers72: a side's `size` of
    -1 or a `rerun.max_seconds` of 0 was read, which the schema refuses): the bytes and SHA-256 of
    each file read, and the settings `rerun` records (where written: none before stop 62)."""
    for side in ("base", "patch"):
        info = fields.object(side)
        info.optional_integer("size")
        info.optional_sha256("sha256")
        for entry in info.objects("read") if info.has("read") else ():
            entry.integer("size")
            entry.sha256("sha256")
    rerun = fields.optional_object("rerun")
    if rerun is not None:
        rerun.optional_integer("max_inflated_bytes")
        rerun.optional_number("max_seconds", Within(0, open_low=True))
        for rule in rerun.objects("rules") if rerun.has("rules") else ():
            rule.string("severity", words(Severity))
