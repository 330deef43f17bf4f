"""The evidence lines triage prints beside its table: the batch-1 parity headline, where each
side's capture came back, and where each unstable side's outputs split."""

from __future__ import annotations

from k3diff.triage.model import CaptureEvidence, Category, RecordVerdict, TriageResult
from k3diff.triage.splits import SplitTree


def split_text(tree: SplitTree) -> str:
    """'base serial: 2 other outputs leave the modal one (4 samples) at token 3 (margin 0.02,
    1 sample), token 9 (margin 2.5, 1 sample)'."""
    where = ", ".join(
        f"{tree.unit} {b.position} ("
        + ("margin unknown" if b.margin is None else f"margin {b.margin:.3g}")
        + f", {b.samples} sample{'s' if b.samples != 1 else ''})"
        for b in tree.branches
    )
    count = len(tree.branches)
    return (
        f"{tree.side} {tree.mode}: {count} other output{'s' if count != 1 else ''} leave the "
        f"modal one ({tree.modal_samples} sample{'s' if tree.modal_samples != 1 else ''}) at "
        f"{where}"
    )


def parity_line(result: TriageResult) -> str:
    """The batch-1 headline: 'serially, the patch reproduces the base on 8 of 8 records'."""
    agree, measured = result.serial_parity
    if not measured:
        return "no record has serial samples on both sides: batch-1 parity was not measured"
    line = f"serially, the patch reproduces the base on {agree} of {measured} records"
    notes = []
    flaky = serially_unstable_base(result)
    if flaky:
        notes.append(f"on {flaky} of them the base itself gave several serial outputs")
    unmeasured = len(result.records) - measured
    if unmeasured:
        notes.append(f"{unmeasured} without serial samples on both sides")
    return line + (f" ({'; '.join(notes)})" if notes else "")


def serially_unstable_base(result: TriageResult) -> int:
    """Records with serial parity whose base gave two or more serial outputs."""
    return sum(
        1
        for record in result.records
        if record.serial_parity
        and any(m.mode == "serial" and m.base.unstable for m in record.modes)
    )


def capture_text(capture: CaptureEvidence) -> str:
    where = ", ".join(f"{m.reproduced} of {m.n} {m.mode}" for m in capture.modes)
    return f"captured {capture.side} output: {where or 'no samples'}"


def capture_line(record: RecordVerdict) -> str:
    return f"{record.key}: " + "; ".join(capture_text(c) for c in record.captures)


def shows_captures(record: RecordVerdict) -> bool:
    return bool(record.captures) and record.category is not Category.MATCH
