"""Paired records whose requests sampled (`sampling_params.samples_sampled`: temperature above
0, or a sampling knob with the server's default temperature), as far as the records hold their
requests: each side's answer is then one draw from its distribution, so a match proves little
and a difference may be sampling noise. `responses` says so beside its verdict in every format
(the exit code is unchanged: the comparison is what the captures hold); `k3diff sample` and
`k3diff triage` are what bound a sampled server's instability (hunt75: nothing said it)."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from k3diff.fields import Fields
from k3diff.sampling_params import has_seed, samples_sampled


@dataclass(frozen=True)
class SampledNote:
    """How many paired records sampled on either side."""

    records: int
    """Paired records whose request sampled on at least one side."""
    paired: int
    """Paired records in all."""
    seeded: int
    """Of `records`, those whose sampling requests all fixed an integer seed."""
    temperatures: tuple[float, ...]
    """The temperatures those requests sent, each once, ascending (none: a knob sampled)."""

    def sentence(self) -> str:
        """'2 of 3 paired records sampled (temperature 0.7): ...': said beside every verdict."""
        shown = ", ".join(f"{t:g}" for t in self.temperatures)
        at = f"temperature {shown}" if shown else "top_p, top_k or min_p"
        seeded = f", {self.seeded} with a seed" if self.seeded else ""
        return (
            f"{self.records} of {self.paired} paired records sampled ({at}{seeded}): each "
            "side's answer is one draw, so a match there proves little and a difference may be "
            "sampling noise; sample them repeatedly (k3diff sample, then k3diff triage)"
        )

    def to_json(self) -> dict[str, Any]:
        """The document's `sampled` object."""
        return {
            "records": self.records,
            "paired": self.paired,
            "seeded": self.seeded,
            "temperatures": list(self.temperatures),
        }


class SampledCounter:
    """Paired records counted by their two requests' conditions (`ResponseRecord.condition`)."""

    def __init__(self) -> None:
        self._paired = self._records = self._seeded = 0
        self._temperatures: set[float] = set()
        self._known: dict[str | None, tuple[bool, bool, float | None]] = {None: _UNSAMPLED}

    def add(self, base: str | None, patch: str | None) -> None:
        """Count one paired record by its base and patch conditions."""
        self.add_judged(self._read(base), self._read(patch))

    def add_judged(self, *sides: tuple[bool, bool, float | None]) -> None:
        """Count one paired record by its two sides' (samples, seeded, temperature)."""
        self._paired += 1
        sampling = [side for side in sides if side[0]]
        if not sampling:
            return
        self._records += 1
        self._seeded += all(seeded for _, seeded, _ in sampling)
        self._temperatures.update(t for _, _, t in sampling if t is not None)

    def _read(self, condition: str | None) -> tuple[bool, bool, float | None]:
        """(samples, seeded, temperature) of one condition, read once per distinct text."""
        found = self._known.get(condition)
        if found is None:
            found = self._known[condition] = _judged(json.loads(condition or "null"))
        return found

    def note(self) -> SampledNote | None:
        """The note, None when no paired record sampled."""
        if not self._records:
            return None
        temperatures = tuple(sorted(self._temperatures))
        return SampledNote(self._records, self._paired, self._seeded, temperatures)


_UNSAMPLED = (False, False, None)


def _judged(condition: Any) -> tuple[bool, bool, float | None]:
    return judged_params(condition.get("params") if isinstance(condition, dict) else None)


def judged_params(params: object) -> tuple[bool, bool, float | None]:
    """(samples, seeded, temperature) of a request's `params` (None: not recorded)."""
    if not isinstance(params, Mapping):
        return _UNSAMPLED
    nested = params.get("sampling_params")  # vLLM's `LLM.generate` records
    fields = {**params, **nested} if isinstance(nested, dict) else params
    if not samples_sampled(fields):
        return _UNSAMPLED
    temperature = fields.get("temperature")
    if isinstance(temperature, bool) or not isinstance(temperature, int | float):
        return True, has_seed(fields), None  # a knob sampled at the server's temperature
    return True, has_seed(fields), float(temperature)


def read_sampled(document: Fields, records: Iterable[Any]) -> SampledNote | None:
    """A comparison's `sampled` note as its records give it (`records`: its
    `recordview.ResponsesRecord`s, each side's request `condition.params` judged where both
    sides are there), None where none sampled; InputError where the
    document's `sampled` is no note `SampledCounter` writes (no record, more than were paired,
    more seeded than sampled, temperatures not positive numbers in ascending order) or not the
    one its records give (review75f: `sampled` lowered or a temperature left out was read as
    written). A document without it (before hunt75, or with it removed) is said to have sampled
    where its records did (review75f: removing it hid that they had, exit 0 with nothing said)."""
    counter = SampledCounter()
    for record in records:
        if record.base is not None and record.patch is not None:
            counter.add_judged(_side(record.base), _side(record.patch))
    derived = counter.note()
    fields = document.optional_object("sampled")
    written = None if fields is None else _written(fields)
    if fields is not None and written != derived:
        gives = "none sampled" if derived is None else json.dumps(derived.to_json())
        said = json.dumps(written.to_json() if written is not None else None)
        raise document.fail("sampled", f"is {said}, but its records' requests give {gives}")
    return derived


def _side(side: Any) -> tuple[bool, bool, float | None]:
    """A `recordview.RecordSide` judged by its request's recorded `params`."""
    return judged_params(None if side.condition is None else side.condition.params)


def _written(fields: Fields) -> SampledNote:
    note = SampledNote(
        fields.integer("records"),
        fields.integer("paired"),
        fields.integer("seeded"),
        _temperatures(fields),
    )
    if not 0 < note.records <= note.paired or note.seeded > note.records:
        raise fields.fail("records", "must count 1 to 'paired' records, of which 'seeded' some")
    return note


def _temperatures(fields: Fields) -> tuple[float, ...]:
    found = fields.raw("temperatures")
    numbers = [
        float(t)
        for t in (found if isinstance(found, list) else ())
        if isinstance(t, int | float) and not isinstance(t, bool) and 0 < t < math.inf
    ]
    if not isinstance(found, list) or len(numbers) != len(found) or numbers != sorted(set(numbers)):
        raise fields.fail("temperatures", "must be temperatures above 0, ascending, each once")
    return tuple(numbers)
