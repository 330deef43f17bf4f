"""`--base-rerun`: the base compared with a second run of itself, for the noise band."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from k3diff.responses.compare import CompareOptions, compare_streaming
from k3diff.responses.scores import NoiseBand


def noise_band(base_path: Path, rerun_path: Path, options: CompareOptions) -> NoiseBand:
    """`--base-rerun`: the base compared with a second run of itself, paired as the comparison
    is, with the same statistics; what the engine's own nondeterminism does to the scores."""
    # The gate decides base against patch; the rerun is reported beside it, never gated.
    plain = replace(options, score_gate=None)
    overview = compare_streaming(base_path, rerun_path, plain, lambda _diff: None)
    s = overview.summary
    return NoiseBand(
        path=overview.patch.path,
        format=overview.patch.format,
        paired=s.paired,
        differing=s.differing,
        scores=s.scores,
    )
