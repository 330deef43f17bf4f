"""How many records one side of `responses` reads, and one comparison document holds: a count
cap, beside the byte caps, so that an input of many tiny records cannot exhaust memory.

Memory a record read is about 170 bytes a side whatever its size (a spilled record keeps its
keys, its line and an offset in memory, `k3diff.responses.spill`): measured peaks of 69 MB at
100,000 records a side and 137 MB at 300,000, for records of an id and an empty text as for the
benchmark's 1 KB completions alike. hunt78's two files of 2,000,000 empty records took 773 MB;
without a cap, 40 million such records fit the 1 GiB byte cap and project to ~15 GB. At the cap
a run peaks under 1 GiB; the cap is 20 times the benchmark's 100,000 records and several times
the largest eval sets (a few 100,000 records).

The cap is read at call time (`MAX_RECORDS`, a module constant tests shrink).
"""

from __future__ import annotations

from k3diff.errors import InputError

MAX_RECORDS = 2_000_000
"""Records one side of `responses` reads at most (each choice of n > 1 counts as one); also
the requests of a prompts file `sample` reads."""


def past_side_cap(display: str, where: str, noun: str = "records") -> InputError:
    """The refusal of a side's record past `MAX_RECORDS` (`where`: its line; `noun`: what the
    file holds, `prompts` for a prompts file of `sample`)."""
    return InputError(
        f"{display}: more than {MAX_RECORDS:,} {noun} (the cap of {noun} a side); refused "
        f"at {noun[:-1]} {MAX_RECORDS + 1:,} ({where}): split the file"
    )


def document_cap() -> int:
    """Records a comparison document holds at most: both sides' records at the cap, none
    paired."""
    return 2 * MAX_RECORDS
