"""Telemetry of a sampling run: frozen values, rendered by `k3diff.report.telemetry`."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from k3diff.exitcodes import ExitCode


class Expectation(StrEnum):
    """What a run was meant to exercise (`--expect`)."""

    CACHE_REUSE = "cache-reuse"
    """Prompt-cache hits: some sample reports cached prompt tokens."""
    SPECULATION = "speculation"
    """Speculative decoding: the server reports drafted tokens."""


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

    @property
    def rate(self) -> float | None:
        """accepted / drafted."""
        return self.accepted / self.drafted if self.drafted else None


@dataclass(frozen=True)
class NotExercised:
    """A run meant to exercise something that shows none of it."""

    expectation: Expectation
    side: str
    detail: str


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

    @property
    def exit_code(self) -> ExitCode:
        """1 when an expected axis was not exercised, else 0."""
        return ExitCode.FINDINGS if self.not_exercised else ExitCode.OK
