"""What decides a record held for samples of another condition: samples of the right one.

A record flagged `samples-of-another-condition` (its samples were sent otherwise than its
capture, under `--allow-condition-mismatch`, or its base's otherwise than its patch's) clears
nothing on them, and more samples of the same run are of the same wrong condition: they decide
nothing either. So such a record asks for no `more_samples` (null), whatever else holds it
(more80: a record also held capture-unexplained kept its mode's count, and `next:` said to grow
the run), and triage's `next:` step names the condition to sample under instead: the
`k3diff sample` options to give (`--param NAME=VALUE`, `--stream`, `--endpoint`) and those to
leave out (`--patch-param NAME`, `--stream`), in a new `--out`, the run's own command where its
log records it (`Resample`).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping, Sequence

from k3diff import shellwords
from k3diff.sample.names import Endpoint
from k3diff.sample.reader import SamplesLog
from k3diff.triage.mismatches import Mismatch
from k3diff.triage.model import Category, Flag, RecordVerdict
from k3diff.triage.nextstep import logged_command
from k3diff.triage.resample import PARAMS, Resample


def ask_none(record: RecordVerdict) -> RecordVerdict:
    """`record` asking for no more samples where samples of another condition hold it."""
    held = record.category is Category.INCONCLUSIVE and Flag.OTHER_CONDITION in record.flags
    return dataclasses.replace(record, more_samples=None) if held else record


def resample(
    records: Iterable[RecordVerdict],
    mismatched: Mapping[str, Sequence[Mismatch]],
    sides: Mapping[str, tuple[str, tuple[str, ...]]],
    logs: Sequence[SamplesLog],
) -> Resample | None:
    """The step for the inconclusive records held for samples of another condition
    (`mismatched`: per key, how its samples differ from its capture, the model check's
    included; `sides`: per key whose base and patch were sent other fields or answered as other
    models, those differences in words and the fields' names); None where none is held so."""
    held = [
        r
        for r in records
        if r.category is Category.INCONCLUSIVE and Flag.OTHER_CONDITION in r.flags
    ]
    if not held:
        return None
    give: dict[str, None] = {}
    drop: dict[str, None] = {}
    notes: dict[str, None] = {}
    left_out: dict[tuple[str, str], None] = {}
    said: dict[str, set[str]] = {}  # a difference in words -> the sides it is of
    for record in held:
        for mismatch in mismatched.get(record.key, ()):
            said.setdefault(mismatch.text(), set()).add(mismatch.side)
            _options(mismatch, give, drop, notes)
            if not _transport(mismatch):  # a request field set or left out: on both sides
                left_out.update(dict.fromkeys((option, mismatch.field) for option in PARAMS))
        if record.key in sides:
            text, names = sides[record.key]
            said.setdefault(text, set())
            for name in names:
                drop.setdefault(f"--base-param {name}")
                drop.setdefault(f"--patch-param {name}")
                left_out.update(dict.fromkeys((option, name) for option in PARAMS[1:]))
            if "model: base " in text:
                notes.setdefault("both sides answered as one model")
    command = logged_command(logs[-1].header.fields) if logs else None
    return Resample(
        tuple(r.name for r in held),
        tuple(_said(text, found) for text, found in said.items()),
        tuple(give),
        tuple(drop),
        command,
        any(mismatched.get(r.key) for r in held),
        tuple(notes),
        tuple(left_out),
    )


ROUTES = {json.dumps(route.value): route.value for route in Endpoint}
"""A route mismatch's captured value (JSON) -> its `--endpoint`; any other value of a field
named `route` is a request field's, given as `--param` (review80a: a long one, cut at 60
characters, was read as JSON for `--endpoint`, an internal error)."""


def _transport(mismatch: Mismatch) -> bool:
    """A mismatch no request field option gives: `--stream`, `--endpoint`, the server's model."""
    field = mismatch.field
    return field in ("stream", "model") or (field == "route" and mismatch.captured in ROUTES)


def _said(text: str, sides: set[str]) -> str:
    """'temperature: captured 0, sampled 1', led by its side where only one side's was."""
    return f"{next(iter(sides))} {text}" if len(sides) == 1 else text


def _options(
    mismatch: Mismatch, give: dict[str, None], drop: dict[str, None], notes: dict[str, None]
) -> None:
    """The options that send `mismatch`'s field as the capture did (`notes`: what no option
    does)."""
    field, captured = mismatch.field, mismatch.captured
    if field == "stream":
        (give if captured == "true" else drop).setdefault("--stream")
    elif field == "route" and _transport(mismatch):
        give.setdefault(f"--endpoint {ROUTES[captured]}")
    elif field == "model":
        # The server answers as a model: no request field of `sample` chooses it.
        notes.setdefault(f"a {mismatch.side} server that answers as {captured}")
    elif captured == "unset":
        for option in PARAMS:
            drop.setdefault(f"{option} {field}")
        notes.setdefault(f"{field} left out of the prompts' own fields where they hold it")
    else:
        value = captured if not captured.endswith("…") else "<the captured value>"
        give.setdefault(f"--param {shellwords.quote(f'{field}={value}')}")
