"""The models a run's answers named, side by side, held to triage's rule.

Triage counts a sample only for the model that answered its capture
(`k3diff.triage.servedmodel`): a side whose samples of one record name more than one model, or
a stream whose chunks name several, is refused there (exit 2, unless
`--allow-condition-mismatch`, under which the record clears nothing). A run whose log triage
will refuse has not taken the samples it claims, so it fails here too (exit 1): the server was
restarted on another checkpoint mid-run, or replicas behind one URL serve different ones.

Two more findings are notes, since triage does not refuse them: a side answering as another
name than its requests named (servers that name a dated snapshot or their checkpoint's path do
so every time: only the capture's model, which `sample` does not know, decides), and a base
answering as one model where the patch answers as another (triage keeps those records from
clearing, `k3diff.triage.sidefields`).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from k3diff.sample.lines import SampleLine

IGNORE_MODEL_COMMAND = (
    "k3diff responses BASE PATCH --ignore-field model --ignore-field request.model"
)
"""The comparison that leaves out the model each capture names, in its answers and in its
requests (BASE and PATCH: the two captures), as README's run of two model directories does:
`--ignore-field model` alone still finds their requests' `request.model` differ."""


@dataclass(frozen=True)
class SideModels:
    """The models one side's successful samples were answered as."""

    answered: dict[str, int]
    """Each model named and how many samples named it, in order of first sight."""
    unnamed: int
    """Successful samples naming no model (the server named none)."""
    torn: int
    """Streams whose chunks named more than one model (their `stream_models`)."""
    requested: tuple[str, ...]
    """The models the side's requests named (a prompt's `model`, else the server's first)."""
    mixed: tuple[str, ...]
    """Record keys whose samples name more than one model, or hold a torn stream: triage
    refuses them."""

    @property
    def renamed(self) -> tuple[str, ...]:
        """Models answered that no request named."""
        return tuple(m for m in self.answered if self.requested and m not in self.requested)


@dataclass(frozen=True)
class ServedModels:
    """Per side, the models its answers named; and the records whose sides differ."""

    sides: dict[str, SideModels]
    """Per side sampled, in order."""
    across: tuple[str, ...]
    """Record keys whose base answered as one model and whose patch as another."""

    @property
    def refused(self) -> bool:
        """Triage will refuse the log: a side answered one record as several models."""
        return any(side.mixed for side in self.sides.values())

    @property
    def notable(self) -> bool:
        """Anything a reviewer should hear: a refusal, another name, sides apart."""
        renamed = any(side.renamed for side in self.sides.values())
        return self.refused or renamed or bool(self.across)


def served_models(
    samples: Iterable[SampleLine], requested: Mapping[str, Iterable[str]]
) -> ServedModels:
    """What the successful `samples` were answered as, per side of `requested` (each side's
    requested models)."""
    per_record: dict[tuple[str, str], dict[str, None]] = {}
    torn_keys: set[tuple[str, str]] = set()
    counts: dict[str, Counter[str]] = {side: Counter() for side in requested}
    unnamed: Counter[str] = Counter()
    torn: Counter[str] = Counter()
    for line in samples:
        if line.error is not None or line.side not in counts:
            continue
        slot = (line.side, line.key)
        seen = per_record.setdefault(slot, {})
        if line.stream_models:
            torn[line.side] += 1
            torn_keys.add(slot)
            seen.update(dict.fromkeys(line.stream_models))
        elif line.model is not None:
            counts[line.side][line.model] += 1
            seen.setdefault(line.model)
        else:
            unnamed[line.side] += 1
    sides = {
        side: SideModels(
            answered=dict(counts[side]),
            unnamed=unnamed[side],
            torn=torn[side],
            requested=tuple(dict.fromkeys(wanted)),
            mixed=tuple(
                key
                for (which, key), models in per_record.items()
                if which == side and (len(models) > 1 or (which, key) in torn_keys)
            ),
        )
        for side, wanted in requested.items()
    }
    across = tuple(
        key
        for (side, key), models in per_record.items()
        if side == "base"
        and len(models) == 1
        and len(per_record.get(("patch", key), {})) == 1
        and models.keys() != per_record[("patch", key)].keys()
        and ("base", key) not in torn_keys
        and ("patch", key) not in torn_keys
    )
    return ServedModels(sides, across)


def shown_model(model: str, width: int) -> str:
    """A model's name as JSON writes it (quoted, ASCII), cut to `width` characters."""
    text = json.dumps(model, ensure_ascii=True)
    return text if len(text) <= width else text[: width - 1] + "…"


def listed_models(models: Iterable[str], width: int) -> str:
    """'"a", "b"' (the first four, each `shown_model`, then how many more)."""
    names = list(models)
    shown = ", ".join(shown_model(name, width) for name in names[:4])
    return shown if len(names) <= 4 else f"{shown} and {len(names) - 4} more"
