"""Adding up what each engine reported, per side and mode: speculation (one source per side),
KV-cache reuse (TensorRT-LLM), and acceptance by draft position (vLLM, SGLang)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from k3diff import bounded
from k3diff.errors import InputError
from k3diff.sample.lines import SampleLine
from k3diff.sample.log import PerfLog
from k3diff.sample.names import SIDES, Mode
from k3diff.sample.perfdrain import ERROR
from k3diff.sample.reader import SamplesLog
from k3diff.telemetry.colddrains import cold_drains
from k3diff.telemetry.drainplace import Drain
from k3diff.telemetry.engines import (
    SOURCE_SGLANG,
    SOURCE_TRTLLM,
    SOURCE_VLLM,
    RequestMetrics,
    sample_counts,
    server_count,
    trtllm_requests,
)
from k3diff.telemetry.gatemodel import SideUnits
from k3diff.telemetry.model import KvReuse, Preemptions
from k3diff.telemetry.windows import INVALID, CounterReset

SOURCE_ORDER = (SOURCE_TRTLLM, SOURCE_VLLM, SOURCE_SGLANG)
"""A side's speculation is read from the first source it reports (never two added up)."""


@dataclass
class SideCounts:
    """One source's counts on one side."""

    accepted: int = 0
    drafted: int = 0
    requests: int = 0
    """Requests whose counts are in: TensorRT-LLM's records, the samples of vLLM's windows,
    SGLang's samples."""
    by_mode: dict[str, list[int]] = field(default_factory=dict)
    """mode -> [accepted, drafted]."""
    drafts: int = 0
    """Drafts the positions count over."""
    at_least: list[int] = field(default_factory=list)
    """Per position 1..K: drafts with at least that many tokens accepted."""
    positions: bool = False
    """Some record reported positions."""
    token_units: list[tuple[int, int]] = field(default_factory=list)
    """Per unit (a TensorRT-LLM request, a vLLM window, an SGLang sample): (accepted,
    drafted) tokens: what `--fail-on acceptance-drop` permutes."""
    position_units: list[tuple[int, tuple[int, ...]]] = field(default_factory=list)
    """Per unit that reported positions: (drafts, at_least)."""
    control_at_least: list[int] = field(default_factory=list)
    """The control's share of `drafts` (first) and `at_least` (after): what `--expect
    draft-lengths` does not count (telemetry66)."""

    def add(self, mode: str, accepted: int, drafted: int, requests: int = 1) -> None:
        self.accepted += accepted
        self.drafted += drafted
        self.requests += requests
        self.token_units.append((accepted, drafted))
        totals = self.by_mode.setdefault(mode, [0, 0])
        totals[0] += accepted
        totals[1] += drafted

    def add_positions(self, drafts: int, at_least: tuple[int, ...], mode: str = "") -> None:
        self.positions = True
        self.position_units.append((drafts, at_least))
        _add_to(self.at_least, at_least)
        self.drafts += drafts
        if mode == Mode.CONTROL.value:
            _add_to(self.control_at_least, (drafts, *at_least))

    def modes_positions(self) -> tuple[int, list[int]]:
        """(drafts, at_least) of the modes' requests: the control's taken out."""
        control = [*self.control_at_least, *[0] * (1 + len(self.at_least))]
        left = [n - c for n, c in zip(self.at_least, control[1:], strict=False)]
        return self.drafts - control[0], left


def _add_to(totals: list[int], counts: tuple[int, ...]) -> None:
    """Add `counts` position by position to `totals`, growing it as needed."""
    totals.extend([0] * (len(counts) - len(totals)))
    for index, count in enumerate(counts):
        totals[index] += count


@dataclass
class Accounts:
    """Everything read, per side."""

    speculation: dict[str, dict[str, SideCounts]] = field(default_factory=dict)
    """side -> source -> counts."""
    kv: dict[str, list[int]] = field(default_factory=dict)
    """side -> [requests, reused, missed, hits, cold hits, invalid, invalid cold]."""
    kv_lost: dict[str, str] = field(default_factory=dict)
    """side -> the first request whose `kv_cache_metrics` were no counts, and why."""
    kv_unread: dict[str, list[str]] = field(default_factory=dict)
    """side -> the cold-warm cold requests whose `/perf_metrics` drain cannot be read, each
    with why (telem68)."""
    resets: list[CounterReset] = field(default_factory=list)
    """vLLM counters that went down or restarted across a window (its counts lost) or between
    two windows; every unit whose counts were lost (`k3diff.telemetry.windows`)."""
    preempted: dict[str, list[int]] = field(default_factory=dict)
    """side -> [preemptions, windows] (vLLM `vllm:num_preemptions_total`)."""
    v0: set[str] = field(default_factory=set)
    """Sides whose vLLM V0 speculation series are exposed (not read as counts)."""

    def preemptions(self) -> tuple[Preemptions, ...]:
        return tuple(Preemptions(s, *counts) for s, counts in sorted(self.preempted.items()))

    def source(self, side: str) -> tuple[str, SideCounts] | None:
        """The side's speculation source and its counts (the first in SOURCE_ORDER)."""
        sources = self.speculation.get(side, {})
        return next(((s, sources[s]) for s in SOURCE_ORDER if s in sources), None)

    def units(self) -> dict[str, SideUnits]:
        """Per side that reports speculation, its source's units (what the gate permutes)."""
        found = {}
        for side in SIDES:
            source = self.source(side)
            if source is not None:
                name, counts = source
                found[side] = SideUnits(
                    name, counts.requests, tuple(counts.token_units), tuple(counts.position_units)
                )
        return found

    def kv_reuse(self) -> tuple[KvReuse, ...]:
        found = []
        for side, counts in sorted(self.kv.items()):
            requests, reused, missed, hits, cold, invalid, invalid_cold = counts
            lost = self.kv_lost.get(side)
            kv = KvReuse(side, requests, reused, missed, hits, cold, invalid, invalid_cold, lost)
            if unread := self.kv_unread.get(side):
                kv = replace(kv, unread_cold=len(unread), unread=unread[0])
            found.append(kv)
        return tuple(found)

    def _counts(self, side: str, source: str) -> SideCounts:
        return self.speculation.setdefault(side, {}).setdefault(source, SideCounts())

    def add_request(
        self, side: str, mode: str, request: RequestMetrics, where: str, cold: bool = False
    ) -> None:
        """One TensorRT-LLM request drained after the sample `where` (`key mode repeat N`);
        `cold`: a cold-warm record's cold request."""
        if request.invalid is not None:  # lost, as an invalid vLLM window (left66)
            self.resets.append(
                CounterReset(side, INVALID, where, 1, True, request.invalid, SOURCE_TRTLLM)
            )
        if request.speculation is not None:
            self._counts(side, SOURCE_TRTLLM).add(mode, *request.speculation)
        if mode == Mode.CONTROL.value:
            # The control's requests (drained on their own since telemetry66) are not the
            # run's: its identical prompt reuses blocks whatever the modes do.
            return
        if request.kv is not None:
            reused, missed = request.kv
            totals = self.kv.setdefault(side, [0] * 7)
            totals[0] += 1
            totals[1] += reused
            totals[2] += missed
            totals[3] += 1 if reused > 0 else 0
            totals[4] += 1 if reused > 0 and cold else 0
        elif request.kv_invalid is not None:  # lost, not unreported (telem67)
            totals = self.kv.setdefault(side, [0] * 7)
            totals[5] += 1
            totals[6] += 1 if cold else 0
            lost = f"the TensorRT-LLM request of {where}: {request.kv_invalid}"
            self.kv_lost.setdefault(side, lost)

    def add_window(self, sample: SampleLine) -> None:
        """What a vLLM window says beside speculation: a reset, preemptions, V0 series."""
        spec = sample.server_spec or {}
        windows = server_count(spec.get("samples")) or 1
        if sample.server_reset is not None:
            metric = sample.server_reset[:120]
            window = f"{sample.key} {sample.mode} repeat {sample.repeat}"
            lost = set(spec) <= {"samples"}  # a window across the restart keeps no count
            self.resets.append(CounterReset(sample.side, metric, window, windows, lost))
        preemptions = server_count(spec.get("preemptions"))
        if preemptions is not None:
            totals = self.preempted.setdefault(sample.side, [0, 0])
            totals[0] += preemptions
            totals[1] += 1
        if spec.get("v0_counters"):
            self.v0.add(sample.side)

    def add_sample(self, sample: SampleLine) -> None:
        if sample.server_spec is not None or sample.server_reset is not None:
            self.add_window(sample)
        counts = sample_counts(sample)
        if counts is None:
            return
        if counts.invalid is not None:  # lost as across a restart: said, and in no test
            window = f"{sample.key} {sample.mode} repeat {sample.repeat}"
            lost = (INVALID, window, counts.requests, True, counts.invalid, counts.source)
            self.resets.append(CounterReset(sample.side, *lost))
            return
        if counts.accepted is not None and counts.drafted is not None:
            self._counts(sample.side, counts.source).add(
                sample.mode, counts.accepted, counts.drafted, counts.requests
            )
        # An SGLang histogram of one entry (every verify step accepted 0) reports positions too:
        # no draft reached any (telemetry66; before, such a side had no positions to screen).
        if counts.drafts is not None and (counts.at_least or counts.source == SOURCE_SGLANG):
            self._counts(sample.side, counts.source).add_positions(
                counts.drafts, counts.at_least, sample.mode
            )


def _perf_entries(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Each drained `/perf_metrics` document beside a samples log, through the capped reader
    (regular files only, every line under `--max-record-bytes`, strict JSON); none when the
    run drained none."""
    if not path.exists():
        return
    for number, line in bounded.file_lines(path, str(path), "perf-metrics log"):
        if not line.strip():
            continue
        try:
            entry = bounded.loads(line, f"{path}:{number}", written=True)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise InputError(f"{path}:{number}: malformed perf-metrics line: {exc}") from None
        if isinstance(entry, dict):
            side, mode = entry.get("side"), entry.get("mode")
            if side not in SIDES or (isinstance(mode, str) and not mode.isprintable()):
                # k3diff wrote this file: another side or a mode with a newline is an edit, and
                # would reach the report (a newline there starts a line of its own).
                shown = json.dumps([side, mode], ensure_ascii=True)[:80]
                raise InputError(
                    f"{path}:{number}: perf-metrics line with side and mode {shown}: "
                    "expected side base or patch, and a mode without control characters"
                )
            yield number, entry


def account(
    logs: tuple[Path, ...], samples: list[SampleLine], read: Sequence[SamplesLog] = ()
) -> Accounts:
    """What the engines reported across the runs of `logs` (their samples and the
    `perf_metrics.jsonl` beside each); `read`: the logs as read, whose cold-warm cold requests
    are matched to their drains (`k3diff.telemetry.colddrains`)."""
    accounts = Accounts()
    # Two logs in one directory share its perf log: read once, not once per log.
    perf_logs: dict[Path, tuple[Path, list[SamplesLog]]] = {}
    for index, log in enumerate(logs):
        shared = (log.parent / PerfLog.NAME).resolve()
        perf_logs.setdefault(shared, (log.parent / PerfLog.NAME, []))[1].extend(
            read[index : index + 1]
        )
    for perf, beside in perf_logs.values():
        # A failed drain's line (telem68b) holds no records: the server may have kept them.
        drains = [
            Drain(
                number, entry, [] if ERROR in entry else list(trtllm_requests(entry.get("metrics")))
            )
            for number, entry in _perf_entries(perf)
        ]
        # The drain after a cold-warm record's cold request (or, in logs before telem67, after
        # the whole record, sent one at a time): its first record is the cold request's (or the
        # next drain's one the counts prove, where its own held none: telem70); one
        # the file lacks, failed or after a failed drain, drained twice, or after a resume
        # whose start-up drain is not written, cannot be read (telem68, telem68b).
        colds = cold_drains(drains, beside, str(perf))
        for side, unread in colds.unread.items():
            accounts.kv_unread.setdefault(side, []).extend(unread)
        for position, drain in enumerate(drains):
            entry, requests = drain.entry, drain.requests
            side, mode = str(entry.get("side")), str(entry.get("mode"))
            drained = f"{entry.get('key')} {mode} repeat {entry.get('repeat')}"[:200]
            cold = colds.cold.get(position)
            for number, request in enumerate(requests, 1):
                where = drained + (f", record {number} of {len(requests)}" if requests[1:] else "")
                accounts.add_request(side, mode, request, where, cold == number - 1)
    for sample in samples:
        if sample.error is None or sample.server_spec is not None or sample.server_reset:
            accounts.add_sample(sample)
    return accounts
