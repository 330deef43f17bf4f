"""Telemetry of a sampling run: frozen values, rendered by `k3diff.report.telemetry`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from k3diff.exitcodes import ExitCode
from k3diff.sample.stopline import LogStop
from k3diff.telemetry.failed import FailedSamples
from k3diff.telemetry.gatemodel import AcceptanceGate, GateFinding, SideUnits
from k3diff.telemetry.unlogged import UnloggedRecords
from k3diff.telemetry.windows import CounterReset

DEFAULT_ALPHA = 0.05
"""`telemetry --alpha`'s default: the house level the bundle names a document's other α against,
and the level `report --fail-on acceptance-drop` imposes the gate at."""


class Expectation(StrEnum):
    """What a run was meant to exercise (`--expect`)."""

    CACHE_REUSE = "cache-reuse"
    """Prompt-cache hits: some sample reports cached prompt tokens."""
    SPECULATION = "speculation"
    """Speculative decoding: the server reports drafted tokens."""
    DRAFT_LENGTHS = "draft-lengths"
    """`draft-lengths=1-K`: on every side, for every length L in 1..K, some draft had at least
    L tokens accepted (the engine reports positions: vLLM's per-position counter, SGLang's
    acceptance histogram)."""


class Gate(StrEnum):
    """What `--fail-on` fails the run on."""

    ACCEPTANCE_DROP = "acceptance-drop"
    """The patch accepts fewer draft tokens than the base, pooled or at some draft position,
    by a permutation test over units (requests, vLLM windows), not tokens."""


COUNTER_RESET = "counter-reset"
"""A vLLM counter that went down across a window: the server restarted during the run."""
PREEMPTION_NEW = "preemption-new"
"""The patch's vLLM preempted requests where the base's preempted none (a warning)."""


@dataclass(frozen=True)
class ModeTelemetry:
    """One side and mode."""

    side: str
    mode: str
    samples: int
    """Samples that succeeded (telemetry of failed requests is not counted)."""
    latency_p50: float | None
    latency_p90: float | None
    latency_p99: float | None
    """Seconds, from each sample's `latency_s` (None with no sample)."""
    prompt_tokens: int
    """Sum of `usage.prompt_tokens` over the samples that report it."""
    cached_tokens: int
    """Sum of cached prompt tokens (`usage.prompt_tokens_details.cached_tokens`, or a top-level
    `cached_tokens`, as engines report it; where the usage has none, the rise of the server's
    prefix-cache hit counter across the request, `server_cache_hits`)."""
    cache_reported: int
    """Samples whose usage carries a cached-token count at all (0 on both: the server does not
    report it, which is not the same as zero hits)."""
    cache_hits: int
    """Samples with more than zero cached prompt tokens."""
    cold_hits: int = 0
    """cold-warm: of `cache_hits`, the cold requests' (repeat 0, under a fresh `cache_salt` or
    after `--flush-url`): a cold request must miss, so its hit is no evidence of reuse but of a
    salt or flush that did not take (telem67)."""
    cold_unread: int = 0
    """cold-warm: cold requests that failed (left67c), or whose usage was not valid
    (`usage_invalid`) and whose cached count nothing else reports: whether they missed the cache cannot be read (as `KvReuse`'s
    `invalid_cold`; left67)."""
    cache_unchecked: int = 0
    """Samples whose usage counts cached prompt tokens but no `prompt_tokens` to check them
    against, and that nothing else reports a cached count for: not counted in `cache_reported`
    (review78c)."""
    spec_accepted: int | None = None
    spec_drafted: int | None = None
    """Draft tokens accepted and proposed in this side and mode, from the side's speculation
    source (`Speculation.source`); None when it reports none here."""


@dataclass(frozen=True)
class Speculation:
    """Speculative-decoding acceptance on one side, from `/perf_metrics`."""

    side: str
    accepted: int
    """Draft tokens the target model accepted."""
    drafted: int
    """Draft tokens proposed."""
    requests: int
    """Requests whose metrics carry speculation counts."""
    ci_low: float | None
    ci_high: float | None
    """Clopper-Pearson interval of the acceptance rate at 1 - alpha (None with nothing drafted)."""
    source: str = ""
    """Where the counts come from: TensorRT-LLM /perf_metrics, vLLM /metrics or SGLang
    meta_info (the first of these a side reports; never two added up)."""

    @property
    def rate(self) -> float | None:
        """accepted / drafted."""
        return self.accepted / self.drafted if self.drafted else None


@dataclass(frozen=True)
class KvReuse:
    """TensorRT-LLM's `kv_cache_metrics` on one side: KV-cache blocks reused per request."""

    side: str
    """base or patch."""
    requests: int
    """Requests whose metrics carry `kv_cache_metrics`."""
    reused_blocks: int
    """Sum of `num_reused_blocks`."""
    missed_blocks: int
    """Sum of `num_missed_blocks`."""
    hits: int
    """Requests that reused at least one block (a cache hit)."""
    cold_hits: int = 0
    """cold-warm: of `hits`, the cold requests' (the first record drained after a record's
    repeat 0): no evidence of reuse, but of a salt or flush that did not take (telem67)."""
    invalid: int = 0
    """Requests whose `kv_cache_metrics` were no counts (a block count missing, negative,
    fractional, ...): lost, in none of the counts above, and not "not reported" (telem67)."""
    invalid_cold: int = 0
    """Of `invalid`, cold-warm cold requests: whether they missed the cache cannot be read."""
    lost: str | None = None
    """The first of the `invalid` requests, and why (`the TensorRT-LLM request of KEY MODE
    repeat N: ...`)."""
    unread_cold: int = 0
    """cold-warm cold requests whose `/perf_metrics` drain cannot be read (not in the file, or
    the first after a resume): whether they missed the cache cannot be read (telem68)."""
    unread: str | None = None
    """The first of the `unread_cold` requests, and why."""


@dataclass(frozen=True)
class PositionRate:
    """Acceptance at one draft position on one side: drafts with at least `position` tokens
    accepted, of all drafts (vLLM's per-position rate; from SGLang's histogram the same)."""

    side: str
    """base or patch."""
    position: int
    """1-based draft position (draft length)."""
    accepted: int
    """Drafts with at least `position` tokens accepted."""
    drafts: int
    """Drafts (verify steps) of the side."""
    ci_low: float | None
    ci_high: float | None
    """Clopper-Pearson interval at 1 - alpha (None with no draft)."""

    @property
    def rate(self) -> float | None:
        """accepted / drafts."""
        return self.accepted / self.drafts if self.drafts else None


@dataclass(frozen=True)
class PositionTest:
    """Base vs patch acceptance at one draft position."""

    position: int
    p: float
    """Fisher's exact two-sided p of the 2x2 table (accepted, not) x (base, patch)."""
    p_adjusted: float
    """Holm-adjusted across the positions compared."""


@dataclass(frozen=True)
class Preemptions:
    """`vllm:num_preemptions_total`'s rise over one side's windows (vLLM V1 logs no line per
    preemption: this counter is the evidence)."""

    side: str
    preemptions: int
    windows: int
    """Windows it was read across."""


@dataclass(frozen=True)
class NotExercised:
    """A run meant to exercise something that shows none of it (coverage debt)."""

    expectation: Expectation
    """The axis `--expect` named."""
    side: str
    """base or patch."""
    detail: str
    """What was seen instead."""


@dataclass(frozen=True)
class TelemetryReport:
    """The run's telemetry and its verdict."""

    logs: tuple[str, ...]
    alpha: float
    modes: tuple[ModeTelemetry, ...]
    speculation: tuple[Speculation, ...]
    """One per side that reports speculation counts."""
    acceptance_p: float | None
    """Fisher's exact p of base vs patch acceptance (tokens pooled; None unless both sides
    drafted). Tokens of one request are not independent, so read it as a screen."""
    expected: tuple[Expectation, ...]
    not_exercised: tuple[NotExercised, ...]
    kv_reuse: tuple[KvReuse, ...] = ()
    """One per side whose TensorRT-LLM metrics carry `kv_cache_metrics`."""
    positions: tuple[PositionRate, ...] = ()
    """Per side and draft position, where the engine reports positions."""
    position_tests: tuple[PositionTest, ...] = ()
    """Per position with drafts on both sides."""
    draft_lengths: int | None = None
    """K of `--expect draft-lengths=1-K`."""
    metrics_problems: tuple[tuple[str, str, bool], ...] = ()
    """Per side, `URL: problem` of its `/metrics` as `sample` probed it (an HTML error page,
    HTTP 404): why vLLM's counters may be missing; and whether it could not be read (an error,
    not a server that exposes none; telem68). Said beside a side that reports no speculation."""
    fail_on: tuple[Gate, ...] = ()
    acceptance_gate: AcceptanceGate | None = None
    """`--fail-on acceptance-drop`'s tests and findings (None when not asked)."""
    acceptance_units: Mapping[str, SideUnits] | None = None
    """Per side that reports speculation, its units, or past the gate's caps their blocks
    (`k3diff.telemetry.blocks`)."""
    counter_resets: tuple[CounterReset, ...] = ()
    """vLLM counters that went down across a window, per side and window."""
    preemptions: tuple[Preemptions, ...] = ()
    """Per side whose vLLM `/metrics` exposes `vllm:num_preemptions_total`."""
    stops: tuple[LogStop, ...] = ()
    """The stop of each log whose last line is one, with its log: the run stopped part-way
    (telstop65; its log named, report66)."""
    unsampled: tuple[str, ...] = ()
    """Sides the run's header lists with no successful sample (a run stopped before them)."""
    v0_sides: tuple[str, ...] = ()
    """Sides whose vLLM V0 `/metrics` exposes speculative-decoding series that are not read
    as counts (V0 adds running totals to them: a sum of sums)."""
    failed: tuple[FailedSamples, ...] = ()
    """Per side with failed samples, their count and most common error (none counted above)."""
    unlogged: tuple[UnloggedRecords, ...] = ()
    """Per side, the records the run asked that the log has no line of (filtered out, or a run
    killed before them: newuser70)."""
    unlisted: tuple[str, ...] = ()
    """The logs whose header does not state what their run owed (no `run.log_format`: written
    before samples71), of which `unlogged` can tell nothing (samples72: before, telemetry said
    nothing of them where triage holds their records)."""
    one_server: tuple[tuple[str, str], ...] = ()
    """Each log whose base and patch were one server, with where (`coldsent.shared_server`):
    its latency rows are one server's under two labels (words72)."""
    allow_same_server: bool = False
    """`--allow-same-server`: a gate (its own, or one `report` imposes) judges one server."""

    @property
    def new_preemption(self) -> Preemptions | None:
        """The patch side's preemptions where the base, read as well, had none: a warning
        (preemption changes batch composition, hence greedy outputs under continuous
        batching), never a failure on its own."""
        by_side = {p.side: p for p in self.preemptions}
        base, patch = by_side.get("base"), by_side.get("patch")
        if base is None or patch is None or base.preemptions or not patch.preemptions:
            return None
        return patch

    @property
    def gate_findings(self) -> tuple[GateFinding, ...]:
        return self.acceptance_gate.findings if self.acceptance_gate is not None else ()

    @property
    def exit_code(self) -> ExitCode:
        """1 when an expected axis was not exercised or a gate failed, else 0."""
        return ExitCode.FINDINGS if self.not_exercised or self.gate_findings else ExitCode.OK
