"""How many requests a samples log sent on a side between two drains of its server: those
answered, and the failed attempts, each of which may have left a `/perf_metrics` record or
none (telem70: both of `k3diff.telemetry.colddrains`' counts take them so)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from k3diff.sample.lines import SampleLine
from k3diff.sample.names import CO_BATCHED, Mode
from k3diff.sample.perfdrain import PERF_BATCH_FIELD
from k3diff.sample.reader import SamplesLog

Ident = tuple[str, str, str, int]
"""(side, key, mode, repeat): the sample a drain is labelled with."""

Count = tuple[int, int, str]
"""Requests answered, failed attempts, and the first failed one named ("" when none)."""


class Sent:
    """How many requests a samples log sent on a side between two of its samples: those
    answered, and the failed attempts (a failed sample's, the retried ones of an answered
    sample), each of which may have left a record or none."""

    def __init__(self, log: SamplesLog) -> None:
        self.log = log
        self.at = {sample.ident: index for index, sample in enumerate(log.samples)}
        self.segments = log.segments or (0,) * len(log.samples)
        self.batch_end: dict[tuple[str, str], int] = {}
        """(side, batch) -> the line of its last sample, where the log's runs drain each batch
        on its own server after it (telem70: `PERF_BATCH_FIELD`); a drain labelled with one
        of its samples follows all of them, which `sample` writes as they end."""
        if log.header.fields.get(PERF_BATCH_FIELD) is True:
            for index, sample in enumerate(log.samples):
                if sample.batch is not None:
                    self.batch_end[sample.side, sample.batch] = index

    def since(self, index: int, label: Ident) -> Count | None:
        """The requests of the side of `label` after the sample at `index` up to the one
        `label` names (itself included), counted (`count`); None when that one is not after it."""
        between = self._between(index, label)
        return None if between is None else count(between)

    def _between(self, index: int, label: Ident) -> list[SampleLine] | None:
        end = self.at.get(label)
        if end is None or end <= index:
            return None
        side, batch = label[0], self.log.samples[end].batch
        end = self.batch_end.get((side, batch or ""), end)
        return [s for s in self.log.samples[index + 1 : end + 1] if s.side == side]

    def unnamed_before(self, index: int) -> SampleLine | None:
        """The first sample of the side of the sample at `index` before it in its run whose
        mode also sends requests that no sample names (`unnamed`), None where none is."""
        side, segment = self.log.samples[index].side, self.segments[index]
        return next(
            (
                sample
                for sample, at in zip(self.log.samples[:index], self.segments, strict=False)
                if sample.side == side and at == segment and sample.mode in CO_BATCHED
            ),
            None,
        )

    def unnamed_since(self, index: int, label: Ident) -> SampleLine | None:
        """The first sample `since` counts whose mode also sends requests that no sample names
        (`unnamed`), None where none is."""
        between = self._between(index, label) or []
        return next((sample for sample in between if sample.mode in CO_BATCHED), None)

    def before(self, index: int) -> Count:
        """The requests of the side of the sample at `index` before it in its run (the
        segment), counted (`count`): every one was answered (or failed) before it was sent
        (a cold-warm request goes out alone, and `sample` writes a line once its request
        ended)."""
        side, segment = self.log.samples[index].side, self.segments[index]
        return count(
            sample
            for sample, at in zip(self.log.samples[:index], self.segments, strict=False)
            if sample.side == side and at == segment
        )

    def rest(self, index: int) -> Count:
        """The requests of the side of the sample at `index` after it in its run (the
        segment), counted (`count`): those before a resumed run's start-up drain, or the
        run's closing drain."""
        side, segment = self.log.samples[index].side, self.segments[index]
        return count(
            sample
            for sample, at in zip(
                self.log.samples[index + 1 :], self.segments[index + 1 :], strict=False
            )
            if sample.side == side and at == segment
        )


def shared_server(log: SamplesLog) -> str | None:
    """The URLs where the log's base and patch are one server (an A/B run of request fields),
    with where both connect ('http://localhost:8000 and http://127.0.0.1:8000, both loopback
    port 8000'), None where they are not (review70d: each side's drain takes both sides'
    records, so a record that came late is in the other side's next drain, and both sides'
    counts held where each had lost one and gained one: the patch's cold request was read as a
    base warm request's miss, exit 0). One server under two spellings is one server, as the
    header records where each side connects (`k3diff.sample.oneserver`, server71)."""
    found = log.header.one_server
    return None if found is None else f"{found.urls}, both {found.where}"


def unnamed(mode: str) -> tuple[str, str]:
    """What a mode of `CO_BATCHED` sends that no sample names, and one of them's (review70d:
    TensorRT-LLM records them as any request, so their records fill the count of one missing,
    and no count of a drain that holds them proves which record is whose)."""
    if mode == Mode.LOADED.value:
        return "background requests", "a background request's"
    return "fillers", "a filler's"


def count(samples: Iterable[SampleLine]) -> Count:
    """`samples`' requests answered, their failed attempts, and the first failed one named."""
    answered = failures = 0
    first = ""
    for sample in samples:
        failed_here = sample.attempts - (0 if sample.error is not None else 1)
        answered += sample.error is None
        failures += failed_here
        if failed_here and not first:
            first = f"{sample.key} {sample.mode} repeat {sample.repeat}"
    return answered, failures, first


def requests(count: int) -> str:
    return f"{count} request{' was' if count == 1 else 's were'}"


def records(count: int) -> str:
    return f"{count} record{'' if count == 1 else 's'}"


def label(entry: Mapping[str, Any]) -> Ident | None:
    """The sample a drain is labelled with (any mode), None for a line labelled with none."""
    key, mode, repeat = entry.get("key"), entry.get("mode"), entry.get("repeat")
    if not isinstance(key, str) or not isinstance(mode, str) or type(repeat) is not int:
        return None
    return str(entry.get("side")), key, mode, repeat
