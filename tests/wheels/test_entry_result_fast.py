"""The hot path's `EntryResult`s (built by `entry_result_from`) are the dataclass's own."""

from __future__ import annotations

import dataclasses

import pytest

from k3diff.wheel.kinds import EntryKind
from k3diff.wheels import pairresult
from k3diff.wheels.model import EntryResult, entry_result_from
from k3diff.wheels.pairing import EntryPair
from k3diff.wheels.proof import IDENTICAL_RAW, How, Proof, Status
from k3diff.zip.directory import ZipEntry

FIELDS = [f.name for f in dataclasses.fields(EntryResult)]


def _entry(name: str, position: int, mode: int) -> ZipEntry:
    return ZipEntry(
        name, position, 8, 0, 1234, 10, 20, 100 * position, mode << 16, 3, name.encode()
    )


@pytest.mark.parametrize(
    ("pair", "proof"),
    [
        (
            EntryPair(_entry("a/b.h", 0, 0o644), _entry("a/b.h", 1, 0o644), "x/a/b.h", "x/a/b.h"),
            IDENTICAL_RAW,
        ),
        (EntryPair(_entry("a/b.h", 0, 0o644), _entry("a/b.h", 1, 0o755)), IDENTICAL_RAW),
        (
            EntryPair(None, _entry("new.py", 2, 0o644), moved=True),
            Proof(Status.ADDED, How.ONE_SIDED),
        ),
        (EntryPair(_entry("gone.py", 3, 0), None), Proof(Status.MISSING, How.ONE_SIDED)),
        (
            EntryPair(_entry("c.py", 0, 0o644), _entry("c.py", 1, 0o644)),
            Proof(Status.CHANGED, How.CONTENT, corrupt="bad", patch_digest="sha256=x"),
        ),
    ],
)
def test_the_schedule_result_is_the_dataclass_built_by_its_init(
    pair: EntryPair, proof: Proof
) -> None:
    fast = pairresult.pair_result(pair, proof, EntryKind.OTHER)
    assert sorted(vars(fast)) == sorted(FIELDS)  # every field given, none left to a default
    slow = EntryResult(**{name: getattr(fast, name) for name in FIELDS})
    assert fast == slow and hash(fast) == hash(slow) and repr(fast) == repr(slow)
    assert dataclasses.replace(fast) == fast
    assert dataclasses.asdict(fast) == dataclasses.asdict(slow)
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.path = "other"  # type: ignore[misc]


def test_entry_result_from_keeps_the_values_it_is_given() -> None:
    values = dict.fromkeys(FIELDS)
    values.update(path="p", kind=EntryKind.NATIVE, status=Status.CHANGED, how=How.SIZE)
    values["recompressed"] = values["moved"] = False
    built = entry_result_from(values)
    assert {name: getattr(built, name) for name in FIELDS} == values
