"""Where and why one side's outputs split: the position at which each distinct output leaves the
modal one, how many samples took each branch, and the modal output's margin there.

Batch-variance flips happen where the top two tokens are nearly tied; a logic change moves a
token that was far ahead. The margin at a split is the modal output's chosen-token logprob minus
its runner-up's at the split position (from the sample log's `trace`). Positions are token
indexes when every sample of the side and mode kept its tokens far enough, else character
offsets (and the tree says which).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from k3diff.responses.prefix import common_prefix_length

if TYPE_CHECKING:
    from k3diff.triage.samples import Sample
    from k3diff.triage.traces import Trace


@dataclass(frozen=True)
class Branch:
    """One distinct non-modal output of a side, where it leaves the modal output."""

    position: int
    """Token index (or character offset, see `SplitTree.unit`) of the first difference."""
    samples: int
    """Samples that gave this output."""
    margin: float | None
    """The modal output's chosen-vs-runner-up logprob margin at `position` (None: unknown)."""


@dataclass(frozen=True)
class SplitTree:
    """How one side's outputs in one mode split from its modal output."""

    side: str
    """base or patch."""
    mode: str
    """The sampling mode."""
    unit: str
    """token or character: what `Branch.position` counts."""
    modal_samples: int
    """Samples that gave the modal output (the first sampled of them where several tie)."""
    branches: tuple[Branch, ...]
    """Each other distinct output, by position."""

    @property
    def tied(self) -> int:
        """Outputs as common as the modal one, itself included: more than 1 means there is no
        modal output, and the one the others are measured from is the first sampled of them
        (every output distinct is the tie of all at 1 sample)."""
        return 1 + sum(1 for b in self.branches if b.samples == self.modal_samples)

    @property
    def margins(self) -> list[float]:
        """The known margins of the splits."""
        return [b.margin for b in self.branches if b.margin is not None]

    def near_ties(self, near_tie: float) -> bool:
        """Every split has a known margin under `near_tie`."""
        return len(self.margins) == len(self.branches) and all(m < near_tie for m in self.margins)

    def wide(self, near_tie: float) -> bool:
        """Some split has a known margin of at least `near_tie`."""
        return any(m >= near_tie for m in self.margins)


def _sequence(trace: Trace | None) -> tuple[object, ...] | None:
    if trace is None:
        return None
    return trace.token_ids if trace.token_ids is not None else trace.tokens


def split_tree(side: str, mode: str, samples: Sequence[Sample]) -> SplitTree | None:
    """The split tree of one side's samples in one mode; None with fewer than two outputs."""
    done = [s for s in samples if s.text_xxh3 is not None and s.text is not None]
    counts = Counter(s.text_xxh3 for s in done)
    if len(counts) < 2:
        return None
    first = {s.text_xxh3: s for s in reversed(done)}  # the first sample of each output
    modal_digest = counts.most_common(1)[0][0]
    modal = first[modal_digest]
    others = [first[d] for d in counts if d != modal_digest]
    unit = "token" if _token_positions(modal, others) else "character"
    branches = []
    for other in others:
        if unit == "token":
            position = common_prefix_length(
                _sequence(modal.trace) or (), _sequence(other.trace) or ()
            )
        else:
            position = common_prefix_length(modal.text or "", other.text or "")
        branches.append(Branch(position, counts[other.text_xxh3], _margin(modal, position, unit)))
    branches.sort(key=lambda b: (b.position, -b.samples))
    return SplitTree(side, mode, unit, counts[modal_digest], tuple(branches))


def _token_positions(modal: Sample, others: Sequence[Sample]) -> bool:
    """Every output has its token sequence, and each split lies within what the lines kept."""
    mine = _sequence(modal.trace)
    if mine is None or modal.trace is None:
        return False
    for other in others:
        theirs = _sequence(other.trace)
        if theirs is None or other.trace is None:
            return False
        shared = common_prefix_length(mine, theirs)
        truncated = (
            modal.trace.kept < modal.trace.positions or other.trace.kept < other.trace.positions
        )
        if truncated and shared >= min(len(mine), len(theirs)):
            return False  # they agree as far as kept: the split lies beyond
        if not truncated and mine == theirs:
            return False  # the same tokens, different texts: tokens cannot place the split
    return True


def _margin(modal: Sample, position: int, unit: str) -> float | None:
    trace = modal.trace
    if trace is None or trace.margins is None:
        return None
    index = position if unit == "token" else _token_at(trace, position)
    if index is None or index >= len(trace.margins):
        return None
    return trace.margins[index]


def _token_at(trace: Trace, offset: int) -> int | None:
    """The token holding character `offset` of the text the tokens spell."""
    if trace.tokens is None:
        return None
    end = 0
    for index, token in enumerate(trace.tokens):
        end += len(token)
        if offset < end:
            return index
    return None
