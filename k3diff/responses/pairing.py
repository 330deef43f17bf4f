"""Pairs base and patch records by a key.

The key is, in order of preference:

1. ``--key FIELD`` (a field name or dotted path into each raw record), when given;
2. the records' ids, when every record on both sides has one, ids are unique on each side, and
   at least one id appears on both sides (server-generated ids that never match are useless);
3. the xxh3-128 of the prompt.

A key that appears twice on one side is an error naming the lines. Records whose key appears on
one side only are kept and reported as such.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from k3diff.errors import ResponseFormatError, UsageError
from k3diff.responses.model import LoadedSide, ResponseRecord

MAX_NAMED_DUPLICATES = 3


class KeyMode(StrEnum):
    """How records were paired."""

    FIELD = "field"
    """By the `--key` field."""
    ID = "id"
    """By the records' ids."""
    PROMPT = "prompt-hash"
    """By the xxh3-128 of the prompt."""


@dataclass(frozen=True)
class Pair:
    """One key and the record on each side (None when that side has no such key)."""

    key: str
    """The pairing key."""
    base: ResponseRecord | None
    """The base record with this key."""
    patch: ResponseRecord | None
    """The patch record with this key."""


@dataclass(frozen=True)
class Pairing:
    """The result of pairing: how, and the pairs in base order then patch-only in patch order."""

    mode: KeyMode
    """Which key was used."""
    field: str | None
    """The `--key` field, in field mode."""
    pairs: list[Pair]
    """Every key of either side exactly once."""


KeyOf = Callable[[ResponseRecord], str | None]

KEY_OF: dict[KeyMode, KeyOf] = {
    KeyMode.FIELD: lambda record: record.key,
    KeyMode.ID: lambda record: record.id,
    KeyMode.PROMPT: lambda record: record.prompt_digest,
}


def pair_records(base: LoadedSide, patch: LoadedSide, key_field: str | None) -> Pairing:
    """Pair the two sides by the key chosen as documented above."""
    mode = KeyMode.FIELD if key_field is not None else _auto_mode(base, patch)
    key_of = KEY_OF[mode]
    base_index = _index(base, key_of, mode)
    patch_index = _index(patch, key_of, mode)
    pairs = [Pair(key, record, patch_index.pop(key, None)) for key, record in base_index.items()]
    pairs.extend(Pair(key, None, record) for key, record in patch_index.items())
    return Pairing(mode=mode, field=key_field, pairs=pairs)


def _auto_mode(base: LoadedSide, patch: LoadedSide) -> KeyMode:
    base_ids, why_not = _unique_ids(base)
    patch_ids, why_not_patch = _unique_ids(patch)
    if base_ids is not None and patch_ids is not None:
        if not base_ids.isdisjoint(patch_ids):
            return KeyMode.ID
        why_not = "no id appears on both sides"
    why_not = why_not or why_not_patch
    for side in (base, patch):
        missing = next((r for r in side.records if r.prompt_digest is None), None)
        if missing is not None:
            raise UsageError(
                f"cannot pair records by id ({why_not}) nor by prompt "
                f"({side.where(missing)} has no prompt); pass --key FIELD"
            )
    return KeyMode.PROMPT


def _unique_ids(side: LoadedSide) -> tuple[set[str] | None, str]:
    """The side's ids when every record has one and none repeats, else why not."""
    first_line: dict[str, int] = {}
    for record in side.records:
        if record.id is None:
            return None, f"{side.where(record)} has no id"
        if record.id in first_line:
            lines = f"{first_line[record.id]}, {record.line}"
            return None, f"{side.display}: id {record.id!r} at lines {lines}"
        first_line[record.id] = record.line
    return set(first_line), ""


def _index(side: LoadedSide, key_of: KeyOf, mode: KeyMode) -> dict[str, ResponseRecord]:
    index: dict[str, ResponseRecord] = {}
    duplicates: dict[str, list[ResponseRecord]] = {}
    for record in side.records:
        key = key_of(record)
        if key is None:
            raise ResponseFormatError(f"{side.where(record)}: record has no pairing key")
        if key in index:
            duplicates.setdefault(key, [index[key]]).append(record)
        else:
            index[key] = record
    if duplicates:
        raise ResponseFormatError(_duplicates_message(side, duplicates, mode))
    return index


def _duplicates_message(
    side: LoadedSide, duplicates: dict[str, list[ResponseRecord]], mode: KeyMode
) -> str:
    def label(key: str, record: ResponseRecord) -> str:
        return f"prompt {record.prompt_preview!r}" if mode is KeyMode.PROMPT else repr(key)

    named = [
        f"{label(key, records[0])} at lines {', '.join(str(r.line) for r in records)}"
        for key, records in list(duplicates.items())[:MAX_NAMED_DUPLICATES]
    ]
    more = len(duplicates) - len(named)
    tail = f" and {more} more" if more else ""
    return f"{side.display}: duplicate {mode.value} keys: {'; '.join(named)}{tail}"
