"""The counts of a responses comparison, as values: the two inputs, the summary over all keys,
and the lm-eval view counted per doc."""

from __future__ import annotations

from dataclasses import dataclass, field

from k3diff.responses.scores import ScoresReport


@dataclass(frozen=True)
class SideInfo:
    """One input file as the report names it."""

    path: str
    """The path as the user gave it."""
    format: str
    """The loader that read it."""
    records: int
    """How many records it holds."""
    sha256: str | None = None
    """SHA-256 of the file's bytes, by which `report` ties the file to the document (forge61b)."""
    size: int | None = None
    """The file's size in bytes."""


@dataclass(frozen=True)
class Summary:
    """Counts over all keys."""

    records: int
    """Keys reported: paired + only_base + only_patch."""
    paired: int
    """Keys present on both sides."""
    exact_match: int
    """Pairs whose texts are byte-equal, exactly as captured."""
    token_match: int
    """Pairs whose token ids are equal."""
    token_compared: int
    """Pairs where both sides have token ids."""
    only_base: int
    """Keys only in the base file."""
    only_patch: int
    """Keys only in the patch file."""
    differing: int
    """Pairs with any difference (text, token ids or other fields)."""
    normalized_match: int
    """Pairs whose texts differ as captured but are equal after `--normalize`."""
    by_status: dict[str, int] = field(default_factory=dict)
    """Keys per status."""
    errors: int = 0
    """Paired records where a request failed (status error)."""
    unpaired_allowed: bool = False
    """`--allow-unpaired` was given: records on one side only do not fail the run."""
    logprobs_compared: int = 0
    """Pairs where both sides carry per-token logprobs."""
    logprobs_differ: int = 0
    """Of those, pairs whose logprobs moved beyond `--logprob-tol` (whatever their status)."""
    evidence_missing: int = 0
    """Pairs where token ids or logprobs are on one side only (information, never a failure)."""
    not_comparable: int = 0
    """Pairs whose prompts differ (lm-eval): neither a match nor a difference; fails the run."""
    run_state_differs: int = 0
    """Pairs whose run state (cache hits, latency) differs: reported, never a failure."""
    lm_eval: LmEvalSummary | None = None
    """The lm-eval view, counted per doc, when the inputs are lm-eval samples."""
    scores: ScoresReport | None = None
    """The eval scores compared as paired data (`k3diff.responses.scores`), when items carry
    scores (lm-eval metrics, inspect_ai scores)."""

    @property
    def unpaired(self) -> int:
        """Keys present on one side only."""
        return self.only_base + self.only_patch

    @property
    def nothing_paired(self) -> bool:
        """Not one record has a counterpart: nothing was compared."""
        return self.paired == 0


@dataclass(frozen=True)
class MetricFlips:
    """Docs whose value of one metric (under one filter) changed."""

    metric: str
    """The metric (exact_match, acc, ...)."""
    filter: str | None
    """The filter it was computed under."""
    gained: int
    """Docs where the patch scores higher."""
    lost: int
    """Docs where the patch scores lower."""


@dataclass(frozen=True)
class LmEvalSummary:
    """lm-eval counts per doc (a doc has one record per filter)."""

    field: str
    """What was compared: `resps` or `filtered_resps`."""
    docs: int
    """Docs paired."""
    docs_differing: int
    """Docs with any differing record, each counted once."""
    docs_not_comparable: int
    """Docs whose prompt, target or doc differs."""
    metric_flips: tuple[MetricFlips, ...]
    """Per metric and filter, the docs that flipped in each direction."""
