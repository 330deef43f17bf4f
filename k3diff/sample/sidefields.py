"""The request fields a run sends one side and not the other.

`--base-param` / `--patch-param`, or prompts whose fields one side's options override, give the
two sides different requests: another temperature, seed, top_k or max_tokens. Triage lets no
record whose sides were sent different fields clear (`k3diff.triage.sidefields`: the base's
spread excuses nothing of a patch sampled otherwise), and compares every request field but the
prompt, the model, the stream settings and `cache_salt` (`k3diff.responses.parts.request_params`)
by one rule (`k3diff.requestvalues.same_value`); so does this. Deliberate in an A/B run,
a slip otherwise: `sample` says so before it starts and in its summary, and the run's verdict
does not change (triage's does not either: it holds those records, it refuses nothing).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from k3diff.requestvalues import same_value
from k3diff.responses.parts import request_params

IGNORED = frozenset({"cache_salt"})
"""Fields that are no condition (`cache_salt` only keys the server's prefix cache)."""
_UNSET = object()


@dataclass(frozen=True)
class FieldDifference:
    """One request field sent differently to the two sides, and on how many records."""

    field: str
    """The request field (temperature, seed, top_k, ...)."""
    base: Any
    """What the base was sent (`UNSET`: not sent)."""
    patch: Any
    """What the patch was sent (`UNSET`: not sent)."""
    records: int
    """Records whose two sides were sent these two values."""
    of: int
    """Records the run samples."""

    def text(self) -> str:
        """'temperature: base 0, patch 1' (with 'on 2 of 5 records' where not every one)."""
        where = "" if self.records == self.of else f" on {self.records} of {self.of} records"
        return f"{self.field}: base {shown(self.base)}, patch {shown(self.patch)}{where}"


UNSET: Any = _UNSET
"""The value of a field a side was not sent."""


def shown(value: Any) -> str:
    """A sent value as JSON (cut at 40 characters), 'unset' for `UNSET`."""
    if value is _UNSET:
        return "unset"
    text = json.dumps(value, ensure_ascii=True, sort_keys=True, default=str)
    return text if len(text) <= 40 else text[:39] + "…"


def _canonical(value: Any) -> str:
    return "" if value is _UNSET else json.dumps(value, sort_keys=True, default=str)


def side_differences(
    bodies: Iterable[tuple[Mapping[str, Any], Mapping[str, Any]]],
) -> tuple[FieldDifference, ...]:
    """The fields each record's (base, patch) request bodies differ in, grouped by field and
    values, in order of first sight."""
    found: dict[tuple[str, str, str], list[Any]] = {}
    total = 0
    for base_body, patch_body in bodies:
        total += 1
        base, patch = request_params(dict(base_body)), request_params(dict(patch_body))
        for name in sorted((set(base) | set(patch)) - IGNORED):
            one, two = base.get(name, _UNSET), patch.get(name, _UNSET)
            if one is not _UNSET and two is not _UNSET and same_value(one, two):
                continue
            slot = (name, _canonical(one), _canonical(two))
            found.setdefault(slot, [name, one, two, 0])[3] += 1
    return tuple(
        FieldDifference(n, one, two, count, total) for n, one, two, count in found.values()
    )


SENT_FIELD = "side_fields_sent"
"""The header field naming the request fields some record's two sides are sent differently,
the prompts' own fields merged with each side's (`with_sent_fields`): what decides
`sides_differ` where a header has it."""


def with_sent_fields(run: Mapping[str, Any], found: Iterable[FieldDifference]) -> dict[str, Any]:
    """The header `run` with `SENT_FIELD` (the fields of `found`, `side_differences` of the
    bodies each side is sent) where it gives a side fields of its own (`side_params`)."""
    if not isinstance(run.get("side_params"), Mapping):
        return dict(run)
    return {**run, SENT_FIELD: sorted({difference.field for difference in found})}


def sides_differ(run: Mapping[str, Any]) -> bool:
    """Whether a header's `run` sends its two sides other request fields. A run of one server
    so sent is an A/B of those fields, not one server against itself (`RunHeader.same_server`);
    `cache_salt` aside (`model` counts: one server's two models, a LoRA adapter against its
    base, are an A/B). Where the header records what the requests were sent (`SENT_FIELD`),
    that decides: a `--patch-param temperature=0` whose prompts send the base
    `"temperature": 0` on every record changes nothing (sides74: it exempted the run, and
    triage passed one server against itself, exit 0). A header without it (written before
    sides74, or a list that is no list of names) is read by its `side_params` under its
    `params`: a field they give one side with another value than the other side is sent
    (`--patch-param temperature=0` under `--param temperature=0` is not one: review74d)."""
    sides, params = run.get("side_params"), run.get("params")
    if not isinstance(sides, Mapping):
        return False
    sent = run.get(SENT_FIELD)
    if isinstance(sent, list) and all(isinstance(name, str) for name in sent):
        return bool(set(sent) - IGNORED)
    shared = dict(params) if isinstance(params, Mapping) else {}
    base, patch = ({**shared, **_own(sides.get(side))} for side in ("base", "patch"))
    return any(
        not same_value(base.get(name, _UNSET), patch.get(name, _UNSET))
        for name in (set(_own(sides.get("base"))) | set(_own(sides.get("patch")))) - IGNORED
    )


def _own(fields: Any) -> dict[str, Any]:
    return dict(fields) if isinstance(fields, Mapping) else {}
