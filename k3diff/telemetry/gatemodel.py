"""The acceptance gate's values (`--fail-on acceptance-drop`, `k3diff.telemetry.gate`): what it
tests and its caps, the units of one side it permutes (recorded so that `report` runs it again),
its tests and its findings. Part of the run's telemetry (`k3diff.telemetry.model`)."""

from __future__ import annotations

from dataclasses import dataclass

ACCEPTANCE_UNDECIDED = "acceptance-undecided"
"""The finding of a gate whose units are too few for any p <= alpha (or with nothing to
compare): held, it fails, as triage's no-power does."""
UNREPORTED_PREFIX = "base reports "
"""How the undecided detail of positions one side reports and the other not begins."""


GATE_STATISTIC = (
    "base rate - patch rate, each a ratio of totals over its side's units; one-sided "
    "permutation test of the side labels over the units"
)
"""What `--fail-on acceptance-drop` tests, as its JSON states it."""
GATE_EXACT_SPLITS = 99_999
"""Label splits enumerated exactly up to this many."""
GATE_RESAMPLES = 9_999
"""Past GATE_EXACT_SPLITS, this many random splits (the observed counted: p >= 1/10,000)."""
GATE_MAX_UNITS = 10_000
"""Units a side the document records (`acceptance_units`) and the gate runs on: `report` runs
the gate again from them, so they bound its time (a comparison of 10,000 units a side, 9,999
resamples, is about 2.6 s of CPU since stop 62, 4.3 s before; the comparisons of one size share
their draws since telemetry63) and the document's size. Past it
the gate runs on blocks of consecutive units (`k3diff.telemetry.blocks`), which the document
records instead."""
GATE_MAX_WORK = 200_000
"""Units of both sides summed over every comparison the gate makes (pooled, and each draft
position): what one `report` run of the gate costs, about 0.12 ms of CPU per unit at stop
62 (9,999 resamples; 0.2 ms before, when the cap was 120,000), so about 25 s at the cap, where
a document of 10,000 units a side at 16 positions (17 comparisons, 340,000) cost 73 s
(alpha61). Since telemetry63 the comparisons of one size share their splits
(`k3diff.telemetry.permutation`): a whole `telemetry` run at the cap is about 4-6 s of CPU. It holds a run at the unit cap with 9 draft positions, or 16 positions at 5,880
units a side. Past it `telemetry` gates and records blocks of consecutive units that fit it
(`k3diff.telemetry.blocks`), and `report` refuses a document whose units are past it (exit
2)."""


@dataclass(frozen=True)
class SideUnits:
    """One side's speculation counts per unit, from the one source it is read from: what the
    acceptance gate permutes, recorded so that `report` can run the gate again."""

    source: str
    """The engine whose counts these are (`accounting.SOURCE_ORDER`)."""
    requests: int
    """Requests whose counts are in."""
    token_units: tuple[tuple[int, int], ...]
    """Per unit (a TensorRT-LLM request, a vLLM window, an SGLang sample): (accepted, drafted)
    tokens."""
    position_units: tuple[tuple[int, tuple[int, ...]], ...]
    """Per unit that reported positions: (drafts, drafts with at least L accepted for L =
    1..K)."""
    block: int = 1
    """Units summed into each of the lists' entries (`k3diff.telemetry.blocks`): 1, the units
    themselves; past the gate's caps, consecutive blocks of this many (the last of a list may
    hold fewer)."""
    unblocked: tuple[int, int] | None = None
    """With `block` > 1: the lengths of the two lists before blocking (token, position units)."""

    @property
    def units(self) -> int:
        """The larger of its two lists (what `GATE_MAX_UNITS` caps)."""
        return max(len(self.token_units), len(self.position_units))


@dataclass(frozen=True)
class GateTest:
    """Base vs patch acceptance, pooled (`position` None) or at one draft position, by a
    one-sided permutation test of the side labels over units."""

    position: int | None
    """1-based draft position; None: draft tokens pooled."""
    base_units: int
    patch_units: int
    """Units of each side with something drafted (a TensorRT-LLM request, a vLLM window, an
    SGLang sample)."""
    base_accepted: int
    base_total: int
    patch_accepted: int
    patch_total: int
    """Accepted of drafted tokens (pooled) or drafts reaching the position, of all drafts."""
    p: float
    """One-sided permutation p (patch lower): share of the label permutations whose statistic
    is at least the observed one (exact, or Monte Carlo with the observed counted)."""
    p_adjusted: float
    """Holm-adjusted across the gate's tests."""
    p_min: float
    """The smallest p the permutation can give at these units (1 / the number of splits,
    exact; 1 / (resamples + 1), Monte Carlo)."""
    exact: bool
    """Every split enumerated."""

    @property
    def difference(self) -> float:
        """The statistic: base rate - patch rate, each a ratio of totals over its units."""
        return self.base_accepted / self.base_total - self.patch_accepted / self.patch_total


@dataclass(frozen=True)
class GateFinding:
    """`acceptance-drop` (at a position, or pooled) or `acceptance-undecided`."""

    name: str
    position: int | None
    detail: str


@dataclass(frozen=True)
class AcceptanceGate:
    """`--fail-on acceptance-drop`: its tests, at `alpha`, and what it found."""

    tests: tuple[GateTest, ...]
    smallest_p_adjusted: float | None
    """Tests x the smallest p_min: the least Holm p any test could give (None: no test)."""
    findings: tuple[GateFinding, ...]
    exact_splits: int
    """Splits enumerated exactly up to this many."""
    resamples: int
    """Monte Carlo resamples past them (the seed is fixed)."""
    lost_windows: tuple[int, int] = (0, 0)
    """vLLM windows lost to a counter that went down (base, patch): in no test. A gate that
    lost windows finds a drop in the others, or holds (`acceptance-undecided`), never passes."""
    block: int = 1
    """1, a test of units; past the caps, of blocks of this many (`k3diff.telemetry.blocks`)."""
    allow_same_server: bool = False
    """`--allow-same-server`: a run of one server judged as an A/A run, not held."""
