"""What one mode observed, as classify's two steps pass it on: each side's observations, the
mode's numbers before the correction across records (`ModeEvidence`), and its p-values after it
(`Adjusted`). Their own module, so that `classify` and `reasons` both read them and neither
imports the other's types back.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from k3diff.sample.proof import Overlap
from k3diff.triage import stats
from k3diff.triage.model import Flag
from k3diff.triage.sampledlevel import judged_at
from k3diff.triage.sides import CacheCounts, SideStats


@dataclass(frozen=True)
class SideObservations:
    """What one side did for one key in one mode."""

    sequence: tuple[str | None, ...]
    """Sample outputs in request order (None for a failed sample)."""
    captured: str | None = None
    """The comparison's captured output when `--capture-mode` counts it as an observation of
    this mode (None otherwise: the capture is evidence of its own)."""
    overlap: Overlap | None = None
    """How far its batches were in flight together (None: serial, or nothing timed)."""
    cache: CacheCounts = field(default_factory=CacheCounts)
    """cold-warm: the side's cached-token counts (all 0 in other modes)."""

    @property
    def outputs(self) -> list[str]:
        """Every successful observation."""
        found = [digest for digest in self.sequence if digest is not None]
        return found if self.captured is None else [self.captured, *found]

    @property
    def errors(self) -> int:
        """Failed samples."""
        return sum(1 for digest in self.sequence if digest is None)


@dataclass(frozen=True)
class ModeEvidence:
    """One mode's numbers before the correction across records."""

    mode: str
    base: SideStats
    patch: SideStats
    flags: tuple[Flag, ...]
    p: float | None
    good_turing_base: float | None
    more_samples: int | None
    """More observations per side that would bound each side not proven unstable by the bound;
    None when both sides are proven unstable (no number of samples makes one stable)."""
    novelty: stats.Novelty | None = None
    """The novelty test of this mode's samples (None: nothing to test)."""
    novel_untested: int | None = None
    """Where no novelty test ran (a side under 2 observations), the patch observations whose
    output the base never gave (this mode, `known`: all of them where the base observed
    nothing); None where it counted none (`stats.novel_count`)."""
    known: frozenset[str] = frozenset()
    """Base outputs of the other modes that count as the base's (not for serial mode)."""
    patch_outputs: tuple[str, ...] = ()
    """The patch's observations, for sizing a follow-up."""
    base_outputs: tuple[str, ...] = ()
    """The base's observations, for sizing a follow-up."""

    @property
    def novel(self) -> int | None:
        """Patch observations whose output the base never gave: the novelty test's statistic,
        else `novel_untested` (a side under 2 observations, where no test runs)."""
        return self.novel_untested if self.novelty is None else self.novelty.statistic

    @property
    def outside(self) -> bool:
        """The patch gave an output the base never gave (in this mode, or in another one)."""
        return not self.patch.outputs <= self.base.outputs | self.known


@dataclass(frozen=True)
class Adjusted:
    """A mode's p-values after the corrections across records (None: not in the family)."""

    fisher: float | None = None
    """The instability (Fisher) p, corrected."""
    novelty: float | None = None
    """The novelty p, corrected."""
    novelty_tests: int = 1
    """Size of the novelty family (the level a follow-up must reach is α over it)."""
    sampled: bool = False
    """The mode's requests sampled: its novelty test shares α with its distribution test and
    the Fisher test is supporting evidence only (`sampledlevel`)."""

    def novelty_alpha(self, alpha: float) -> float:
        """The α the novelty test is judged at."""
        return judged_at(alpha, self.sampled)

    def significant(self, alpha: float) -> bool:
        """The Fisher test makes the mode a candidate (never a sampled one)."""
        return not self.sampled and self.fisher is not None and self.fisher <= alpha

    def novel(self, alpha: float, outside: bool) -> bool:
        """The novelty test rejects, at its judged α, on patch outputs the base never gave."""
        return outside and self.novelty is not None and self.novelty <= self.novelty_alpha(alpha)
