"""`CompareOptions`: what the user asked `k3diff responses` for (its own module, so that the
document's `rerun` settings, `k3diff.responses.rerunsettings`, read and write it without
importing the comparison)."""

from __future__ import annotations

from dataclasses import dataclass

from k3diff.responses.model import Normalization
from k3diff.responses.scoregate import GateOptions
from k3diff.responses.scores import DEFAULT_ALPHA


@dataclass(frozen=True)
class CompareOptions:
    """What the user asked for."""

    key: str | None = None
    """`--key`: a field name or dotted path; None for automatic pairing."""
    normalize: tuple[Normalization, ...] = ()
    """Text normalisations applied before comparing (hashes stay of the exact text)."""
    include_volatile: bool = False
    """Compare ids, timestamps, latency and fingerprints too."""
    allow_unpaired: bool = False
    """`--allow-unpaired`: records on one side only do not fail the run (nothing paired still
    does)."""
    by_order: bool = False
    """`--by-order`: pair the Nth record of each side (both must hold as many)."""
    logprob_tol: float = 0.0
    """`--logprob-tol`: the largest |Δ logprob| over the common token prefix that agrees."""
    near_tie: float = 0.1
    """`--near-tie`: the largest gap (nats) at a divergence called a near tie."""
    text_field: str | None = None
    """`--text-field PATH`: where the text is in each raw record."""
    tokens_field: str | None = None
    """`--tokens-field PATH`: where the token ids are in each raw record."""
    beam: int = 0
    """`--beam N`: which beam of a TensorRT-LLM record is compared."""
    lm_eval_field: str = "resps"
    """`--lm-eval-field`: lm-eval's raw `resps` or its `filtered_resps`."""
    score_alpha: float = DEFAULT_ALPHA
    """`--score-alpha`: the family-wise error rate of the paired score tests (Holm)."""
    score_gate: GateOptions | None = None
    """`--fail-on score-drop`: the gate on the scores, not the text (`scoregate`)."""
    ignore_fields: tuple[str, ...] = ()
    """`--ignore-field PATH`: compared fields left out (never the text, token ids, finish
    reason or logprobs: `k3diff.responses.ignore`)."""
