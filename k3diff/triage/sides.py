"""One side's observations in one mode, as a verdict carries them (`SideStats`): the counts the
tests were run on, and what the side's batches and cache counts proved, each figure derived
from the value that holds it rather than copied beside it; and one side at one level of a sweep
(`SweepPoint`)."""

from __future__ import annotations

from dataclasses import dataclass

from k3diff.sample.proof import Overlap


@dataclass(frozen=True)
class CacheCounts:
    """cold-warm: what the server's cached-token counts (`usage`) say of one side's samples of a
    key; all 0 in the other modes."""

    warm: int = 0
    """Successful warm samples (after the cold one)."""
    hits: int = 0
    """Of those, the samples reporting cached prompt tokens > 0."""
    cold_cached: int = 0
    """Cold samples that already reported cached prompt tokens (the cache was warm before the
    cold request: its axis is not exercised; e.g. a server that ignores `cache_salt` and has
    seen the prompt before)."""
    cold_outputs: frozenset[str] = frozenset()
    warm_outputs: frozenset[str] = frozenset()
    """The cold and the warm samples' outputs (`text_xxh3`): a cold output missing from the
    warm ones is `cache-dependent` where the warm ones hit. Every cold sample's, a resumed
    run's too (left67: the first sample alone was read as cold)."""


@dataclass(frozen=True)
class SideStats:
    """One side's observations in one mode: its samples (and the capture, under
    `--capture-mode` for this mode)."""

    n: int
    """Successful observations: requests sent in this mode that succeeded (plus the capture
    when `captured`)."""
    errors: int
    """Failed samples (not in n)."""
    modal: int
    """Observations equal to the most common output."""
    nonmodal_bound: float
    """Upper bound (confidence 1 - α) on the probability of a non-modal output."""
    deviation_ci: tuple[float, float]
    """Clopper–Pearson interval of the deviation-from-mode rate."""
    outputs: frozenset[str]
    """The distinct output digests."""
    modal_output: str | None
    """The most common output digest (ties broken by first seen)."""
    captured: bool = False
    """The capture is one of the n (`--capture-mode` names this mode)."""
    modal_outputs: frozenset[str] = frozenset()
    """Every output as common as the modal one (more than one when the most common tie)."""
    overlap: Overlap | None = None
    """How far the side's batches of the mode were in flight together at the server (None:
    serial, or nothing timed)."""
    cache: CacheCounts = CacheCounts()
    """cold-warm: the side's cached-token counts (all 0 in other modes)."""

    @property
    def distinct(self) -> int:
        """Distinct outputs among the n (by text_xxh3)."""
        return len(self.outputs)

    @property
    def modal_share(self) -> float | None:
        """Share of the n that gave the most common output (None: no observation)."""
        return self.modal / self.n if self.n else None

    @property
    def stable(self) -> bool:
        """At least two observations, all equal."""
        return self.n >= 2 and self.distinct == 1

    @property
    def unstable(self) -> bool:
        """At least two distinct outputs: proven nondeterministic."""
        return self.distinct >= 2

    # What the batches proved (`overlap`), by the names the documents and reports use.

    @property
    def in_flight(self) -> int | None:
        """The most of this side's requests proven in flight together at the server in any batch
        of the mode (its gauge; 1 where streams never interleaved); None: serial, untimed, or
        undecided."""
        return None if self.overlap is None else self.overlap.largest

    @property
    def batches(self) -> int:
        """Batches that could show overlap (timed, two or more requests, or a loaded target)."""
        return 0 if self.overlap is None else self.overlap.batches

    @property
    def one_at_a_time(self) -> int:
        """Of those, the batches not exercised (the gauge read 1, or streams that never
        interleaved at the client)."""
        return 0 if self.overlap is None else self.overlap.one_at_a_time

    @property
    def server_running(self) -> int | None:
        """The largest reading of the server's own running-requests gauge in any batch of the
        mode (None: the server exposes none, or it was not read)."""
        return None if self.overlap is None else self.overlap.server_largest

    @property
    def server_one_at_a_time(self) -> int:
        """Of `one_at_a_time`, the batches the server's running-requests gauge decided at 1: the
        server ran them one at a time."""
        return 0 if self.overlap is None else self.overlap.server_one_at_a_time

    @property
    def unproven(self) -> int:
        """Batches without a gauge reading, of whole answers or of streams that interleaved at
        the client: overlap neither proven nor refuted."""
        return 0 if self.overlap is None else self.overlap.unproven

    @property
    def load_failed(self) -> int:
        """Of `unproven`, loaded targets whose background requests all failed while they were
        in flight: not sent under the load the run claims."""
        return 0 if self.overlap is None else self.overlap.load_failed

    @property
    def load_idle(self) -> int:
        """Of `unproven`, loaded targets while which no background request ended: nothing shows
        the load overlapped them."""
        return 0 if self.overlap is None else self.overlap.load_idle

    @property
    def by_gauge(self) -> int:
        """Batches the server's running-requests gauge decided."""
        return 0 if self.overlap is None else self.overlap.by_gauge

    @property
    def by_token_windows(self) -> int:
        """Batches their streams' token windows decided (not exercised)."""
        return 0 if self.overlap is None else self.overlap.by_token_windows

    # What the cache counts say (`cache`), by the same names.

    @property
    def warm(self) -> int:
        """cold-warm: successful warm samples (after the cold one); 0 in other modes."""
        return self.cache.warm

    @property
    def cache_hits(self) -> int:
        """cold-warm: warm samples whose `usage` reports cached prompt tokens > 0."""
        return self.cache.hits

    @property
    def cold_cached(self) -> int:
        """cold-warm: cold samples that already reported cached prompt tokens (the cache was warm
        before the cold request: its axis is not exercised)."""
        return self.cache.cold_cached


@dataclass(frozen=True)
class SweepPoint:
    """One side at one concurrency level of a sweep."""

    side: str
    """base or patch."""
    level: int
    """Requests in flight together."""
    n: int
    """Successful samples at this level."""
    distinct: int
    """Distinct outputs at this level."""
    differ: int
    """Samples whose output is not the modal output of the lowest level (the serial one)."""
