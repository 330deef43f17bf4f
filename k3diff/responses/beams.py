"""Beams read but not compared: a TensorRT-LLM record holds one text per beam, and the
comparison reads one of them (`--beam N`, default 0). The other beams are deliberately not
compared; every output says so, so that a reviewer knows the verdict covers one beam
(review66: nothing said other beams existed)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from k3diff.fields import Fields


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


def read_beams(fields: Fields | None) -> BeamNote | None:
    """A comparison's `beams` object, typed (None where it has none: no record held beams
    `--beam` did not read, or a document from before resp66); InputError where it is no note
    `beam_note` writes (beam counts not ascending, none above one, no record counted, a beam
    compared that some record lacks, `possible` not the beams every record holds)."""
    if fields is None:
        return None
    records = fields.object("records_with_other_beams")
    widths = fields.raw("beams_per_record")
    if not (
        isinstance(widths, list)
        and widths
        and all(type(w) is int and w >= 1 for w in widths)
        and widths == sorted(set(widths))
        and widths[-1] > 1
    ):
        raise fields.fail("beams_per_record", "must be beam counts, ascending, one above 1")
    note = BeamNote(
        fields.integer("compared"),
        records.integer("base"),
        records.integer("patch"),
        tuple(widths),
    )
    if min(note.base_records, note.patch_records) < 0 or not (
        note.base_records or note.patch_records
    ):
        raise records.fail("base", "and 'patch' must count records, one of them some")
    if not 0 <= note.compared < widths[0] or fields.raw("possible") != list(note.possible):
        raise fields.fail(
            "compared",
            f"must be among the beams every record holds (0 to {widths[0] - 1}), as 'possible' lists",
        )
    return note


def beams_qualification(note: BeamNote | None) -> str | None:
    """What a reader of a comparison whose records held other beams must be told (None:
    none held any), as `triage` and the bundle repeat `--ignore-field`'s (left66)."""
    if note is None:
        return None
    return f"{note.sentence()}: a record it calls a match may differ in the other beams"
