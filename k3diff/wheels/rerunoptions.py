"""A wheels document's `rerun` object read back into the options `report` runs `wheels` again
with (forge62; written by `rerunsettings`): every field must be there and of its type, never a
default in its place."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from k3diff.errors import InputError
from k3diff.recordedvalues import flag, optional_text, text
from k3diff.wheels.compare import WheelOptions

if TYPE_CHECKING:
    from k3diff.wheel.policy import Policy
    from k3diff.wheel.waivers import WaiverSet


@dataclass(frozen=True)
class RecordedSource:
    """A `rerun.source` object: where `--source` looked, by full commit ids."""

    prefix: str | None
    """`--source-prefix` as given (None: detected from the tree, as it was)."""
    source_all: bool
    """`--source-all`."""
    commit: str
    """The commit compared with: REV, or NEW of a range (full id)."""
    old_commit: str | None
    """OLD of a range (full id); None for one commit."""


def rerun_options(settings: object, name: str) -> tuple[WheelOptions, RecordedSource | None]:
    """The options (without a source: the caller names the repository) and the source a
    `rerun` object records; InputError naming what cannot be read (never a default in its
    place)."""
    if not isinstance(settings, Mapping):
        raise InputError(f"{name}: rerun is not an object")
    try:
        source = settings["source"]
        options = WheelOptions(
            policy=_policy(settings),
            explain=flag(settings["explain"]),
            file_hash=flag(settings["file_hash"]),
            protected_commands=frozenset(text(n) for n in _list(settings["protected_commands"])),
        )
        recorded = (
            None
            if source is None
            else RecordedSource(
                prefix=optional_text(source["prefix"]),
                source_all=flag(source["source_all"]),
                commit=_commit(source["commit"]),
                old_commit=None if source["old_commit"] is None else _commit(source["old_commit"]),
            )
        )
    except KeyError as exc:  # a field this version records, deleted (or a document too old)
        raise InputError(f"{name}: rerun lacks its {exc.args[0]!r} field") from None
    except (TypeError, ValueError) as exc:
        raise InputError(f"{name}: rerun cannot be read ({type(exc).__name__}: {exc})") from None
    except InputError as exc:  # a recorded waiver no waiver file could hold
        raise InputError(f"{name}: {exc}") from None
    return options, recorded


def _policy(settings: Mapping[str, Any]) -> Policy:
    from k3diff.wheel.codes import Code
    from k3diff.wheel.policy import Policy

    select = settings["select"]
    waivers = settings["waivers"]
    return Policy(
        allow_native_changes=flag(settings["allow_native_changes"]),
        allow_bytecode=flag(settings["allow_bytecode"]),
        select=None if select is None else frozenset(Code[text(c)] for c in _list(select)),
        ignore=frozenset(Code[text(c)] for c in _list(settings["ignore"])),
        waivers=None if waivers is None else _waiver_set(waivers),
    )


def _waiver_set(data: Mapping[str, Any]) -> WaiverSet:
    """The recorded waivers, each checked as the waiver file's reader checks it
    (`waivers.checked_waiver`): a waiver no file could hold (an unwaivable code, a glob on a
    native library) is refused, never applied."""
    from k3diff.wheel.waivers import MAX_WAIVERS, WaiverSet, checked_waiver

    entries = _list(data["entries"])
    if len(entries) > MAX_WAIVERS:
        raise ValueError(f"{len(entries)} waivers (at most {MAX_WAIVERS})")
    display = f"rerun.waivers ({text(data['file'])})"
    waivers = []
    for index, entry in enumerate(entries):
        if not isinstance(entry, Mapping):
            raise TypeError(f"{entry!r} is not an object")
        table = {k: v for k, v in entry.items() if k != "number" and v is not None}
        waiver = checked_waiver(display, _count(entry["number"]), table)
        if waiver.number != index + 1:
            raise ValueError(f"waiver {waiver.number} recorded as entry {index + 1}")
        waivers.append(waiver)
    return WaiverSet(
        source=text(data["file"]),
        waivers=tuple(waivers),
        today=dt.date.fromisoformat(text(data["judged_on"])),
    )


def _list(value: object) -> list[Any]:
    if not isinstance(value, list):
        raise TypeError(f"{value!r} is not a list")
    return value


def _count(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise TypeError(f"{value!r} is not a waiver number")
    return value


def _commit(value: object) -> str:
    commit = text(value)
    if len(commit) not in (40, 64) or commit.strip("0123456789abcdef"):
        raise ValueError(f"{commit!r} is not a full commit id")
    return commit
