"""The `k3diff.logs/1` document: its writer, built from the frozen log-scan values, and its
typed reader (`read`: what the bundle reads of it)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from k3diff.documents.jsondoc import json_document
from k3diff.documents.logsparts import (
    Downgraded,
    SideTally,
    downgraded_json,
    read_downgraded,
    read_tallies,
    rule_count,
)
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
from k3diff.logs.rules import BUILTIN_RULES
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
        **downgraded_json(side.downgraded),
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
    message: str
    """The message, masked as `logs` matches it across runs (its `new` follows from it)."""
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
    texts: tuple[str, ...] = ()
    """Its examples' lines as logged (each cut at `matcher.TEXT_CAP` characters)."""
    places: tuple[tuple[str, int], ...] = ()
    """Each example's file and line."""


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
    rules: tuple[tuple[str, str, bool], ...] = ()
    """Each rule scanned for: name, severity, built in (`rules`)."""
    ignored: tuple[str, ...] = ()
    """The rules left out (`rerun.ignored`, and any built-in rule `rules` does not list)."""
    user_rules: tuple[tuple[str, str], ...] | None = None
    """The user's rules it ran with, name and severity (`rerun.rules`; None without `rerun`)."""
    tallies: Mapping[str, SideTally] = field(default_factory=dict)
    """Per side, its stated counts and the files it read (`k3diff.documents.logstally`)."""
    rule_counts: tuple[tuple[str, int, int, int], ...] = ()
    """Each rule's name, base and patch matches and distinct messages new on the patch."""
    downgraded: Mapping[str, Downgraded] = field(default_factory=dict)
    """Per side, the error lines a user's warning rule counted as warnings (records76)."""


def _finding(fields: Fields) -> LogsFinding:
    return LogsFinding(
        side=fields.string("side", SIDES),
        rule=fields.string("rule"),
        message=fields.string("message"),
        severity=fields.string("severity", words(Severity)),
        count=fields.integer("count"),
        new=fields.optional_boolean("new"),
        consequence_of=fields.object("consequence_of").string("rule")
        if fields.has("consequence_of")
        else None,
        first=next(iter(places := _places(fields)), None),
        texts=fields.each("examples", lambda e: e.string("text")),
        places=places,
    )


def _places(fields: Fields) -> tuple[tuple[str, int], ...]:
    return fields.each("examples", lambda e: (e.string("file"), e.integer("line")))


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
        # Every document lists its rules (the schema requires them; review75f: one whose
        # `rules` was removed had its findings' severities checked against nothing)
        rules=(rules := fields.each("rules", _rule)),
        ignored=_ignored(fields.optional_object("rerun"), rules),
        user_rules=_user_rules(fields.optional_object("rerun")),
        tallies=read_tallies(fields),
        rule_counts=fields.each("rules", rule_count),
        downgraded=read_downgraded(fields),
    )


def _rule(fields: Fields) -> tuple[str, str, bool]:
    severity = fields.string("severity", words(Severity))
    return fields.string("name"), severity, fields.boolean("builtin")


def _ignored(rerun: Fields | None, rules: Sequence[tuple[str, str, bool]]) -> tuple[str, ...]:
    """`rerun.ignored`, then each built-in rule its `rules` do not list (review75f: with
    `rerun.ignored` emptied, a scan that left out cuda-error was said to have scanned for all)."""
    said = rerun.strings("ignored") if rerun is not None and rerun.has("ignored") else ()
    listed = {name for name, _severity, _builtin in rules}
    return (*said, *(r.name for r in BUILTIN_RULES if r.name not in listed and r.name not in said))


def _user_rules(rerun: Fields | None) -> tuple[tuple[str, str], ...] | None:
    if rerun is None or not rerun.has("rules"):
        return None
    return rerun.each("rules", lambda r: (r.string("name"), r.string("severity", words(Severity))))


def ignored_sentence(ignored: Sequence[str]) -> str:
    """'rules ignored (--ignore-rule cuda-error): not scanned for': said wherever a verdict is
    (hunt75: an OK that left out the rule an error matched said nothing of it)."""
    return f"rules ignored ({' '.join(f'--ignore-rule {n}' for n in ignored)}): not scanned for"


def severity_problems(view: LogsDocument) -> list[str]:
    """Each built-in error rule listed as one, and each finding of its rule's severity: an
    error relabelled a warning fails nothing (hunt75: the patch's new CUDA error written as a
    warning, its counts and verdict edited to agree, passed the runtime-logs row)."""
    problems = [
        f"the built-in rule {name} is an error rule, listed as a {severity}"
        if builtin
        else f"the rule {name} is named as a built-in rule but listed as a user's"
        for name, severity, builtin in view.rules
        if BUILTIN_SEVERITIES.get(name) == Severity.ERROR.value
        and (severity != Severity.ERROR.value or not builtin)
    ]
    listed = {name: severity for name, severity, _builtin in view.rules}
    for f in view.findings:
        rule = listed.get(f.rule)
        if rule != f.severity:
            article = "an" if rule == Severity.ERROR.value else "a"
            of = "is not among its rules" if rule is None else f"is {article} {rule} rule"
            problems.append(f"the {f.side}'s {f.rule} finding is a {f.severity}, but its rule {of}")
    return problems[:3]


BUILTIN_SEVERITIES = {rule.name: rule.severity.value for rule in BUILTIN_RULES}
"""Each built-in rule's severity, by name."""


def novelty_problems(findings: Sequence[LogsFinding], shown: int = 3) -> list[str]:
    """Each patch finding's `new` against the base's findings: `logs` calls one new exactly when
    the base lists no finding of its rule and message (hunt75: a patch's CUDA error marked
    `new: false`, or its `new` removed, with nothing on the base to excuse it, the counts and
    verdict edited to agree, passed the bundle's runtime-logs row); the first `shown`."""
    base = {(f.rule, f.message) for f in findings if f.side == "base"}
    problems = []
    for f in findings:
        if f.side != "patch" or (f.new is True) == ((f.rule, f.message) not in base):
            continue
        said = "leaves out new" if f.new is None else f"says new: {str(f.new).lower()}"
        listed = "lists a finding" if f.new else "lists no finding"
        problems.append(
            f"the patch's {f.rule} finding {f.message[:120]!r} {said}, but the base {listed} "
            "of its rule and message"
        )
    if len(problems) > shown:
        problems[shown:] = [f"{len(problems) - shown:,} more such findings"]
    return problems


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
