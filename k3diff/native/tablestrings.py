"""The loader's own strings of a dynamic string table longer than the second pass keeps.

A second pass keeps the first `platform.PREFIX_CAP` bytes of DT_STRTAB. tensorflow_cpu 2.21.0's
`libtensorflow_cc.so.2` has an 82 MB `.dynstr` whose RUNPATH lies past 64 MiB: it was refused
(A116, exit 1) though nothing was wrong with it (tf78). The strings the dynamic table itself
names (DT_NEEDED, DT_RPATH, DT_RUNPATH, DT_SONAME and the filtees) are kept too, each up to
`STRING_CAP` bytes (a string without its NUL there is missing, never cut), at most
`PAST_CAP_STRINGS` of them and `PAST_CAP_BYTES` in all: a hostile dynamic segment of 65,536
entries costs no more. Version names past the cap stay unread (the ELF is refused, naming the
cap)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

STRING_CAP = 16 << 10
"""Most bytes kept of one loader string past the kept table (its NUL included)."""
PAST_CAP_STRINGS = 1024
"""Most loader strings kept past the kept table (real libraries name a few dozen)."""
PAST_CAP_BYTES = 4 << 20
"""Most bytes kept of them in all."""


@dataclass(frozen=True)
class PastCap:
    """Ranges of loader strings past the kept table, and what a refusal says of the cap."""

    ranges: tuple[tuple[int, int], ...]
    """(file offset, length) of each run of strings kept, none overlapping another."""
    note: str
    """The caps, for a refusal of a table longer than the kept one ("" when it is not)."""

    def after(self, ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """`ranges` (the tables), then those of the strings at an offset none of them starts
        at (a second pass keeps one range an offset)."""
        taken = {offset for offset, _ in ranges}
        return [*ranges, *(kept for kept in self.ranges if kept[0] not in taken)]


def past_cap(table: int, size: int, indexes: Iterable[int], cap: int) -> PastCap:
    """The strings at `indexes` of a string table at file offset `table`, `size` bytes long
    (DT_STRSZ), that run past its first `cap` bytes; the first ones within the limits."""
    if size <= cap:
        return PastCap((), "")
    spans: list[tuple[int, int]] = []
    for index in dict.fromkeys(indexes):  # once each, in the dynamic table's order
        if max(0, cap - STRING_CAP) < index < size and len(spans) < PAST_CAP_STRINGS:
            spans.append((index, min(index + STRING_CAP, size)))
    merged: list[list[int]] = []
    for low, high in sorted(spans):
        if merged and low <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], high)
        else:
            merged.append([low, high])
    ranges: list[tuple[int, int]] = []
    total = 0
    for low, high in merged:
        if total + high - low > PAST_CAP_BYTES:
            break
        total += high - low
        ranges.append((table + low, high - low))
    note = (
        f"the dynamic string table is {size:,} bytes: k3diff reads its first {cap:,} and at most"
        f" {PAST_CAP_STRINGS:,} loader strings past that ({STRING_CAP:,} bytes each,"
        f" {PAST_CAP_BYTES:,} in all), no version name"
    )
    return PastCap(tuple(ranges), note)
