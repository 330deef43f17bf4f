"""One record's evidence per mode: both sides' outputs in request order, the captures (counted in
`--capture-mode`'s mode only), the batches' overlap and a cold-warm mode's cache counts, each
mode classified with the base's outputs of its other modes beside it.
"""

from __future__ import annotations

from k3diff.responses.recordview import ResponsesRecord
from k3diff.sample.names import Mode, is_cold
from k3diff.sample.proof import batch_overlap
from k3diff.triage import classify
from k3diff.triage.model import Settings
from k3diff.triage.observations import ModeEvidence, SideObservations
from k3diff.triage.rollup import captured_outputs, ordered_modes
from k3diff.triage.samples import Sample
from k3diff.triage.sides import CacheCounts


def mode_evidence(
    record: ResponsesRecord, modes: dict[str, dict[str, list[Sample]]], settings: Settings
) -> list[ModeEvidence]:
    """Per mode, both sides' samples; the captures count only in `--capture-mode`'s mode, and
    the base's outputs in its other modes are handed on (they are the base's outputs too)."""
    base_captured, patch_captured = captured_outputs(record)
    counted = settings.capture_mode
    base_obs = {
        mode: SideObservations(
            _sequence(sides["base"]),
            base_captured if mode == counted else None,
            batch_overlap(sides["base"]),
            _cache(mode, sides["base"]),
        )
        for mode, sides in modes.items()
    }
    found = []
    for mode in ordered_modes(modes):
        elsewhere = frozenset(
            output for other, obs in base_obs.items() if other != mode for output in obs.outputs
        )
        patch = SideObservations(
            _sequence(modes[mode]["patch"]),
            patch_captured if mode == counted else None,
            batch_overlap(modes[mode]["patch"]),
            _cache(mode, modes[mode]["patch"]),
        )
        found.append(classify.evidence(mode, base_obs[mode], patch, settings, elsewhere))
    return found


def _cache(mode: str, samples: list[Sample]) -> CacheCounts:
    """cold-warm: the warm samples, their cache hits, and the cold samples already cached."""
    if mode != Mode.COLD_WARM.value:
        return CacheCounts()
    # A resumed run's first repeat of a record is cold too (`cold` on its line: left67).
    ok = [s for s in samples if s.error is None]
    cold = [s for s in ok if is_cold(mode, s.repeat, s.line.cold)]
    warm = [s for s in ok if not is_cold(mode, s.repeat, s.line.cold)]
    return CacheCounts(
        len(warm),
        sum(1 for s in warm if (s.cached_tokens or 0) > 0),
        sum(1 for s in cold if (s.cached_tokens or 0) > 0),
        frozenset(s.text_xxh3 for s in cold if s.text_xxh3 is not None),
        frozenset(s.text_xxh3 for s in warm if s.text_xxh3 is not None),
    )


def _sequence(samples: list[Sample]) -> tuple[str | None, ...]:
    return tuple(sample.text_xxh3 for sample in sorted(samples, key=lambda s: s.order))
