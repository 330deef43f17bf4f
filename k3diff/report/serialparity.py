"""Triage's batch-1 parity headline ('serially, the patch reproduces the base on 8 of 8
records'), with the records it leaves out and why, and the sentence for records never sampled
on a side although their captures differ; split from `report.triage_lines`."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from k3diff.numbers import one_of
from k3diff.output import plural
from k3diff.sample.names import SIDES, Mode
from k3diff.triage.model import Flag, RecordVerdict, TriageResult


def reproduces(one_server: bool) -> str:
    """Who reproduces whom in the batch-1 headline: of an A/A run (base and patch one server),
    one server's two labels, not a patch and its base (words72: the bundle's A/A row read 'A/A
    run of one server: serially, the patch reproduces the base')."""
    if one_server:
        return "the one server's samples labelled patch reproduce those labelled base"
    return "the patch reproduces the base"


def parity_line(result: TriageResult) -> str:
    """The batch-1 headline: 'serially, the patch reproduces the base on 8 of 8 records', and
    which side had no successful serial sample of the records it leaves out; `reproduces`' A/A
    words where every log sampled one server as both sides."""
    agree, measured = result.serial_parity
    unsampled = result.unsampled_records
    never = f"; {unsampled_text(unsampled, lacking(result.records))}" if unsampled else ""
    if not measured:
        return f"no record has serial samples on both sides: batch-1 parity was not measured{never}"
    one_server = len(result.one_server_notes) == len(result.samples)
    line = f"serially, {reproduces(one_server)} on {agree:,} of {measured:,} records"
    line += " sampled on both sides" if unsampled else ""
    flaky = result.serial_base_unstable
    if flaky:
        line += f" (on {flaky} of them the base itself gave several serial outputs)"
    unmeasured = _unmeasured(result.records)
    return line + (f"; {one_of(unmeasured, 'and')}" if unmeasured else "") + never


def _unmeasured(records: Iterable[RecordVerdict]) -> list[str]:
    """'the patch has no successful serial sample of 1 more record': the records left out of the
    headline (but those never sampled on a side although their captures differ, said apart),
    by which side had no successful serial sample (triage70: '1 without successful serial
    samples on both sides' did not say which, read as if both)."""
    lacking_sides: Counter[tuple[str, ...]] = Counter()
    for record in records:
        if record.serial_parity is not None or Flag.UNSAMPLED in record.flags:
            continue
        serial = next((m for m in record.modes if m.mode == Mode.SERIAL), None)
        sides = () if serial is None else tuple(s for s in SIDES if not getattr(serial, s).n)
        lacking_sides[sides] += 1
    said = []
    for sides, count in sorted(lacking_sides.items(), key=lambda item: -len(item[0])):
        records_said = f"{count:,} more record{'s' if count != 1 else ''}"
        if not sides:
            said.append(f"{records_said} {'were' if count != 1 else 'was'} not sampled serially")
        elif len(sides) == 2:
            said.append(f"neither side has a successful serial sample of {records_said}")
        else:
            said.append(f"the {sides[0]} has no successful serial sample of {records_said}")
    return said


def lacking(records: Iterable[RecordVerdict | Any]) -> int:
    """The records held `unsampled` that one capture lacks (compared `only-base` or
    `only-patch`): nothing of theirs differs, a capture has none."""
    return sum(
        1
        for r in records
        if Flag.UNSAMPLED in r.flags and r.comparison_status in ("only-base", "only-patch")
    )


def unsampled_text(count: int, lacked: int = 0) -> str:
    """'4 records whose captures differ were never sampled (on one side or both), so
    their difference is unexplained'; `lacked` of them one capture lacks, said as such
    (newuser68: a doc the patch's log lacks read as captures that differ)."""
    if lacked:
        differ = count - lacked
        which = (
            f"whose captures differ ({differ:,}) or that one capture lacks ({lacked:,})"
            if differ
            else "that one capture lacks"
        )
        were = "were" if count != 1 else "was"
        return (
            f"{plural(count, 'record')} {which} {were} never sampled (on one side or "
            "both), so nothing explains "
            + ("them" if differ else ("their absence" if count != 1 else "its absence"))
        )
    were = (
        "records whose captures differ were" if count != 1 else ("record whose captures differ was")
    )
    return (
        f"{count:,} {were} never sampled (on one side or both), so "
        f"{'their' if count != 1 else 'its'} difference is unexplained"
    )
