"""A sample counts only for the request it repeats.

Triage joins samples to comparison records by key, but a key proves nothing by itself: samples
of another prompt, at another temperature, streamed where the capture was a whole answer (a
server's stream can differ from its whole answer), or on another route would explain a real
regression away. So, before any verdict:

- every sample that records its prompt (`prompt_xxh3`) must repeat its record's captured prompt,
  else triage refuses the logs (exit 2 naming the key and both prompts' previews);
- each log's condition — route (the header's `endpoint`), `stream`, and every request field the
  samples sent (`request_params`: temperature, top_p, top_k, min_p, seed, max_tokens, stop,
  penalties, logprobs settings, n, ...) — is compared field by field with the captured request
  where the capture records it (`k3diff responses` keeps it as each side's `request`). A field
  that differs is refused (exit 2 naming the field and both values) unless
  `--allow-condition-mismatch`, under which the record's samples clear nothing;
- where the capture does not record its request, nothing can be compared: every such record is
  flagged and the triage states, once, what could not be checked.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from k3diff.errors import UsageError
from k3diff.responses.document import ResponsesDocument
from k3diff.responses.recordview import CapturedCondition, ResponsesRecord
from k3diff.triage.classify import CLEARING
from k3diff.triage.mismatches import Mismatch, differences, in_words, refusal
from k3diff.triage.model import Category, Flag, RecordVerdict
from k3diff.triage.samples import Sample, SampleLogs

UNDECIDED = CLEARING | {Category.BOTH_NONDETERMINISTIC, Category.INCONCLUSIVE}
"""Categories that samples of another condition leave inconclusive, said first in the reason
(a regression candidate stays one)."""


@dataclass(frozen=True)
class ConditionCheck:
    """What the condition check found (mismatches only under --allow-condition-mismatch)."""

    mismatched: Mapping[str, tuple[Mismatch, ...]]
    """Per record key, the fields its samples differ in from the capture."""
    unchecked: frozenset[str]
    """Keys whose captured request (or some of it) is not recorded: their condition is
    unchecked."""
    sampled: str | None
    """The samples' condition in words ('temperature 1, seed 7, streamed, completions route'),
    'one of: ...' where they were sent under several, None without samples."""
    unlogged: frozenset[str] = frozenset()
    """Keys whose captures record their requests but whose samples do not log theirs (logs
    written before `request_params`): only the header's `--param` fields were compared."""
    lacking: tuple[str, ...] = ()
    """What the unchecked captures lack of their requests (`CAPTURED_PARTS`' names), in that
    order."""
    prompted: bool = False
    """Every unchecked capture records its prompt (it lacks only what `lacking` says)."""
    unprompted: frozenset[str] = frozenset()
    """Keys whose captures record a prompt but whose samples do not log theirs (`prompt_xxh3`):
    that they repeat it could not be checked (review63: an edited log was checked silently)."""

    def apply(self, record: RecordVerdict) -> RecordVerdict:
        """`record` with what the check found: samples of another condition (allowed) are
        shown but clear nothing (said first, whatever else left the record undecided); a
        condition that could not be checked is flagged."""
        flags = set(record.flags)
        if record.key in self.unchecked or record.key in self.unprompted:
            flags.add(Flag.CONDITION_UNCHECKED)
        found = self.mismatched.get(record.key, ())
        category, reason = record.category, record.reason
        if found:
            flags.add(Flag.OTHER_CONDITION)
            if category in UNDECIDED:
                differences = "; ".join(dict.fromkeys(m.text() for m in found))
                category = Category.INCONCLUSIVE
                reason = (
                    f"samples of another condition ({differences}): they clear nothing; {reason}"
                )
        ordered = tuple(flag for flag in Flag if flag in flags)
        more = None if found and category is Category.INCONCLUSIVE else record.more_samples
        return dataclasses.replace(
            record, category=category, reason=reason, flags=ordered, more_samples=more
        )

    def qualification(self) -> str | None:
        """The sentence the triage and the bundle state when something could not be checked."""
        prompts = None
        if self.unprompted:
            count = len(self.unprompted)
            prompts = (
                f"the samples do not log their prompts ({count:,} record{'s' if count != 1 else ''}"
                "): that they repeat the captured prompts could not be checked"
            )
        found = self._requests()
        return prompts if found is None else found if prompts is None else f"{found}; {prompts}"

    def _requests(self) -> str | None:
        if not self.unchecked:
            return None
        if self.unchecked <= self.unlogged:
            count = len(self.unchecked)
            return (
                f"the samples do not log their request fields ({count:,} record"
                f"{'s' if count != 1 else ''}): only the fields their log header names "
                f"({self.sampled}) were checked against the captured requests"
            )
        count = len(self.unchecked - self.unlogged)
        what = "do not record their requests"
        if self.prompted and self.lacking:
            what = f"record their prompts but not their {_either(self.lacking)}"
        return (
            f"the captures {what} ({count:,} record{'s' if count != 1 else ''}): the samples' "
            f"condition ({self.sampled}) could not be checked against them"
        )


def _either(names: tuple[str, ...]) -> str:
    """'route, stream or sampling fields'."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


CAPTURED_PARTS = ("route", "stream", "sampling fields", "whole request body")
"""What a capture may lack of its request, in the order a qualification names them."""


def _lacking(captured: CapturedCondition | None) -> set[str]:
    """What of its request `captured` does not record (`CAPTURED_PARTS`' names)."""
    if captured is None:
        return set(CAPTURED_PARTS[:3])
    found = {
        name
        for name, missing in zip(
            CAPTURED_PARTS,
            (
                captured.route is None,
                captured.stream is None,
                captured.params is None,
                captured.params is not None and not captured.complete,
            ),
            strict=True,
        )
        if missing
    }
    return found


def check_prompts(comparison: ResponsesDocument, logs: SampleLogs) -> None:
    """Refuse samples that repeat another prompt than their record's capture."""
    records = {record.key: record for record in comparison.records}
    for sample in logs.samples:
        record = records.get(sample.key)
        if record is None or sample.prompt_xxh3 is None:
            continue
        captured = record.prompts.get(sample.side) or next(iter(record.prompts.values()), None)
        if captured is not None and captured != sample.prompt_xxh3:
            raise UsageError(
                f"{logs.paths[sample.order[0]]}: key {sample.key!r} ({sample.side}): the samples "
                f"repeat prompt {sample.prompt_preview!r}, but the record of {comparison.name} "
                f"is prompt {record.prompt_preview!r}; a sample counts only for the request it "
                "repeats: sample the comparison's own prompts (k3diff sample --prompts CAPTURE)"
            )


def check_conditions(
    comparison: ResponsesDocument, logs: SampleLogs, allow: bool
) -> ConditionCheck:
    """Compare each log's condition with the captured requests; raise on a mismatch unless
    `allow`."""
    records = {record.key: record for record in comparison.records}
    seen: set[tuple[int, str, str]] = set()
    mismatched: dict[str, list[Mismatch]] = {}
    unchecked: set[str] = set()
    unlogged: set[str] = set()
    unprompted: set[str] = set()
    lacking: set[str] = set()
    prompted = True
    sampled: dict[str, None] = {}  # every condition the samples were sent under, in order
    for sample in logs.samples:
        index = sample.order[0]
        slot = (index, sample.key, sample.side)
        record = records.get(sample.key)
        if record is None or slot in seen:
            continue
        seen.add(slot)
        route, stream = _log_condition(logs, index)
        header = _header_params(logs, index, sample.side)
        mine = sample.request_params if sample.request_params is not None else header
        sampled.setdefault(in_words(mine, route, stream))
        captured = recorded_condition(record, sample.side)
        if sample.prompt_xxh3 is None and record.prompts:
            unprompted.add(record.key)
        if not _checkable(captured, sample):
            unchecked.add(record.key)
            if sample.request_params is None and _checkable(
                captured,
                dataclasses.replace(
                    sample, line=dataclasses.replace(sample.line, request_params={})
                ),
            ):
                unlogged.add(record.key)
            else:
                lacking |= _lacking(captured)
                prompted = prompted and bool(record.prompts)
        if captured is None:
            continue
        # A log without `request_params` still names in its header what every request was
        # given over the prompts' own fields (--param, --base-param/--patch-param): those, at
        # least, are compared (a temperature-1 log never passes for a temperature-0 capture).
        unlogged_fields = None if sample.request_params is not None else (mine, set(mine or {}))
        found = differences(
            record, captured, sample, route, stream, logs.paths[index], unlogged_fields
        )
        if found:
            mismatched.setdefault(record.key, []).extend(found)
    if mismatched and not allow:
        raise UsageError(refusal(comparison, mismatched))
    return ConditionCheck(
        {key: tuple(found) for key, found in mismatched.items()},
        frozenset(unchecked),
        _several(sampled),
        frozenset(unlogged),
        tuple(name for name in CAPTURED_PARTS if name in lacking),
        prompted,
        frozenset(unprompted),
    )


def recorded_condition(record: ResponsesRecord, side: str) -> CapturedCondition | None:
    """The request `side`'s samples must repeat: its capture's, each part the capture does not
    record taken from the other side's (a record pairs two answers to one request, as a sample's
    prompt is checked against either side's captured prompt)."""
    own = record.conditions.get(side)
    other = next((c for name, c in record.conditions.items() if name != side), None)
    if own is None or other is None:
        return own or other
    with_params = own if own.params is not None else other
    return CapturedCondition(
        own.route if own.route is not None else other.route,
        own.stream if own.stream is not None else other.stream,
        with_params.params,
        with_params.complete,
    )


def _several(conditions: Mapping[str, None]) -> str | None:
    """The one condition in words, or 'one of: temperature 0, ...; temperature 1, ...' (the
    first few: samples of one log, sides or keys sent under several; review63)."""
    if len(conditions) < 2:
        return next(iter(conditions), None)
    shown = list(conditions)[:4]
    more = f"; and {len(conditions) - len(shown)} more" if len(conditions) > len(shown) else ""
    return f"one of: {'; '.join(shown)}{more}"


def _header_params(logs: SampleLogs, index: int, side: str) -> Mapping[str, Any] | None:
    """The request fields a log's header says one side was given (`--param`, then its own)."""
    common = logs.params[index] if index < len(logs.params) else None
    own = logs.side_params[index].get(side) if index < len(logs.side_params) else None
    if not isinstance(own, Mapping):
        return common
    return {**(common or {}), **own}


def _log_condition(logs: SampleLogs, index: int) -> tuple[str | None, bool | None]:
    fields = logs.logs[index].header.fields if index < len(logs.logs) else {}
    route, stream = fields.get("endpoint"), fields.get("stream")
    return (
        route if isinstance(route, str) else None,
        stream if isinstance(stream, bool) else None,
    )


def _checkable(captured: CapturedCondition | None, sample: Sample) -> bool:
    """Every part of the condition could be compared."""
    return (
        captured is not None
        and captured.stream is not None
        and captured.params is not None
        and captured.complete
        and sample.request_params is not None
    )
