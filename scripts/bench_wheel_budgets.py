"""What `bench_wheels.py` measures for one case (`CaseResult`) and the budgets of DESIGN.md
(raised in issue 41) it holds each case to (`budgets`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bench_wheel_cases import KEPT_BYTES, RECOMPRESSED, Case
from bench_wheel_runner import Timing

MEMORY_BUDGET_MB = 200.0


@dataclass(frozen=True)
class Budget:
    """One line of DESIGN.md's performance budgets."""

    label: str
    """What is measured, as printed."""
    value: Callable[[CaseResult], float]
    """The measured quantity."""
    passes: Callable[[float], bool]
    """Whether the value meets the budget."""
    unit: str
    """How the value is printed (×, MB)."""


@dataclass(frozen=True)
class CaseResult:
    """Everything measured for one case."""

    case: Case
    """The wheel pair."""
    k3diff: Timing
    """`k3diff wheels BASE PATCH --format json --no-file-hash`: the verdict the budgets time."""
    full: Timing
    """The same with the whole-file SHA-256 of both wheels (the default report)."""
    baselines: dict[str, Timing]
    """walk, read and sha256, by name."""
    problems: tuple[str, ...]
    """Correctness problems with the report (empty when right)."""
    how: dict[str, int]
    """How many entries each kind of evidence decided."""
    load: tuple[float, float, float]
    """The machine's 1, 5 and 15 minute load averages when the case finished."""

    def ratio(self, numerator: str, denominator: str) -> float:
        """seconds(numerator) / seconds(denominator); "k3diff" names the k3diff run."""
        return self.seconds(numerator) / self.seconds(denominator)

    def cpu_ratio(self, numerator: str, denominator: str) -> float:
        """As `ratio`, of median CPU seconds (user + system)."""
        return self._timing(numerator).cpu_seconds / self._timing(denominator).cpu_seconds

    def _timing(self, name: str) -> Timing:
        if name == "k3diff":
            return self.k3diff
        if name == "full":
            return self.full
        return self.baselines[name]

    def seconds(self, name: str) -> float:
        """Median seconds of one measurement."""
        if name == "k3diff":
            return self.k3diff.seconds
        if name == "full":
            return self.full.seconds
        return self.baselines[name].seconds


def walk_speedup(result: CaseResult) -> float:
    return result.ratio("walk", "k3diff")


def read_slowdown(result: CaseResult) -> float:
    return result.ratio("k3diff", "read")


def floor_ratio(result: CaseResult) -> float:
    return result.ratio("k3diff", "inflate")


def _peak(result: CaseResult) -> float:
    return max(result.k3diff.peak_rss_mb, result.full.peak_rss_mb)


def budgets(key: str) -> list[Budget]:
    memory = Budget("k3diff peak RSS < 200 MB", _peak, lambda v: v < MEMORY_BUDGET_MB, "MB")
    if key in KEPT_BYTES:
        return [
            Budget(f"walk / k3diff ≥ {_kept(key)}×", walk_speedup, lambda v: v >= _kept(key), "×"),
            Budget("k3diff / read-once ≤ 3×", read_slowdown, lambda v: v <= 3, "×"),
            memory,
        ]
    if key in RECOMPRESSED:
        return [
            Budget("k3diff / inflate floor ≤ 1.2×", floor_ratio, lambda v: v <= 1.2, "×"),
            memory,
        ]
    return [Budget("walk / k3diff ≥ 20× (verdict)", walk_speedup, lambda v: v >= 20, "×"), memory]


def _kept(key: str) -> int:
    """The bytes-kept budget: 15× the walk on the many-small-entries shape, 25× on CUDA."""
    return 15 if key == "e" else 25
