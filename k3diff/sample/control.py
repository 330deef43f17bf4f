"""The vacuous-control rule: the control (`--control`) sends the first prompt K times per side
at temperature 1 with distinct seeds; a side whose K answers all came back identical ignored
its sampling parameters (or a cache or proxy answered), so the run could not have shown a
difference. Read by `sample`'s summary and by `triage` alike."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from k3diff.sample.names import SIDES, Mode


def control_outcome(samples: Sequence[Any]) -> dict[str, tuple[int, int]]:
    """Per side, the control's (successful samples, distinct outputs): anything with `mode`,
    `side` and `text_xxh3`. A side whose control gave >= 2 samples, all identical, is vacuous."""
    outputs: dict[str, list[str]] = {}
    for sample in samples:
        if sample.mode == Mode.CONTROL.value and sample.text_xxh3 is not None:
            outputs.setdefault(sample.side, []).append(sample.text_xxh3)
    return {side: (len(found), len(set(found))) for side, found in outputs.items()}


def vacuous_sides(samples: Sequence[Any]) -> tuple[str, ...]:
    """The sides whose control came back identical (>= 2 successful samples, one output)."""
    found = control_outcome(samples)
    return tuple(
        side for side in SIDES if side in found and found[side][0] >= 2 and found[side][1] == 1
    )
