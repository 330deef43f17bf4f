"""The next step after a triage that more samples would decide: how to take them. The run
that was triaged grows in place (`k3diff sample --resume` with a larger `--repeats`), unless it
is a sweep over several levels, whose repeats cannot grow: then a new run, pooled with
`triage --pool-runs`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from k3diff.sample.reader import SamplesLog


@dataclass(frozen=True)
class MoreSamples:
    """Where and how many more samples a side the inconclusive records ask for."""

    log: str
    """The log to grow (the last one triage was given), as named."""
    more: int
    """The most more samples a side any inconclusive record asks for."""
    repeats: int | None
    """The run's repeats now (None where its header does not say)."""
    growable: bool
    """`sample --resume` can grow the run (it is no sweep over several levels)."""

    @property
    def out(self) -> str:
        """The run's `--out` directory."""
        return str(Path(self.log).parent)


def more_samples(wanted: Sequence[int], logs: Sequence[SamplesLog]) -> MoreSamples | None:
    """The next step for records asking for `wanted` more samples a side (None: none asks, or
    no log was read)."""
    if not wanted or not logs:
        return None
    log = logs[-1]
    levels = log.header.fields.get("levels")
    sweep = isinstance(levels, list) and len(levels) > 1
    repeats = log.header.repeats
    return MoreSamples(log.path, max(wanted), repeats, not sweep and repeats is not None)
