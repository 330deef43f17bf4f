"""The evidence lines triage prints beside its table: the batch-1 parity headline, where each
side's capture came back, and where each unstable side's outputs split."""

from __future__ import annotations

from collections.abc import Sequence

from k3diff.numbers import named, one_of
from k3diff.output import plural
from k3diff.report.clauses import clause_lines, split_clauses
from k3diff.report.serialparity import lacking
from k3diff.triage.flags import cause_flags
from k3diff.triage.model import (
    HELD_FLAGS,
    CaptureEvidence,
    Category,
    Flag,
    RecordVerdict,
    SideStats,
    TriageResult,
)
from k3diff.triage.splits import SplitTree


def split_text(tree: SplitTree) -> str:
    """'base serial: 2 other outputs leave the modal one (4 samples) at token 3 (logprob margin
    0.02, 1 sample), token 9 (logprob margin 2.5, 1 sample)'; outputs that split at one place
    with one margin are counted together: 'character 0 (logprob margin unknown, 6 outputs, 6
    samples)'. Where no output
    is more common than another, it says so: 'base serial: no output repeats (3 outputs,
    1 sample each); measured from the first sampled, the 2 other outputs split off at ...'."""
    groups: dict[tuple[int, str], list[int]] = {}  # outputs splitting alike are said once
    for b in tree.branches:
        # "logprob margin", not "margin" (words72): the term says what it is a margin of.
        margin = "logprob margin unknown" if b.margin is None else f"logprob margin {b.margin:.3g}"
        groups.setdefault((b.position, margin), []).append(b.samples)
    where = ", ".join(
        f"{tree.unit} {position} ({margin}, "
        + (f"{len(samples)} outputs, " if len(samples) > 1 else "")
        + f"{sum(samples)} sample{'s' if sum(samples) != 1 else ''})"
        for (position, margin), samples in groups.items()
    )
    count = len(tree.branches)
    others = f"{count} other output{'s' if count != 1 else ''}"
    if tree.tied == 1:
        return (
            f"{tree.side} {tree.mode}: {others} {'leave' if count != 1 else 'leaves'} the modal "
            f"one ({tree.modal_samples} sample{'s' if tree.modal_samples != 1 else ''}) at {where}"
        )
    # No output is more common than another: the one the others are measured from is only the
    # first sampled, so no shift from a "modal" output is implied.
    if tree.modal_samples == 1:
        return (
            f"{tree.side} {tree.mode}: no output repeats ({count + 1} outputs, 1 sample each); "
            f"measured from the first sampled, the {others} split off at {where}"
        )
    return (
        f"{tree.side} {tree.mode}: no output is modal ({tree.tied} outputs tie at "
        f"{tree.modal_samples} samples each); measured from the first sampled of them, the "
        f"{others} split off at {where}"
    )


def capture_text(capture: CaptureEvidence) -> str:
    """'captured base output reproduced by 3 of 8 serial, 0 of 8 concurrent samples' (modes
    without a successful sample left out: '0 of 0' says nothing; words72: 'captured base
    output: 0 of 3 serial' did not say 0 of 3 what)."""
    where = ", ".join(f"{m.reproduced} of {m.n} {m.mode}" for m in capture.modes if m.n)
    if not where:
        return f"captured {capture.side} output: no samples"
    return f"captured {capture.side} output reproduced by {where} samples"


def _sampled(capture: CaptureEvidence) -> bool:
    return any(m.n for m in capture.modes)


def capture_line(record: RecordVerdict) -> str:
    """The record's captures that some successful sample could have reproduced."""
    found = [capture_text(c) for c in record.captures if _sampled(c)]
    return f"{record.name}: " + "; ".join(found)


def shows_captures(record: RecordVerdict) -> bool:
    """A capture line is worth printing: not a match, and some capture was sampled at all."""
    return any(_sampled(c) for c in record.captures) and record.category is not Category.MATCH


def gauge_lines(result: TriageResult) -> list[str]:
    """Per record and batched mode, how many batches were proven in flight together at the
    server and what decided each, next to the server's own running-requests gauge:
    'k0: concurrent: overlap: base 3 of 4 batches exercised (gauge 0, token windows 4), most
    together 2, gauge: not exposed (HTTP 404); patch ...'."""
    exposed = {side: (name, problem) for side, name, problem in result.gauges}
    lines = []
    for record in result.records:
        for mode in record.modes:
            parts = []
            for name, side in (("base", mode.base), ("patch", mode.patch)):
                if not side.batches:
                    continue
                series, problem = exposed.get(name, (None, None))
                if series is None:
                    gauge = "gauge: not exposed" + (f" ({problem})" if problem else "")
                elif side.server_running is None:
                    gauge = "gauge: not read while in flight"
                else:
                    gauge = f"gauge {side.server_running} ({series})"
                exercised = side.batches - side.one_at_a_time - side.unproven
                decided = (
                    f"gauge {side.by_gauge}, token windows {side.by_token_windows}, "
                    f"unproven {side.unproven}"
                )
                together = "-" if side.in_flight is None else str(side.in_flight)
                parts.append(
                    f"{name} {exercised} of {side.batches} batches exercised ({decided}), "
                    f"most together {together}, {gauge}"
                )
            if parts:
                lines.append(f"{record.name}: {mode.mode}: overlap: " + "; ".join(parts))
    return lines


CAVEAT = "; caveat: "
"""Where a reason's closing caveat starts (the weak bound of a stable side: triage.reasons)."""


def shared_caveats(
    records: Sequence[RecordVerdict],
) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """Reasons with a caveat that several records share taken out of each, and that caveat
    said once with the records it covers ('caveat for q0, q1, q2: ...', as (the records named,
    the caveat)): eight records with one weak bound read one caveat, not eight copies."""
    split = {r.key: r.reason.rpartition(CAVEAT) for r in records}
    covers: dict[str, list[str]] = {}
    for record in records:
        _head, found, caveat = split[record.key]
        if found:
            covers.setdefault(caveat, []).append(record.name)
    shared = {caveat for caveat, names in covers.items() if len(names) > 1}
    reasons = {
        r.key: split[r.key][0] if split[r.key][2] in shared and split[r.key][1] else r.reason
        for r in records
    }
    lines = [(named(covers[caveat], SHARED_NAMED), caveat) for caveat in covers if caveat in shared]
    return reasons, lines


SHARED_NAMED = 12
"""Records a shared caveat names before counting the rest."""


def caveat_text(names: str, caveat: str) -> str:
    """A shared caveat for a terminal: 'caveat for q0, q1:' then each of its clauses on a line
    of its own, indented, wrapped (`k3diff.report.clauses`)."""
    return "\n".join([f"caveat for {names}:", *clause_lines(split_clauses(caveat))])


UNSAMPLED_CAUSE = "captures that differ on a record never sampled"
LACKING_CAUSE = "captures that differ, or a record one capture lacks, never sampled"
HELD_CAUSES: tuple[tuple[frozenset[Flag], str], ...] = (
    (frozenset({Flag.NOT_EXERCISED, Flag.UNPROVEN}), "a mode not exercised or unproven"),
    (frozenset({Flag.OTHER_CONDITION}), "samples of another condition"),
    (frozenset({Flag.CAPTURE_UNEXPLAINED}), "a patch capture the samples do not explain"),
    (frozenset({Flag.UNSAMPLED}), UNSAMPLED_CAUSE),
    (
        frozenset({Flag.UNLOGGED}),
        "lines a log lacks, or cannot show it holds, of what its run owed (unlogged)",
    ),
    (frozenset({Flag.NOT_COMPARABLE}), "captures whose prompts differ (not-comparable)"),
    (frozenset({Flag.DOC_CHANGED}), "the document changed (doc-changed)"),
    (frozenset({Flag.TARGET_CHANGED}), "the gold target changed (target-changed)"),
    (
        frozenset({Flag.ARGUMENTS_CHANGED}),
        "the request arguments changed (arguments-changed)",
    ),
    (
        frozenset({Flag.PROMPT_UNKNOWN}),
        "the prompt is in one log only (prompt-unknown)",
    ),
    (
        frozenset({Flag.ARGUMENTS_UNKNOWN}),
        "the request arguments are missing from one log or both (arguments-unknown)",
    ),
    (
        frozenset({Flag.NO_POWER}),
        "sampled records whose test could not have detected --shift {shift}",
    ),
    (frozenset({Flag.FIELDS_UNJUDGED}), "fields other than the text that differ (fields-unjudged)"),
    (
        frozenset({Flag.FINISH_REASON_SHIFT}),
        "a patch that ends its answers otherwise than the base (finish-reason-shift)",
    ),
    (frozenset({Flag.TOKEN_IDS_DIFFER}), "token ids that differ under one text (token-ids-differ)"),
    (
        frozenset({Flag.PATCH_ERRORS}),
        "a patch that fails requests more often than the base (patch-errors)",
    ),
    (
        frozenset({Flag.NOVEL_UNDECIDED}),
        "a patch output the base never gave, left undecided (novel-undecided)",
    ),
    (frozenset({Flag.SAME_SERVER}), "base and patch sampled from one server (same-server)"),
)
"""Each cause that holds an inconclusive record, by the flags that say it (`HELD_FLAGS`), in
the order the INCONCLUSIVE line names them."""


def _silent_words(stats: list[SideStats]) -> str | None:
    """What a side held `unanswered` shows in the modes where it has no output: 'every {}
    request failed in a mode' where each of those failed, 'no {} line in the logs' where none
    of them holds a failed request (None: every mode has an output of it)."""
    silent = [s for s in stats if s.n == 0]
    if not silent:
        return None
    if all(s.errors for s in silent):
        return "every {} request failed in a mode"
    return (
        "no {} line in the logs" if not any(s.errors for s in silent) else "no {} output in a mode"
    )


def unanswered(result: TriageResult) -> str | None:
    """'every patch request failed on 2/strict-match (unanswered)' where a held record has a side
    of a mode with failed requests and no successful one: nothing of that side was sampled,
    whatever else holds the record; None where no held record has such a side."""
    found: dict[tuple[str, str, str], list[str]] = {}
    for record in result.records:
        if record.category is not Category.INCONCLUSIVE or not HELD_FLAGS & set(record.flags):
            continue
        # The flag that holds it for this, where it is the hold (triage69), else the one seen.
        flag = Flag.UNANSWERED if Flag.UNANSWERED in record.flags else Flag.ERRORS_PRESENT
        for which in ("base", "patch"):
            stats = [getattr(mode, which) for mode in record.modes]
            if stats and all(s.n == 0 for s in stats) and any(s.errors for s in stats):
                found.setdefault((which, flag, "every {} request failed"), []).append(record.name)
            elif flag is Flag.UNANSWERED and (words := _silent_words(stats)):
                # review69c: in some modes only, or none of its lines in the logs
                found.setdefault((which, flag, words), []).append(record.name)
    sides: dict[tuple[str, str, tuple[str, ...]], list[str]] = {}  # both sides said once
    for (side, held_by, said_as), names in found.items():
        sides.setdefault((held_by, said_as, tuple(names)), []).append(side)
    said = [
        f"{said_as.format(one_of(both, 'or' if said_as.startswith('no ') else 'and'))} on "
        f"{named(list(names))} ({held_by})"
        for (held_by, said_as, names), both in sides.items()
    ]
    return "; ".join(said) or None


def held_why(result: TriageResult) -> str:
    """What keeps the held records from passing, naming only the causes their flags say
    (polish63: the line listed every cause where one applied): 'a mode not exercised or
    unproven', 'samples of another condition, or a patch capture the samples do not explain'."""
    flags = {
        flag
        for record in result.records
        if record.category is Category.INCONCLUSIVE and HELD_FLAGS & set(record.flags)
        for flag in cause_flags(record.flags)
    }
    shift = f"{100 * result.settings.shift:.3g} % (no-power)"
    causes = [cause.format(shift=shift) for held, cause in HELD_CAUSES if held & flags]
    if lacking(result.records):  # newuser68: a doc one log lacks read as captures that differ
        causes = [LACKING_CAUSE if c == UNSAMPLED_CAUSE else c for c in causes]
    if failed := unanswered(result):  # newuser68: said only as a flag, errors-present
        causes.append(failed)
    return one_of(causes) or "its evidence could not clear it"


def same_server_text(result: TriageResult) -> str | None:
    """The verdict's words where records are held `same-server` (None where none is, or a
    regression candidate's verdict says it first), with the records held for other causes."""
    held = result.same_server_records
    if not held or result.same_server is None or result.regression_candidates:
        return None  # a regression candidate's verdict says it first
    one = f"one server ({result.same_server}); {would_have_cleared(held)}"
    return f"SAME SERVER: base and patch were sampled from {one}" + also_held(
        result.held_records - held
    )


def would_have_cleared(records: int) -> str:
    """'2 records it would have cleared fail', '1 record it would have cleared fails'."""
    return f"{plural(records, 'record')} it would have cleared fail{'s' if records == 1 else ''}"


def also_held(others: int) -> str:
    """'; 2 more records the evidence could not clear fail too' ('' where none is): the records
    held for another cause, beside those the verdict names (newuser71: a run held same-server
    said '1 record ... fail' where two more failed no-power)."""
    if not others:
        return ""
    return (
        f"; {plural(others, 'more record')} the evidence could not clear "
        f"fail{'s' if others == 1 else ''} too"
    )


def held_text(result: TriageResult) -> str:
    """The verdict's words where records are held and none is a regression candidate."""
    held = result.held_records
    return (
        f"no regression candidate, but {held} record{'s' if held != 1 else ''} the evidence could "
        f"not clear ({held_why(result)}) fail{'s' if held == 1 else ''}"
    )
