"""Pairs base and patch records by a key.

The key is, in order of preference:

1. ``--key FIELD`` (a field name or dotted path into each raw record), when given;
2. the records' ids, when every record on both sides has one, ids are unique on each side, and
   at least one id appears on both sides (server-generated ids that never match are useless);
3. the xxh3-128 of the prompt.

``--by-order`` pairs the Nth record of each side instead (keys ``#1``, ``#2``, ...): for captures
with per-run ids and no prompt (bare chat-completion objects, SSE streams). Both sides must hold
as many records; otherwise nothing is paired and the run stops (exit 2).

A key that appears twice on one side is an error naming the lines. Records whose key appears on
one side only are kept and reported as such.

Pairing reads only each side's key columns (`SpilledSide`); the records stay in their temporary
files, except the few whose prompt a duplicate-key message quotes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import StrEnum

from k3diff.errors import ResponseFormatError, UsageError
from k3diff.responses.spill import SpilledSide

MAX_NAMED_DUPLICATES = 3


class KeyMode(StrEnum):
    """How records were paired."""

    FIELD = "field"
    """By the `--key` field."""
    ID = "id"
    """By the records' ids."""
    PROMPT = "prompt-hash"
    """By the xxh3-128 of the prompt."""
    ORDER = "order"
    """By position: the Nth record of each side (`--by-order`)."""


@dataclass(frozen=True)
class Pairing:
    """The result of pairing: how, and each side's records by key (positions in file order)."""

    mode: KeyMode
    """Which key was used."""
    field: str | None
    """The `--key` field, in field mode."""
    base: dict[str, int]
    """Key to position of the base record, in base order."""
    patch: dict[str, int]
    """Key to position of the patch record, in patch order."""

    def __len__(self) -> int:
        """Keys of either side, each counted once."""
        return len(self.base) + sum(1 for key in self.patch if key not in self.base)

    def pairs(self) -> Iterator[tuple[str, int | None, int | None]]:
        """Every key once, with its base and patch positions (None on the side that lacks it):
        base order first, then patch-only keys in patch order."""
        for key, position in self.base.items():
            yield key, position, self.patch.get(key)
        for key, position in self.patch.items():
            if key not in self.base:
                yield key, None, position


@dataclass(frozen=True)
class OrderPairing:
    """`--by-order`: record N of the base with record N of the patch; no key is held."""

    count: int
    """Records on each side."""
    mode: KeyMode = KeyMode.ORDER
    field: str | None = None

    def __len__(self) -> int:
        return self.count

    def pairs(self) -> Iterator[tuple[str, int | None, int | None]]:
        """Every position once, keyed `#1`, `#2`, ... (1-based, like the report's rows)."""
        for position in range(self.count):
            yield f"#{position + 1}", position, position


def pair_by_order(base: SpilledSide, patch: SpilledSide) -> OrderPairing:
    """Pair by position; refused (a usage error) when the sides hold different counts."""
    if len(base) != len(patch):
        raise UsageError(
            f"--by-order: {base.display} has {_records(len(base))}, {patch.display} has "
            f"{len(patch)}; pairing by position needs as many records on each side "
            "(pass --key FIELD to pair by a field instead)"
        )
    return OrderPairing(len(base))


def _records(count: int) -> str:
    return f"{count} record" if count == 1 else f"{count} records"


KeyColumn = Callable[[SpilledSide], list[str | None]]

KEY_COLUMN: dict[KeyMode, KeyColumn] = {
    KeyMode.FIELD: lambda side: side.keys,
    KeyMode.ID: lambda side: side.ids,
    KeyMode.PROMPT: lambda side: side.prompts,
}


def pair_records(base: SpilledSide, patch: SpilledSide, key_field: str | None) -> Pairing:
    """Pair the two sides by the key chosen as documented above."""
    mode = KeyMode.FIELD if key_field is not None else _auto_mode(base, patch)
    column = KEY_COLUMN[mode]
    base_index = _index(base, column(base), mode)
    patch_index = _index(patch, column(patch), mode)
    return Pairing(mode=mode, field=key_field, base=base_index, patch=patch_index)


def _auto_mode(base: SpilledSide, patch: SpilledSide) -> KeyMode:
    base_ids, why_not = _unique_ids(base)
    patch_ids, why_not_patch = _unique_ids(patch)
    if base_ids is not None and patch_ids is not None:
        if not base_ids.keys().isdisjoint(patch_ids):
            return KeyMode.ID
        why_not = "no id appears on both sides"
    why_not = why_not or why_not_patch
    for side in (base, patch):
        missing = next((n for n, digest in enumerate(side.prompts) if digest is None), None)
        if missing is not None:
            raise UsageError(
                f"cannot pair records by id ({why_not}) nor by prompt "
                f"({side.where(missing)} has no prompt); pass --key FIELD (a field both "
                "sides share) or --by-order (the Nth record of each side)"
            )
    return KeyMode.PROMPT


def _unique_ids(side: SpilledSide) -> tuple[dict[str, int] | None, str]:
    """The side's ids when every record has one and none repeats, else why not."""
    first: dict[str, int] = {}
    for position, rid in enumerate(side.ids):
        if rid is None:
            return None, f"{side.where(position)} has no id"
        if rid in first:
            lines = f"{side.lines[first[rid]]}, {side.lines[position]}"
            return None, f"{side.display}: id {rid!r} at lines {lines}"
        first[rid] = position
    return first, ""


def _index(side: SpilledSide, keys: list[str | None], mode: KeyMode) -> dict[str, int]:
    index: dict[str, int] = {}
    duplicates: dict[str, list[int]] = {}
    for position, key in enumerate(keys):
        if key is None:
            raise ResponseFormatError(f"{side.where(position)}: record has no pairing key")
        if key in index:
            duplicates.setdefault(key, [index[key]]).append(position)
        else:
            index[key] = position
    if duplicates:
        raise ResponseFormatError(_duplicates_message(side, duplicates, mode))
    return index


def _duplicates_message(side: SpilledSide, duplicates: dict[str, list[int]], mode: KeyMode) -> str:
    def label(key: str, position: int) -> str:
        if mode is KeyMode.PROMPT:
            return f"prompt {side.record(position).prompt_preview!r}"
        return repr(key)

    named = [
        f"{label(key, positions[0])} at lines {', '.join(str(side.lines[p]) for p in positions)}"
        for key, positions in list(duplicates.items())[:MAX_NAMED_DUPLICATES]
    ]
    more = len(duplicates) - len(named)
    tail = f" and {more} more" if more else ""
    return f"{side.display}: duplicate {mode.value} keys: {'; '.join(named)}{tail}"
