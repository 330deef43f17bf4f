"""Every reader checks a document against itself: its counts and its verdict are recomputed from
its own records, and a document whose summary disagrees with them is refused (exit 2), naming
each field and both numbers.

Refusing, rather than silently using the recomputed numbers, is deliberate: a summary that
disagrees with its records was edited or is corrupt, and a bundle that quietly repaired it would
hide that from the reviewer who signs it. Verdicts are judged again by the rule of the command
that wrote them (`k3diff.documents.verdicts`, `k3diff.exitcodes.verdict_problems`), in both
directions: a verdict that does not follow from the document's records was edited, whichever
way it points. The logs document's verdict is checked in the passing direction only: its
failures come from log rules the document does not hold.

The checks read the typed views (`k3diff.documents.<document>.read`), so every field they
recount has been read with its type first. The comparison's check lives beside its reader
(`k3diff.responses.doccheck.check_responses`), below `triage`, which reads comparisons too.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from k3diff.documents.audit import AuditDocument
from k3diff.documents.auditnames import name_problems
from k3diff.documents.findingview import FindingView
from k3diff.documents.logs import LogsDocument, novelty_problems, severity_problems
from k3diff.documents.logsclaims import rule_list_problems, warning_line_problems
from k3diff.documents.logsdowngrade import downgrade_problems
from k3diff.documents.logstally import bound_problems, tally_problems
from k3diff.documents.sourcecheck import source_problems, waiver_list_problems
from k3diff.documents.surfacecauses import (
    relabel_problems,
    shadowing_problems,
    unreported_surfaces,
)
from k3diff.documents.telemetry import TelemetryDocument
from k3diff.documents.telemetrygate import gate_problems
from k3diff.documents.telemetryrates import position_test_problems, rate_problems
from k3diff.documents.telemetryrerun import rerun_problems
from k3diff.documents.triage import TriageDocument
from k3diff.documents.triagecheck import check_triage, compare_summary
from k3diff.documents.verdicts import (
    audit_verdict_problems,
    wheels_verdict_problems,
    wheelset_verdict_problems,
)
from k3diff.documents.wheelset import WheelsetDocument
from k3diff.documents.wheelsview import WheelsDocument
from k3diff.exitcodes import verdict_problems
from k3diff.output import plural
from k3diff.responses.doccheck import check_responses, refuse_disagreement
from k3diff.responses.document import ResponsesDocument
from k3diff.sample.names import Mode
from k3diff.telemetry.model import Expectation
from k3diff.wheel.kinds import EntryKind, kind_from_path

WHEEL_STATUSES = ("identical", "changed", "missing", "added")


class _Verdict(Protocol):
    @property
    def ok(self) -> bool: ...
    @property
    def exit_code(self) -> int: ...


def _verdict_ok(view: _Verdict) -> bool:
    return view.ok and view.exit_code == 0


def _wheels_problems(view: WheelsDocument, where: str = "") -> list[str]:
    problems: list[str] = []
    for kind, stated in view.summary.items():
        mine = [e for e in view.entries if e.kind == kind]
        counts = stated.as_dict()
        compare_summary(problems, counts, "total", len(mine), f"{where}{kind}: ")
        for status in WHEEL_STATUSES:
            counted = sum(1 for e in mine if e.status == status)
            compare_summary(problems, counts, status, counted, f"{where}{kind}: ")
    problems.extend(wheels_verdict_problems(view, where))
    problems.extend(_entry_problems(view, where))
    problems.extend(_unreported_natives(view, where))
    problems.extend(unreported_surfaces(view, where))
    problems.extend(relabel_problems(view, where))
    problems.extend(source_problems(view, where))
    problems.extend(waiver_list_problems(view, where))
    # One disagreement of the stream counts at a time: the second rests on the first.
    problems.extend(_unverified_problems(view, where) or _verified_problems(view, where))
    return problems


def _unverified_problems(view: WheelsDocument, where: str) -> list[str]:
    """`verdict.unverified_streams` where no run of `wheels` writes it: beside a whole-file
    SHA-256 (that run checks every stream), or counting more entries than the document has."""
    unverified = view.unverified_streams
    if not unverified:
        return []
    if unverified < 0 or unverified > len(view.entries):
        return [
            f"{where}verdict.unverified_streams is {unverified:,} of "
            f"{plural(len(view.entries), 'entry')}"
        ]
    if view.base.sha256 is not None or view.patch.sha256 is not None:
        return [
            f"{where}verdict.unverified_streams is {unverified:,} although the wheel files were "
            "hashed, which checks every stream"
        ]
    return []


def _verified_problems(view: WheelsDocument, where: str) -> list[str]:
    """`verdict.verified_streams` where no run of `wheels` writes it: without a whole-file
    SHA-256 (--no-file-hash checks no stream), or with the unverified ones counting more
    entries than the document has."""
    verified = view.verified_streams
    if not verified:
        return []
    both = verified + max(view.unverified_streams, 0)
    if verified < 0 or both > len(view.entries):
        return [
            f"{where}verdict.verified_streams is {verified:,} (and unverified_streams "
            f"{view.unverified_streams:,}) of {plural(len(view.entries), 'entry')}"
        ]
    if view.base.sha256 is None or view.patch.sha256 is None:
        return [
            f"{where}verdict.verified_streams is {verified:,} although the wheel files were not "
            "hashed (--no-file-hash checks no stream)"
        ]
    return []


def _entry_problems(view: WheelsDocument, where: str, shown: int = 3) -> list[str]:
    """Entries no run of `wheels` writes (a native change hidden in its entry rather than in
    its findings): a name that makes an entry native (`.so`, `.pyd`, ...; `kind_from_path`,
    what `wheels` decides by) given another kind, or an entry called identical whose sizes or
    CRC-32s differ (either proves a change; CRC-32s only with `how` crc-field and the entry's
    W604, a wrong CRC-32 field on equal content). The first `shown`, and how many more."""
    problems = []
    w604 = {f.path for f in view.findings if f.code == "W604"}
    for index, entry in enumerate(view.entries):
        label = f"{where}entries[{index}] {entry.path}"
        if entry.kind != EntryKind.NATIVE and kind_from_path(entry.path) is EntryKind.NATIVE:
            problems.append(f"{label} is {entry.kind!r} but its name makes it native")
        if entry.status != "identical":
            continue
        for what, base, patch, unit in (
            ("sizes", entry.base_size, entry.patch_size, " bytes"),
            ("CRC-32s", entry.base_crc32, entry.patch_crc32, ""),
        ):
            if what == "CRC-32s" and entry.how == "crc-field" and entry.path in w604:
                continue  # equal content under a wrong CRC-32 field: its W604 fails the run
            if base is not None and patch is not None and base != patch:
                problems.append(
                    f"{label} is identical but its {what} differ ({base} and {patch}{unit})"
                )
                break
    if len(problems) > shown:
        problems[shown:] = [plural(len(problems) - shown, "more such entry", "more such entries")]
    return problems


NATIVE_CODES = {"changed": "W101", "missing": "W102", "added": "W103"}
"""The finding `wheels` writes for every native entry of each status (at severity error, or
info under --allow-native-changes), unless --select/--ignore left it out."""


def _unreported_natives(view: WheelsDocument, where: str) -> list[str]:
    """A native entry that changed, went missing or was added with no finding of its code (at
    any severity) and no such code filtered out: no run of `wheels` writes that; the finding
    was deleted (a verdict then edited to pass would otherwise read as a clean pass)."""
    statuses = Counter(e.status for e in view.entries if e.kind == "native")
    reported = Counter(f.code for f in view.findings)
    filtered = Counter({f.code: f.count for f in view.filtered})
    problems = []
    for status, code in NATIVE_CODES.items():
        if statuses[status] > reported[code] + filtered[code]:
            problems.append(
                f"{where}{plural(statuses[status], 'native entry', 'native entries')} "
                f"{'is' if statuses[status] == 1 else 'are'} {status} but it lists "
                f"{plural(reported[code], f'{code} finding')} and filters out "
                f"{filtered[code]:,}"
            )
    return problems


def check_wheels(view: WheelsDocument, name: str) -> None:
    """`k3diff.wheels/1`: per-kind entry counts and the verdict against failing findings."""
    refuse_disagreement(name, _wheels_problems(view))


def check_wheelset(view: WheelsetDocument, name: str) -> None:
    """`k3diff.wheelset/1`: every pair's wheels document, and the set's verdict."""
    for index, pair in enumerate(view.pairs):
        refuse_disagreement(name, _wheels_problems(pair.wheels, f"pairs[{index}] "))
    refuse_disagreement(name, wheelset_verdict_problems(view))
    unverified = sum(pair.wheels.unverified_streams for pair in view.pairs)
    if view.unverified_streams != unverified:
        refuse_disagreement(
            name,
            [
                f"verdict.unverified_streams is {view.unverified_streams:,} but its pairs "
                f"give {unverified:,}"
            ],
        )


def check_audit(view: AuditDocument, name: str) -> None:
    """`k3diff.audit/2`: the verdict against findings of severity error, its counts against the
    findings, and the manifest's names against its A201-A203 findings."""
    found = view.all_findings()
    errors = _failing(found)
    problems = audit_verdict_problems(found, view.ok, view.exit_code, view.waived)
    if view.errors != errors:
        problems.append(f"verdict.errors is {view.errors:,} but its findings give {errors:,}")
    if view.warnings != len(found) - errors:
        problems.append(
            f"verdict.warnings is {view.warnings:,} but its findings give {len(found) - errors:,}"
        )
    problems += shadowing_problems(view) + name_problems(view)
    if view.manifest is not None:
        codes = Counter(f.code for f in view.findings)
        manifest = view.manifest
        if codes["A201"] != manifest.mismatched:
            problems.append(
                f"manifest.mismatched names {manifest.mismatched:,} but {codes['A201']:,} A201 "
                "findings are listed"
            )
        if codes["A203"] != manifest.extra:
            problems.append(
                f"manifest.extra names {manifest.extra:,} but {codes['A203']:,} A203 findings "
                "are listed"
            )
        if not manifest.ignore_missing and codes["A202"] != manifest.missing:
            problems.append(
                f"manifest.missing names {manifest.missing:,} but {codes['A202']:,} A202 "
                "findings are listed"
            )
    refuse_disagreement(name, problems)


def check_logs(view: LogsDocument, name: str) -> None:
    """`k3diff.logs/1`: the summary's counts of new findings, and the verdict against error
    findings new on the patch (any error finding under `--strict`)."""
    findings = view.findings
    new = [f for f in findings if f.side == "patch" and f.new is True]
    errors = [f for f in findings if f.severity == "error"]
    new_errors = [f for f in new if f.severity == "error"]
    # review76c: before the checks that run the built-in rules over every quoted line
    refuse_disagreement(name, bound_problems(view))
    problems = (
        novelty_problems(findings)
        + severity_problems(view)
        + rule_list_problems(view)
        + warning_line_problems(view)
        + tally_problems(view)
        + downgrade_problems(view)
    )
    compare_summary(problems, view.summary, "new_on_patch", len(new))
    compare_summary(problems, view.summary, "new_errors_on_patch", len(new_errors))
    if _verdict_ok(view) and (new_errors or (view.strict and errors)):
        failing = len(errors) if view.strict else len(new_errors)
        fail = "error finding fails" if failing == 1 else "error findings fail"
        problems.append(f"verdict says ok but {failing:,} {fail} it")
    refuse_disagreement(name, problems)


CACHE_REUSE = Expectation.CACHE_REUSE.value


def check_telemetry(view: TelemetryDocument, name: str) -> None:
    """`k3diff.telemetry/1`: a verdict of ok while an expected axis was not exercised or the
    acceptance gate's own tests fail it; gate findings that do not follow from its tests."""
    gaps = [f"{gap.expectation.value} on {gap.side}" for gap in view.not_exercised]
    held = bool(view.one_server)
    failing, problems = gate_problems(view.acceptance_gate, view.fail_on, view.alpha, held)
    lost = sum(1 for r in view.vllm.counter_resets if r.lost)
    gate = view.acceptance_gate
    if gate is not None and gate.lost_windows != lost:
        problems.append(
            f"acceptance gate lost {gate.lost_windows} windows, but counter_resets lists {lost} "
            "windows whose counts were lost"
        )
    if not problems:
        problems += rerun_problems(view)
    source = "its axes not exercised" + (" and its acceptance gate" if failing else "")
    problems += verdict_problems(view.ok, view.exit_code, gaps + failing, source)
    listed = {(gap.expectation.value, gap.side) for gap in view.not_exercised}
    # Recounted from the modes (the control's rows not: telemetry66) and the reused KV blocks.
    claimed = [mode for mode in view.modes if mode.mode != Mode.CONTROL.value]
    if CACHE_REUSE in view.expected:
        for side in sorted({mode.side for mode in view.modes}):
            # A cold-warm cold request's hit is no reuse, and fails the side (telem67).
            rows = [mode for mode in claimed if mode.side == side]
            kv = [k for k in view.kv_reuse if k.side == side]
            hits = sum(m.cache_hits - m.cold_hits for m in rows)
            hits += sum(k.hits - k.cold_hits for k in kv)
            cold = sum(m.cold_hits for m in rows) + sum(k.cold_hits for k in kv)
            unread = sum(m.cold_unread for m in rows)
            unread += sum(k.invalid_cold + k.unread_cold for k in kv)
            if (hits == 0 or cold or unread) and (CACHE_REUSE, side) not in listed:
                why = (
                    f"{cold} cold requests that hit the cache"
                    if cold
                    else f"{unread} cold requests that failed or whose usage, KV-cache counts or "
                    "/perf_metrics drain cannot be read"
                    if unread
                    else "0 cache hits"
                )
                problems.append(
                    f"the {side} side has {why} but cache-reuse is not listed as not "
                    "exercised on it"
                )
    if Expectation.SPECULATION.value in view.expected:
        for spec in view.speculation:
            control = [
                m.spec_drafted or 0
                for m in view.modes
                if m.side == spec.side and m.mode == Mode.CONTROL.value
            ]
            drafted = spec.drafted - sum(control)  # the control's are not counted
            if not drafted and (Expectation.SPECULATION.value, spec.side) not in listed:
                problems.append(
                    f"the {spec.side} side drafted 0 tokens but speculation is not listed as "
                    "not exercised on it"
                )
    problems += _draft_length_problems(view, listed) + _rate_problems(view)
    refuse_disagreement(name, problems)


def _rate_problems(view: TelemetryDocument) -> list[str]:
    """The rates, intervals and position tests recounted from their counts (`telemetryrates`)."""
    counted = [
        (f"speculation[{i}]", s.accepted, s.drafted, s.stated)
        for i, s in enumerate(view.speculation)
    ]
    counted += [
        (f"positions[{i}]", p.accepted, p.drafts, p.stated) for i, p in enumerate(view.positions)
    ]
    positions = [(p.side, p.position, p.accepted, p.drafts) for p in view.positions]
    tests = [(t.position, t.p, t.p_adjusted) for t in view.position_tests]
    return rate_problems(counted, view.alpha) + position_test_problems(positions, tests, view.alpha)


def _draft_length_problems(view: TelemetryDocument, listed: set[tuple[str, str]]) -> list[str]:
    """`draft-lengths=1-K` recounted from the positions: a side missing a length in 1..K
    (never accepted, or not reported) must be listed as not exercised."""
    name = Expectation.DRAFT_LENGTHS.value
    if name not in view.expected or view.draft_lengths is None:
        return []
    problems = []
    for side in sorted({mode.side for mode in view.modes}):
        seen = {p.position for p in view.positions if p.side == side and p.accepted > 0}
        missing = set(range(1, view.draft_lengths + 1)) - seen
        if missing and (name, side) not in listed:
            problems.append(
                f"the {side} side shows no draft length {min(missing)} but draft-lengths is "
                "not listed as not exercised on it"
            )
    return problems


def _exit_code_problems(view: _Verdict) -> list[str]:
    """Every command writes exit code 0 (ok) or 1 (not ok) in its document: no other code, and
    `ok` exactly when it is 0."""
    if view.exit_code not in (0, 1):
        return [f"verdict.exit_code {view.exit_code} is none a document is written with (0 or 1)"]
    if view.ok != (view.exit_code == 0):
        return [f"verdict.ok {str(view.ok).lower()} contradicts verdict.exit_code {view.exit_code}"]
    return []


def _failing(findings: Sequence[FindingView]) -> int:
    return sum(1 for f in findings if f.severity == "error")


def check_document(view: object, name: str) -> bool:
    """Check a document's typed view against itself; True when a check exists for its type (it
    was cross-checked), InputError when it disagrees with itself."""
    for kind, check in CHECKS:
        if isinstance(view, kind):
            refuse_disagreement(name, _exit_code_problems(view))
            check(view, name)
            return True
    return False


CHECKS: Sequence[tuple[type[Any], Callable[[Any, str], None]]] = (
    (ResponsesDocument, check_responses),
    (TriageDocument, check_triage),
    (WheelsDocument, check_wheels),
    (WheelsetDocument, check_wheelset),
    (AuditDocument, check_audit),
    (LogsDocument, check_logs),
    (TelemetryDocument, check_telemetry),
)
"""The self-check of each typed view (samples logs are checked line by line by
`k3diff.sample.reader`)."""
