"""Beams read but not compared: a TensorRT-LLM record holds one text per beam, and the
comparison reads one of them (`--beam N`, default 0). The other beams are deliberately not
compared; every output says so, so that a reviewer knows the verdict covers one beam
(review66: nothing said other beams existed)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class BeamNote:
    """How many records held beams the comparison did not compare."""

    compared: int
    """The beam compared (`--beam`)."""
    base_records: int
    """Records of the base holding more than one beam."""
    patch_records: int
    """Records of the patch holding more than one beam."""
    widths: tuple[int, ...]
    """How many beams the records of either side held, each count once, ascending."""

    @property
    def possible(self) -> range:
        """The `--beam` values every record holds (a larger one is refused, exit 2, on the
        first record without it)."""
        return range(self.widths[0])

    def sentence(self) -> str:
        """'only beam 0 compared: 2 records in base and 2 in patch hold 2 beams (--beam 0 or
        1 possible)': said on every verdict line."""
        counts = [
            (n, side)
            for n, side in ((self.base_records, "base"), (self.patch_records, "patch"))
            if n
        ]
        sides = " and ".join(
            f"{_records(n) if i == 0 else n} in {side}" for i, (n, side) in enumerate(counts)
        )
        verb = "holds" if len(counts) == 1 and counts[0][0] == 1 else "hold"
        several = [width for width in self.widths if width > 1]
        held = f"{several[0]}" if len(several) == 1 else f"{several[0]} to {several[-1]}"
        last = self.widths[0] - 1
        values = f"--beam 0 or {last}" if last == 1 else f"--beam 0 to {last}"
        possible = f"{values} possible" if last else "only --beam 0 possible"
        return f"only beam {self.compared} compared: {sides} {verb} {held} beams ({possible})"

    def to_json(self) -> dict[str, Any]:
        """The document's `beams` object."""
        return {
            "compared": self.compared,
            "records_with_other_beams": {"base": self.base_records, "patch": self.patch_records},
            "beams_per_record": list(self.widths),
            "possible": list(self.possible),
        }


def _records(count: int) -> str:
    return f"{count} record" if count == 1 else f"{count} records"


def beam_note(base: Counter[int], patch: Counter[int], compared: int) -> BeamNote | None:
    """The note for two sides' records counted by how many beams each held (records without
    beams are not counted); None when no record held more than one."""
    several = [sum(n for beams, n in side.items() if beams > 1) for side in (base, patch)]
    if not any(several):
        return None
    return BeamNote(compared, several[0], several[1], tuple(sorted((base + patch).keys())))
