"""Pairs base and patch records by a key — the one default rule `k3diff responses` and
`k3diff sample --prompts` share (`default_keys`).

The key is, in order of preference:

1. ``--key FIELD`` (a field name or dotted path into each raw record), when given;
2. a client key: the top-level ``key``, ``custom_id`` or ``request_id`` field (one field name
   across the files; lm-eval samples name theirs by doc and filter), when every record has one
   and at least one appears on both sides (a client key that repeats on a side is an error:
   the client said these are one request). A client key every record carries but whose values
   never meet is passed over and named (`KeyChoice.unshared`): the report says so beside the
   key it fell back to;
3. the xxh3-128 of the prompt, when every record holds its prompt and no prompt repeats on a
   side. This comes before ids: response ids are assigned by the server (``chatcmpl-0``,
   ``chatcmpl-1`` … in arrival order), so two runs that received their requests in different
   orders give one id to different requests;
4. the records' ids, when every record has one, none repeats on a side, and at least one appears
   on both sides (server-generated ids that never match are useless);
5. otherwise the prompt hash if every record has a prompt (its duplicates are named, with the
   options that pair them), else an error.

``--by-order`` pairs the Nth record of each side instead (keys ``#1``, ``#2``, ...): for captures
with per-run ids and no prompt (bare chat-completion objects, SSE streams). Both sides must hold
as many records; otherwise nothing is paired and the run stops (exit 2).

**Pairing never pairs different requests.** Whatever the key, when both records of a pair hold
their request (the prompt and the request parameters), the two requests must be equal; a pair
whose requests differ stops the run (exit 2) naming both records, because comparing the answers
to two different questions says nothing about the patch. One choice of several (n > 1) is keyed
``KEY#i`` and paired with the same choice of the other side.

A key that appears twice on one side is an error naming the lines. Records whose key appears on
one side only are kept and reported as such.

Pairing reads only each side's key columns (`SpilledSide`); the records stay in their temporary
files, except the few whose prompt a duplicate-key message quotes.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from k3diff.errors import ResponseFormatError, UsageError
from k3diff.responses.spill import SpilledSide

MAX_NAMED_DUPLICATES = 3


class KeyMode(StrEnum):
    """How records were paired."""

    FIELD = "field"
    """By a field: `--key FIELD`, or a client key field both sides carry."""
    ID = "id"
    """By the records' ids."""
    PROMPT = "prompt-hash"
    """By the xxh3-128 of the prompt."""
    ORDER = "order"
    """By position: the Nth record of each side (`--by-order`)."""


class KeyColumns(Protocol):
    """What the default rule looks at on one side: per record, in file order."""

    display: str
    ids: list[str | None]
    client_keys: list[str | None]
    client_fields: set[str | None]
    prompts: list[str | None]

    def where(self, position: int) -> str:
        """`file:line` of the record at `position`."""


@dataclass(frozen=True)
class KeyChoice:
    """Which key the default rule chose, and why a better one was passed over."""

    mode: KeyMode
    """The kind of key."""
    field: str | None
    """The field name in field mode (`custom_id`, `key`, ...)."""
    unshared: str | None = None
    """A client key field every record of both sides carries but no value of which appears on
    both sides: passed over for this choice."""

    def column(self, side: KeyColumns) -> list[str | None]:
        """The side's keys under this choice."""
        if self.mode is KeyMode.FIELD:
            return side.client_keys
        return side.ids if self.mode is KeyMode.ID else side.prompts


def _complete_and_unique(column: list[str | None]) -> bool:
    return None not in column and len(set(column)) == len(column)


def _shared(columns: list[list[str | None]]) -> bool:
    if len(columns) < 2:
        return True
    first = set(columns[0])
    return any(not first.isdisjoint(other) for other in columns[1:])


def default_keys(sides: Sequence[KeyColumns]) -> KeyChoice:
    """The default pairing key of one file (`k3diff sample --prompts`) or of the two files of a
    comparison, chosen as the module documents; raises `UsageError` when there is none."""
    fields = set().union(*(side.client_fields for side in sides))
    unshared = None
    if len(fields) == 1 and None not in fields:
        keys = [side.client_keys for side in sides]
        if all(None not in column for column in keys):
            if _shared(keys):
                return KeyChoice(KeyMode.FIELD, next(iter(fields)))
            unshared = next(iter(fields))
    prompts = [side.prompts for side in sides]
    if all(_complete_and_unique(column) for column in prompts):
        return KeyChoice(KeyMode.PROMPT, None, unshared)
    ids = [side.ids for side in sides]
    if all(_complete_and_unique(column) for column in ids) and _shared(ids):
        return KeyChoice(KeyMode.ID, None, unshared)
    why_not = _why_not_ids(sides)
    for side in sides:
        missing = next((n for n, digest in enumerate(side.prompts) if digest is None), None)
        if missing is not None:
            raise UsageError(
                f"cannot pair records by id ({why_not}) nor by prompt "
                f"({side.where(missing)} has no prompt); pass --key FIELD (a field both "
                "sides share) or --by-order (the Nth record of each side)"
            )
    return KeyChoice(KeyMode.PROMPT, None, unshared)  # duplicates: _index names them


def _why_not_ids(sides: Sequence[KeyColumns]) -> str:
    for side in sides:
        first: dict[str, int] = {}
        for position, rid in enumerate(side.ids):
            if rid is None:
                return f"{side.where(position)} has no id"
            if rid in first:
                lines = f"{side.where(first[rid])}, {side.where(position)}"
                return f"{side.display}: id {rid!r} at {lines}"
            first[rid] = position
    return "no id appears on both sides"


@dataclass(frozen=True)
class Pairing:
    """The result of pairing: how, and each side's records by key (positions in file order)."""

    mode: KeyMode
    """Which key was used."""
    field: str | None
    """The field in field mode: the `--key` field or the client key field."""
    base: dict[str, int]
    """Key to position of the base record, in base order."""
    patch: dict[str, int]
    """Key to position of the patch record, in patch order."""
    explicit: bool = False
    """The key was asked for (`--key`), not chosen by the default rule."""
    unshared: str | None = None
    """The client key field the default rule passed over (`KeyChoice.unshared`)."""

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
    explicit: bool = True
    unshared: str | None = None

    def __len__(self) -> int:
        return self.count

    def pairs(self) -> Iterator[tuple[str, int | None, int | None]]:
        """Every position once, keyed `#1`, `#2`, ... (1-based, like the report's rows)."""
        for position in range(self.count):
            yield f"#{position + 1}", position, position


def pair_by_order(base: SpilledSide, patch: SpilledSide) -> OrderPairing:
    """Pair by position; refused (a usage error) when the sides hold different counts or a pair's
    requests differ."""
    if len(base) != len(patch):
        raise UsageError(
            f"--by-order: {base.display} has {_records(len(base))}, {patch.display} has "
            f"{len(patch)}; pairing by position needs as many records on each side "
            "(pass --key FIELD to pair by a field instead)"
        )
    pairing = OrderPairing(len(base))
    check_requests(base, patch, pairing)
    return pairing


def _records(count: int) -> str:
    return f"{count} record" if count == 1 else f"{count:,} records"


def pair_records(base: SpilledSide, patch: SpilledSide, key_field: str | None) -> Pairing:
    """Pair the two sides by the key chosen as documented above."""
    if key_field is not None:
        base_index = _index(base, base.keys, KeyMode.FIELD)
        patch_index = _index(patch, patch.keys, KeyMode.FIELD)
        pairing = Pairing(KeyMode.FIELD, key_field, base_index, patch_index, explicit=True)
    else:
        choice = default_keys([base, patch])
        base_index = _index(base, choice.column(base), choice.mode)
        patch_index = _index(patch, choice.column(patch), choice.mode)
        pairing = Pairing(
            choice.mode, choice.field, base_index, patch_index, unshared=choice.unshared
        )
    check_requests(base, patch, pairing)
    return pairing


def describe(mode: KeyMode, field: str | None, explicit: bool) -> str:
    """How a report names the pairing key: `--key meta.qid`, `custom_id`, `id`, ..."""
    if mode is KeyMode.FIELD and field is not None:
        return f"--key {field}" if explicit else field
    return mode.value


def check_requests(base: SpilledSide, patch: SpilledSide, pairing: Pairing | OrderPairing) -> None:
    """Refuse a pairing that pairs two different requests (see the module docstring)."""
    for key, base_at, patch_at in pairing.pairs():
        if base_at is None or patch_at is None:
            continue
        base_request, patch_request = base.requests[base_at], patch.requests[patch_at]
        if base_request is None or patch_request is None or base_request == patch_request:
            continue
        prompts_differ = base.prompt_of(base_at) != patch.prompt_of(patch_at)
        what = "prompts" if prompts_differ else "request parameters"
        how = describe(pairing.mode, pairing.field, pairing.explicit)
        raise UsageError(
            f"{base.where(base_at)} and {patch.where(patch_at)} are paired by {how} "
            f"(key {key!r}) but their {what} differ: they answer different requests; pass "
            "--key FIELD (a field that names the request on both sides) or --by-order"
        )


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
    hint = ""
    if mode is KeyMode.PROMPT:
        hint = (
            "; the same prompt was sent more than once: pass --key FIELD (a field that tells "
            "the requests apart) or --by-order (the Nth record of each side)"
        )
    return f"{side.display}: duplicate {mode.value} keys: {'; '.join(named)}{tail}{hint}"
