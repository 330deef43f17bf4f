"""The runtime-logs row from a `k3diff.logs/1` document."""

from __future__ import annotations

from k3diff.bundle.logsheld import held_by_rules
from k3diff.bundle.model import Evidence, Stage, Status
from k3diff.documents.logs import LogsDocument, LogsFinding, ignored_sentence
from k3diff.documents.logsparts import downgraded_sentence
from k3diff.documents.read import Document
from k3diff.numbers import named
from k3diff.output import plural


def _rules(new: list[LogsFinding]) -> str:
    """The rules of the new error findings, the crashes that others follow from first, then
    each consequence with the crash it follows from (logs64: vLLM's EngineDeadError was named
    before the out-of-memory error that killed its engine; newuser64: 'engine-error,
    out-of-memory; as a consequence: crash' named an unrelated error first, and beside the
    crash as a cause)."""
    causes = {f.rule for f in new if f.consequence_of is None}
    after: dict[str, set[str]] = {}
    for f in new:
        if f.consequence_of is not None and f.rule not in causes:
            after.setdefault(f.rule, set()).add(f.consequence_of)
    roots = {root for of in after.values() for root in of} & causes
    leading = [named(sorted(roots) + sorted(causes - roots), 3)] if causes else []
    return "; ".join(
        leading
        + [
            f"as a consequence of {', '.join(sorted(of))}: {rule}"
            for rule, of in sorted(after.items())
        ]
    )


def logs_stage(doc: Document) -> Stage:
    """Runtime logs from `k3diff.logs/1`, counted from its findings: the row fails when the
    patch has an error finding the base does not (or, for a `--strict` scan, any error
    finding), and wherever the document's verdict fails besides (review63b: a patch file
    skipped as binary, or patch error lines past the distinct-message cap, failed `logs` and
    the exit code, while the row and the bottom line read pass), and wherever an entry was not
    read (logs64: a link out of a side's directory, a FIFO; whatever its verdict says), and
    wherever the document's own rules left a built-in error rule out of what its verdict
    counts (`k3diff.bundle.logsheld`). It counts matches, as `logs`
    does, not ERROR lines: a traceback logged as 13 ERROR lines is one match (newuser63b)."""
    logs = doc.typed(LogsDocument)
    errors = [f for f in logs.findings if f.severity == "error"]
    new = [f for f in errors if f.side == "patch" and f.new is True]
    lines = logs.lines
    errors_by_side = {
        side: sum(f.count for f in errors if f.side == side) for side in ("base", "patch")
    }
    fail = bool(new) or (logs.strict and any(errors_by_side.values()))
    headline = (
        f"server logs: {len(new):,} error finding{'' if len(new) == 1 else 's'} new on the patch "
        f"({plural(errors_by_side['patch'], 'error match', 'error matches')} on the patch, "
        f"{errors_by_side['base']:,} on the base, each traceback one match; "
        # newuser64: '39 and 35 lines scanned' left the reader to guess which side was which
        f"{plural(lines['patch'], 'line')} scanned on the patch, {lines['base']:,} on the base)"
    )
    if new:  # what `logs` names in its verdict (newuser63: the row did not)
        headline += "; new on the patch: " + _rules(new)
    unread = sum(len(skipped) for skipped in logs.skipped.values())
    if not fail and not (logs.ok and logs.exit_code == 0):
        fail = True
        headline += "; its verdict fails: " + ("; ".join(logs.failures) or "(no reason given)")
    elif not fail and unread:
        # logs64: any entry not read fails, whatever the document's verdict says (one written
        # before logs failed on them, or edited): a side read in part could hide anything.
        fail = True
        headline += f"; {plural(unread, 'entry', 'entries')} not read as logs (named below)"
    held = held_by_rules(logs)
    if held.reasons:  # docs77
        fail = True
        headline += f"; held: {'; '.join(held.reasons)}"
    quals = []
    if not new and errors_by_side["patch"]:
        quals.append(
            f"the patch's {'error match also occurs' if errors_by_side['patch'] == 1 else 'error matches also occur'} "
            "on the base: not new, but not a clean log either"
            + (
                # records76: judged alone, only the logs show the base logged it
                "; judged without its logs, that the base logged it is the document's word: "
                f"give both logs (k3diff report {doc.name} BASE PATCH) to check it"
                if doc.judged_alone
                else ""
            )
        )
    if held.ignored_warnings:  # hunt75
        said = ignored_sentence(held.ignored_warnings)
        quals.append(f"{doc.name}: {said}, so an error only they match is not judged")
    for side, downgraded in logs.downgraded.items():  # records76
        if downgraded and side not in held.downgraded_sides:
            said = downgraded_sentence(downgraded, side)
            quals.append(f"{doc.name}: {said}, so not judged as errors")
    for side, skipped in logs.skipped.items():  # review63b: not read, so not judged
        if skipped:
            quals.append(
                f"{doc.name}: {plural(len(skipped), 'entry')} on the {side} side not read as logs, "
                f"so not judged: {named(skipped, 3)}"
            )
    counts = {"new_errors": len(new), **{f"{k}_error_lines": v for k, v in errors_by_side.items()}}
    status = Status.FAIL if fail else Status.PASS
    return Stage(Evidence.RUNTIME_LOGS, doc.name, status, headline, tuple(quals), counts)
