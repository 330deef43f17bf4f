"""The bundle's next steps (ci64): for each document whose row fails or is inconclusive, what
to run or read next, in the words of the command that wrote it, read from the document and
never invented; none when every row passes or is explained.

* a wheels comparison (or a release set's pair) with failing native findings: `wheels`' own
  "Next steps (native code differs)" (`report.wheelfailing.native_steps`): `--explain` where a
  changed native was not explained, `--allow-native-changes` with what still fails (a release
  set's pair: what the set still fails on, `wheelfailing.set_left`; report66), and the
  waiver stanzas of the failing native findings, then of the other failing findings a waiver
  takes (five, then a count) as one TOML line; those alone when no native finding fails
  (newuser64b: a W717 Jupyter config was left out);
* a release set with unpaired wheels not allowed: `--allow-unpaired`, as `wheels` says it;
* a triage whose inconclusive records more samples would decide: triage's `next:` line
  (`report.triagesteps.more_samples_step`), with bare `k3diff` and `RUN_DIR` for the run's
  directory, the run's repeats from its samples log where the bundle holds it;
* runtime logs with new error findings: where each is first, as the logs report lists it under
  "New on the patch", a crash's before its consequences.

* a triage or telemetry document held for a run of one server its author alone allowed (or
  by the gate `report --fail-on` imposed without the reviewer's word): a server of its own for
  the patched build, or `report --allow-same-server` for an A/A run (`aarun.step_line`);
* an audit with failing findings: `audit`'s own "Next steps" (`report.auditsteps`, words73):
  the fix of each kind of failing finding, artifact by artifact, then the manifest's, then the
  waiver stanzas of those a waiver takes, naming their artifact, as one TOML line.

A row whose command's report suggests nothing (a comparison, telemetry) gets no step: its
findings are in the matrix above. Bare `k3diff`, as `model.MAKES` (a bundle is read
elsewhere, where its maker's program path means nothing); files named as the documents name
them (the paths as given, as the artifact table shows them), a run's directory as `RUN_DIR`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import NamedTuple

from k3diff import shellwords
from k3diff.bundle.aarun import step_line
from k3diff.bundle.inconclusive import more_of_no_use, resample_sentence
from k3diff.bundle.model import Evidence, Stage, Status
from k3diff.bundle.wheelrows import row_of
from k3diff.docbody import Kind
from k3diff.documents.audit import AuditDocument
from k3diff.documents.logs import LogsDocument
from k3diff.documents.read import Document
from k3diff.documents.triage import TriageDocument
from k3diff.documents.wheelset import WheelsetDocument
from k3diff.documents.wheelsview import WheelsDocument
from k3diff.logs.model import place
from k3diff.numbers import named
from k3diff.report import auditsteps
from k3diff.report.refusedsteps import sided_renames
from k3diff.report.stepwords import record_step, unwaivable_step, waiver_step, waivers_inline
from k3diff.report.triagesteps import more_samples_step
from k3diff.report.wheelfailing import (
    is_native_named,
    left_out_step,
    native_steps,
    set_left,
    source_steps,
    still_failing,
)
from k3diff.triage.nextstep import MoreSamples, asked_more, more_samples
from k3diff.wheel.codes import NO_PYTHON, UNWAIVABLE, Code, Finding
from k3diff.wheel.findingorder import Named
from k3diff.wheel.kinds import EntryKind

PROGRAM = "k3diff"
"""How a step names k3diff (`model.MAKES`: bare, whatever program made the bundle)."""
RUN_DIR = "RUN_DIR"
"""The placeholder for a samples run's `--out` directory."""
WAIVERS_NAMED = 5
"""Waiver stanzas a step spells out before counting the rest."""


class Step(NamedTuple):
    """One step: the rows it is about, its one line, and the TOML it holds (report66)."""

    rows: tuple[Evidence, ...]
    """The matrix rows whose failing findings the step is about (report67: every step of a
    document took the name of its last failing row, so a wheels document failing both rows
    labelled `--explain` "source match"); a waiver line for findings of two rows names both."""
    text: str
    """The step as one line."""
    toml: str | None = None
    """The one-line waiver TOML the line holds, exactly as it stands in it, for a renderer to
    show as code: a run of spaces in a path is part of it (HTML folds one in prose, so the
    pasted waiver named another path)."""


def next_steps(stages: Sequence[Stage], documents: Sequence[Document]) -> list[dict[str, str]]:
    """`summary.json`'s `next_steps`: one entry per step, `{evidence, source, step}` (and
    `toml`, the waiver TOML the step holds), in the matrix's order, each document's once;
    `evidence` names the step's own rows (`Step.rows`), in the matrix's order."""
    asking = {s.source for s in stages if s.status in (Status.FAIL, Status.INCONCLUSIVE)}
    by_name = {d.name: d for d in documents}
    order = list(Evidence)
    steps: list[dict[str, str]] = []
    for source in dict.fromkeys(s.source for s in stages if s.source in asking):
        doc = by_name.get(source)
        if doc is None:
            continue
        for step in _steps(doc, documents):
            rows = sorted(set(step.rows), key=order.index)
            evidence = " and ".join(row.value for row in rows)
            entry = {"evidence": evidence, "source": source, "step": step.text}
            steps.append(entry if step.toml is None else {**entry, "toml": step.toml})
    return steps


def _steps(doc: Document, documents: Sequence[Document]) -> Iterator[Step]:
    one_server = step_line(doc)  # a run of one server held: the reviewer's option (gate74)
    if one_server is not None:
        row = Evidence.TELEMETRY if doc.kind is Kind.TELEMETRY else Evidence.FOLLOW_UP
        yield Step((row,), one_server)
    if doc.kind is Kind.WHEELS:
        yield from _wheels_steps(doc.typed(WheelsDocument), "")
    elif doc.kind is Kind.WHEELSET:
        wheelset = doc.typed(WheelsetDocument)
        for pair in wheelset.pairs:
            label = f"{pair.wheels.base.path} -> {pair.wheels.patch.path}: "
            yield from _wheels_steps(pair.wheels, label, _left(wheelset, pair.wheels))
        unpaired = [*wheelset.only_base, *wheelset.only_patch]
        if unpaired and not wheelset.allow_unpaired:
            yield Step(  # what `wheels` says of them: the set's own row
                (Evidence.IDENTITY,),
                f"{named(unpaired)}: not compared, so they fail the run (--allow-unpaired "
                "accepts them)",
            )
    elif doc.kind is Kind.TRIAGE:
        asking = _more_samples(doc, documents)
        if asking is not None:
            step = more_samples_step(asking, PROGRAM, RUN_DIR, logged=False)
            yield Step((Evidence.FOLLOW_UP,), step)
        resample = resample_sentence(doc.typed(TriageDocument))
        if resample is not None:
            yield Step((Evidence.FOLLOW_UP,), resample)
    elif doc.kind is Kind.AUDIT:
        yield from _audit_steps(doc.typed(AuditDocument))
    elif doc.kind is Kind.LOGS:
        where = _logs_step(doc.typed(LogsDocument))
        if where is not None:
            yield Step((Evidence.RUNTIME_LOGS,), where)


def _left(wheelset: WheelsetDocument, pair: WheelsDocument) -> list[str]:
    """What the set still fails on, run with `--allow-native-changes`, once `pair` passes, as
    `wheels` says it (`set_left`): its unpaired wheels not allowed, its misnamed files, and its
    other pairs with a failing finding the option leaves failing."""
    others = [
        other.wheels
        for other in wheelset.pairs
        if other.wheels is not pair and still_failing(_failing(other.wheels))
    ]
    unpaired = 0 if wheelset.allow_unpaired else len(wheelset.only_base) + len(wheelset.only_patch)
    return set_left(unpaired, len(wheelset.misnamed), len(others))


def _failing(wheels: WheelsDocument) -> list[Named]:
    """Every failing finding of the comparison (code, path, native), whichever row it fails:
    what `wheels`' own next steps are about."""
    return [(f.code, f.path, f.native) for f in wheels.findings if f.severity == "error"]


def _wheels_steps(
    wheels: WheelsDocument, label: str, in_set: Sequence[str] | None = None
) -> Iterator[Step]:
    """`wheels`' next steps for the failing findings of one comparison: the native options
    where a native finding fails, and the waiver of each failing finding a waiver takes
    (`in_set`: what a release set's pair's set still fails on: `_left`)."""
    failing = _failing(wheels)
    native = [f for f in failing if is_native_named(f)]
    waivable = [f for f in failing if Code[f[0]] not in UNWAIVABLE]
    sourced = wheels.provenance is not None

    def rows(findings: Sequence[Named]) -> tuple[Evidence, ...]:
        return tuple(row_of(code, sourced) for code, _, _ in findings)

    nowhere = next(
        (
            f.detail
            for f in wheels.findings
            if f.code == Code.W616.name and f.detail.endswith(NO_PYTHON) and f.severity == "error"
        ),
        None,
    )
    said = [(f.code, f.path, f.detail) for f in wheels.findings if f.severity == "error"]
    paths = (wheels.base.path, wheels.patch.path)
    renames, renamed = sided_renames(said, paths)
    for step in renames:
        yield Step(rows([(Code.W616.name, "", False)]), f"{label}{step}")
    rest = [f for position, f in enumerate(failing) if position not in renamed]
    rebuild = unwaivable_step(rest, nowhere, files=paths)
    if rebuild is not None:
        unwaivable = [f for f in rest if Code[f[0]] in UNWAIVABLE]
        yield Step(rows(unwaivable), f"{label}{rebuild}")
    left_out = left_out_step(failing)
    if left_out is not None:
        yield Step(rows([f for f in failing if f[0] == Code.W412.name]), f"{label}{left_out}")
    stale = [f.detail for f in wheels.findings if f.code == "W403" and f.severity == "error"]
    checked = source_steps(failing, wheels.provenance, paths, details=stale)
    for name, step in checked:
        yield Step(rows([f for f in failing if f[0] == name]), f"{label}{step}")
    repack = record_step(failing, wheels.patch.path)
    if repack is not None:
        yield Step(rows([f for f in failing if f[0] == Code.W302.name]), f"{label}{repack}")
    if not waivable:  # native findings are all waivable
        return
    if native:
        still = still_failing(failing)
        changed = wheels.summary[EntryKind.NATIVE.value].changed
        # Shell-quoted, as triage's command is (review64b: a wheel's path holding a space or
        # `$(…)` made a step that ran something else when pasted into a shell; shell65: one
        # holding two spaces or a tab was folded on the way out, `shellwords`).
        command = " ".join(
            [PROGRAM, "wheels", *map(shellwords.path, (wheels.base.path, wheels.patch.path))]
        )
        wide = [c for c, path, _ in waivable if not path]
        *options, waiver = native_steps(
            changed, wheels.explain, native, still, in_set=in_set, wide=wide
        )
        for option in options:
            yield Step(rows(native), f"{label}{command} {option}")
    else:
        wide = [c for c, path, _ in waivable if not path]
        waiver = waiver_step(alone=repack is None and left_out is None and not checked, wide=wide)
    # One stanza per code and path (`stepwords._waived`): two findings alike share it.
    findings = [Finding(Code[c], path, "", flag) for c, path, flag in dict.fromkeys(waivable)]
    kind = "native findings" if len(waivable) == len(native) else "findings"
    yield _waiver_line(rows(waivable), f"{label}{waiver}", findings, None, kind)


def _waiver_line(
    rows: tuple[Evidence, ...],
    waiver: str,
    findings: Sequence[Finding],
    artifacts: Sequence[str] | None,
    kind: str = "findings",
) -> Step:
    """The waiver step (`waiver`, its words) with the stanzas of the first `WAIVERS_NAMED`
    `findings` as one TOML line (`artifacts`: each one's, for audit's), the rest counted."""
    shown = findings[:WAIVERS_NAMED]
    rest = len(findings) - len(shown)
    more = f"; {rest:,} more failing {kind} want one each" if rest > 0 else ""
    toml = waivers_inline(shown, None if artifacts is None else artifacts[:WAIVERS_NAMED])
    return Step(rows, f"{waiver} {toml} (the same tables as one TOML line){more}", toml)


def _audit_steps(audit: AuditDocument) -> Iterator[Step]:
    """`audit`'s next steps (`report.auditsteps`), from the findings of severity error: each
    fix, then the waiver of each a waiver takes (words73: an audit row got none)."""
    located = [(f, a.path) for a in audit.artifacts for f in a.findings]
    located += [(f, f.path) for f in audit.findings]  # the manifest's: about the name listed
    failing = [
        auditsteps.Failing(f.code, f.path, artifact, f.detail, f.native)
        for f, artifact in located
        if f.severity == "error" and f.code in Code.__members__
    ]
    manifest = None if audit.manifest is None else audit.manifest.path
    unaudited = 0 if audit.manifest is None else audit.manifest.missing
    audited = [a.path for a in audit.artifacts]
    lines = auditsteps.steps(failing, manifest, audited, unaudited=unaudited)
    for line in lines:
        yield Step((Evidence.AUDIT,), line)
    waived = auditsteps.waivable(failing)
    if waived:
        wide = [f.code for f in waived if not f.path]
        findings = [auditsteps.as_finding(f) for f in waived]
        waiver = waiver_step(alone=not lines, wide=wide, artifact=True)
        yield _waiver_line((Evidence.AUDIT,), waiver, findings, [f.artifact for f in waived])


def _more_samples(doc: Document, documents: Sequence[Document]) -> MoreSamples | None:
    """The samples a triage's inconclusive records ask for, as triage reckons them
    (`triage.nextstep.more_samples`) from its run's samples logs given beside it; where none
    is, the run's repeats are unknown and the step says so. A record held for what more samples
    cannot lift asks for none, even where a triage written before stop 79 gave it a count
    (review79e: the bundle said to grow the run beside "more samples would not decide them"):
    a mode whose batches no gauge proved or the run never overlapped, as triage's rollup holds
    them today, or samples of another condition, for which triage asks none since stop 80
    and names the condition to sample under (`resample_sentence`)."""
    triage = doc.typed(TriageDocument)
    asked = asked_more(r for r in triage.records if not more_of_no_use(r))
    if not asked:
        return None
    runs = set(doc.run_ids)
    logs = [
        d.log
        for d in documents
        if d.kind is Kind.SAMPLES and d.log is not None and runs & set(d.run_ids)
    ]
    found = more_samples(asked, logs, triage.allow_same_server)
    if found is not None:
        return found
    return MoreSamples(
        f"{RUN_DIR}/samples.jsonl", max(more for _, more in asked), None, growable=True
    )


def _logs_step(logs: LogsDocument) -> str | None:
    """Where each error finding new on the patch is first (a crash's before its
    consequences), as the logs report lists them; None when none is new."""
    new = [
        f for f in logs.findings if f.side == "patch" and f.new is True and f.severity == "error"
    ]
    if not new:
        return None
    # Causes first, then consequences; each in the order the log shows them (newuser64c: the
    # announcing line at :7 came after the crash lines at :12, :8, :9).
    new.sort(key=lambda f: (f.consequence_of is not None, f.first or ("", 0)))
    where = [f.rule + ("" if f.first is None else f" at {place(*f.first)}") for f in new]
    return (
        "read the patch's new error findings where the logs report lists them (New on the "
        f"patch), the first line of each: {named(where)}"
    )
