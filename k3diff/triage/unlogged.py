"""A record whose lines a log lacks, against what the log's own header says its run owed, is
held `unlogged` (`k3diff.sample.owed`): its verdict would be read from the lines left.

Before (samples71), three edits of a log passed (exit 0):

- a repeat line deleted (`jq 'select(.repeat != 2)'`, the header kept): the record was judged on
  the lines left, so a patch output the base never gave, on the deleted line, went unseen;
- one log's lines of a record removed where another log pooled with it (`--pool-runs`) held the
  record's lines: `unanswered` reads the logs pooled, so the gap hid behind the other's lines;
- the header's `run.keys` deleted: the log read as one written before the header listed the
  records asked, whose records' missing lines nothing could tell.

Each log is now read against its own header: a side's lines of a record and mode the log holds
fewer of than its run owed hold the record `unlogged` ("2 of 3 patch lines in serial"), unless
the logs hold none of that side there at all, which `unanswered` says. A header that states its
format and lacks `keys` is refused (`k3diff.sample.header`), and a log without a format
(written before samples71) holds every record it could have held: it cannot show that every
line its run owed is there. A regression candidate stays one."""

from __future__ import annotations

from collections.abc import Sequence

from k3diff.numbers import one_of
from k3diff.sample.owed import Shortfall, shortfalls
from k3diff.sample.reader import SamplesLog
from k3diff.triage.model import Flag, RecordVerdict
from k3diff.triage.rollup import held
from k3diff.triage.samples import Sample

SHOWN = 4
"""Shortfalls one record's reason names (the rest counted)."""


def hold_unlogged(
    records: Sequence[RecordVerdict],
    grouped: dict[str, dict[str, dict[str, list[Sample]]]],
    logs: Sequence[SamplesLog],
) -> tuple[RecordVerdict, ...]:
    """`records`, each held `unlogged` where a log lacks lines of it its run owed, or every one
    where a log cannot show what its run owed (no `run.log_format`)."""
    found: dict[str, list[Shortfall]] = {}
    unlisted = []
    for log in logs:
        short = shortfalls(log)
        if short is None:
            unlisted.append(log.path)
            continue
        for gap in short:
            pooled = grouped.get(gap.key, {}).get(gap.mode, {}).get(gap.side)
            if gap.logged or pooled:  # none of the side's lines in any log: `unanswered`'s
                found.setdefault(gap.key, []).append(gap)
    return tuple(_held(record, found.get(record.key, []), unlisted) for record in records)


def _held(verdict: RecordVerdict, gaps: list[Shortfall], unlisted: list[str]) -> RecordVerdict:
    if verdict.regression_candidate or not (gaps or unlisted):
        return verdict
    said = []
    if unlisted:
        said.append(
            f"{one_of(unlisted, 'and')} cannot show every record its run asked was logged (no "
            "run.log_format: a log written before k3diff stated what its run owed); re-sample "
            "with this version"
        )
    by_log: dict[str, list[str]] = {}
    for gap in gaps[:SHOWN]:
        by_log.setdefault(gap.log, []).append(
            f"{gap.logged:,} of {gap.owed:,} {gap.side} lines in {gap.mode}"
        )
    if len(gaps) > SHOWN:
        by_log[gaps[SHOWN - 1].log].append(f"{len(gaps) - SHOWN:,} more short")
    said.extend(
        f"{log} holds {one_of(parts, 'and')} of this record, which its run owed (lines removed "
        "from it: give the log as sample wrote it; or the run killed before them: its sample "
        "command with --resume takes them)"
        for log, parts in by_log.items()
    )
    # A log without a format is cleared by no more samples of it (no `more_samples`); a short
    # one keeps its `next:` step, whose `--resume` takes the lines owed (a stopped run's too).
    why = f"unlogged: {' and '.join(said)}"
    return held(verdict, Flag.UNLOGGED, why, samples_decide=not unlisted)
