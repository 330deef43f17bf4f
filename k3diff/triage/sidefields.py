"""A record is one request: its base's and its patch's samples must have sent the same fields.

A base sampled with other request fields than the patch (`--base-param temperature=1`, the
patch greedy) spreads by its own sampling, and its spread excuses nothing of the patch: the
patch's captured output among the base's outputs is then no evidence that the base is
nondeterministic under the patch's request. Where the captures record their requests,
`k3diff.triage.conditions` already holds each side to them; where they do not, this is the only
check. Sides sent with different fields (the requested model aside, which the fields leave
out), or answered as different models (`k3diff.triage.servedmodel.side_models`: the model each
answer names, unless the comparison left `model` out with `--ignore-field model`), keep their
records from clearing: base-nondeterminism and both-nondeterministic become inconclusive, said
first in the reason, and so does a match where the comparison found the captures differing (the
sides agreeing under two requests explain no difference between them); a match of captures that
agree, or a regression candidate, stays one.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any

from k3diff.requestvalues import same_value
from k3diff.responses.recordview import UNEXPLAINED
from k3diff.sample.served import IGNORE_MODEL_COMMAND
from k3diff.triage.flags import Flag
from k3diff.triage.model import Category, RecordVerdict
from k3diff.triage.samples import Sample, SampleLogs
from k3diff.triage.servedmodel import side_models

IGNORED = frozenset({"cache_salt"})
"""Fields that are no condition (`cache_salt` only keys the server's prefix cache)."""
EXCUSING = frozenset({Category.BASE_NONDETERMINISM, Category.BOTH_NONDETERMINISTIC})
"""Categories that rest on the base's spread being the patch's condition's."""


def side_differences(logs: SampleLogs, models: bool = True) -> dict[str, str]:
    """Per record key whose two sides' samples sent different request fields (or, with
    `models`, were answered as different models), those differences in words ('temperature:
    base 1, patch 0; model: base "a", patch "b"')."""
    found: dict[str, str] = {}
    missing = object()
    for key, (base, patch, names) in _sides_sent(logs).items():
        found[key] = "; ".join(
            f"{name}: base {_shown(base.get(name, missing), missing)}, "
            f"patch {_shown(patch.get(name, missing), missing)}"
            for name in names
        )
    for key, said in (side_models(logs) if models else {}).items():
        found[key] = f"{found[key]}; {said}" if key in found else said
    return found


def side_field_names(logs: SampleLogs) -> dict[str, tuple[str, ...]]:
    """Per record key whose two sides' samples sent different request fields, those fields'
    names (`k3diff.triage.rightcondition` leaves their `--base-param`/`--patch-param` out)."""
    return {key: names for key, (_, _, names) in _sides_sent(logs).items()}


_Sent = tuple[Mapping[str, Any], Mapping[str, Any], tuple[str, ...]]


def _sides_sent(logs: SampleLogs) -> dict[str, _Sent]:
    """Per record key whose sides sent different fields: (the base's, the patch's, the names
    of the fields that differ, sorted)."""
    sent: dict[tuple[str, str], Mapping[str, Any] | None] = {}
    for sample in logs.samples:
        sent.setdefault((sample.key, sample.side), _fields(logs, sample))
    found: dict[str, _Sent] = {}
    missing = object()
    for (key, which), base in sent.items():
        patch = sent.get((key, "patch")) if which == "base" else None
        if base is None or patch is None:
            continue
        names = tuple(
            name
            for name in sorted((set(base) | set(patch)) - IGNORED)
            if not same_value(base.get(name, missing), patch.get(name, missing))
        )
        if names:
            found[key] = (base, patch, names)
    return found


def hold_sides_differ(verdict: RecordVerdict, differences: Mapping[str, str]) -> RecordVerdict:
    """`verdict` with its base's spread excusing nothing where its sides sent other fields, nor
    its sides' agreement a difference the comparison found (`UNEXPLAINED`: review80a, a base
    sent without the capture's `stop` ran on as the patch that ignores it does, and the
    captured difference passed as a `match`)."""
    found = differences.get(verdict.key)
    if found is None:
        return verdict
    flags = set(verdict.flags) | {Flag.OTHER_CONDITION}
    category, reason = verdict.category, verdict.reason
    explains = category is Category.MATCH and verdict.comparison_status in UNEXPLAINED
    if category in EXCUSING or category is Category.INCONCLUSIVE or explains:
        category = Category.INCONCLUSIVE
        reason = (
            f"the base's and the patch's samples {_how(found)} ({found}): they clear nothing"
            f"{_renamed_hint(found)}; {reason}"
        )
    ordered = tuple(flag for flag in Flag if flag in flags)
    # More samples of sides that send other fields clear nothing either: no `next:` for them.
    more = None if category is Category.INCONCLUSIVE else verdict.more_samples
    return dataclasses.replace(
        verdict, category=category, reason=reason, flags=ordered, more_samples=more
    )


def _renamed_hint(found: str) -> str:
    """Where the sides were answered as other models, what to do when the two names are one
    model (servers started from two copies of one checkpoint name themselves by their paths)."""
    if "model: base " not in found:
        return ""
    return f" (one model under two names? compare the captures again with `{IGNORE_MODEL_COMMAND}`)"


def _how(found: str) -> str:
    """What differs between the sides, as `side_differences` words it."""
    served = "model: base " in found
    sent = not found.startswith("model: base ")
    if served and sent:
        return "were sent with other request fields and answered as other models"
    return "were answered as other models" if served else "were sent with other request fields"


def _fields(logs: SampleLogs, sample: Sample) -> Mapping[str, Any] | None:
    """The fields a sample sent: its logged request fields, else its log header's."""
    if sample.request_params is not None:
        return sample.request_params
    index = sample.order[0]
    common = logs.params[index] if index < len(logs.params) else None
    own = logs.side_params[index].get(sample.side) if index < len(logs.side_params) else None
    if not isinstance(own, Mapping):
        return common
    return {**(common or {}), **own}


def _shown(value: Any, missing: object) -> str:
    return "unset" if value is missing else json.dumps(value, ensure_ascii=True, sort_keys=True)
