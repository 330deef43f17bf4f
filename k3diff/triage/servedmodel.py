"""A sample counts only for the model that answered its capture.

A server restarted on another checkpoint, or an alias that now resolves elsewhere, answers the
same request as another model: its spread then "explains" a regression it never saw, and a
patch that loads another model is judged as if it were the patched engine. Every answer names
the model the server answered as (`model`; a stream's chunks each name it), the samples log it
(`SampleLine.model`) and the comparison keeps each side's (`RecordSide.model`). So, per record
and side, before any verdict:

- the side's samples must all have been answered as one model, each stream by one model
  throughout, and as the model of that side's capture where the capture names one; otherwise
  they are samples of another condition, handled as `k3diff.triage.conditions` handles a
  request field that differs: refused (exit 2 naming the log, the key and both models) unless
  `--allow-condition-mismatch`, under which the record's samples clear nothing;
- where the capture names no model (or the samples log none), nothing can be compared: the
  record is flagged `condition-unchecked` and the triage says, once, what could not be checked.

The base's samples answered as another model than the patch's are the record's two sides under
two conditions: `k3diff.triage.sidefields` holds them, as it holds sides sent with other fields.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from k3diff.errors import UsageError
from k3diff.responses.document import ResponsesDocument
from k3diff.sample.served import listed_models, shown_model
from k3diff.triage.conditions import ConditionCheck
from k3diff.triage.mismatches import Mismatch
from k3diff.triage.model import RecordVerdict
from k3diff.triage.samples import SampleLogs

FIELD = "model"
"""The field a mismatch names."""


@dataclass(frozen=True)
class Answered:
    """The models one side's successful samples of one record were answered as."""

    models: dict[str, None]
    """Every model named, in order of first sight."""
    torn: dict[str, None]
    """Models of streams whose chunks disagreed, in order."""
    unnamed: int
    """Samples that name no model (the server named none, or a log written before `model`)."""
    log: str
    """The first log holding one of them, as the user named it."""


@dataclass(frozen=True)
class ModelCheck:
    """What the model check found (mismatches only under --allow-condition-mismatch)."""

    mismatched: Mapping[str, tuple[Mismatch, ...]]
    """Per record key, how its samples' models differ from the capture's or each other."""
    uncaptured: frozenset[str] = frozenset()
    """Keys whose capture names no model for a side with answered samples."""
    unlogged: frozenset[str] = frozenset()
    """Keys whose capture names a model for a side whose samples log none."""

    def apply(self, record: RecordVerdict) -> RecordVerdict:
        """`record` with what the check found, as `ConditionCheck.apply` words it."""
        unchecked = self.uncaptured | self.unlogged
        return ConditionCheck(self.mismatched, unchecked, None).apply(record)

    def qualification(self) -> str | None:
        """The sentence the triage and the bundle state when a model could not be checked."""
        said = []
        if self.uncaptured:
            said.append(
                f"the captures do not name the model that answered them "
                f"({_records(self.uncaptured)}): that the samples were answered by the "
                "captured model could not be checked"
            )
        if self.unlogged:
            said.append(
                f"the samples do not log the model that answered them "
                f"({_records(self.unlogged)}): that they were answered by the captured model "
                "could not be checked"
            )
        return "; ".join(said) or None


def answered(logs: SampleLogs) -> dict[tuple[str, str], Answered]:
    """Per (key, side), the models its successful samples were answered as."""
    found: dict[tuple[str, str], Answered] = {}
    for sample in logs.samples:
        line = sample.line
        if line.error is not None:
            continue  # no answer: no model
        slot = (sample.key, sample.side)
        seen = found.get(slot)
        if seen is None:
            seen = found[slot] = Answered({}, {}, 0, logs.paths[sample.order[0]])
        if line.stream_models:
            seen.torn.update(dict.fromkeys(line.stream_models))
        elif line.model is not None:
            seen.models.setdefault(line.model)
        else:
            found[slot] = Answered(seen.models, seen.torn, seen.unnamed + 1, seen.log)
    return found


def check_models(comparison: ResponsesDocument, logs: SampleLogs, allow: bool) -> ModelCheck:
    """Hold each side's samples to its capture's model and to one another; raise on a
    mismatch unless `allow`."""
    records = {record.key: record for record in comparison.records}
    mismatched: dict[str, list[Mismatch]] = {}
    uncaptured: set[str] = set()
    unlogged: set[str] = set()
    for (key, side), seen in answered(logs).items():
        record = records.get(key)
        if record is None:
            continue
        captured = record.models.get(side)
        was = "unset" if captured is None else _shown(captured)

        differing = []
        if seen.torn:
            differing.append(f"a stream whose chunks named {_listed(seen.torn)}")
        if len(seen.models) > 1:
            differing.append(f"one of {_listed(seen.models)}")
        elif captured is not None and seen.models and captured not in seen.models:
            differing.append(_listed(seen.models))
        mismatched_here = [Mismatch(key, side, FIELD, was, now, seen.log) for now in differing]
        if mismatched_here:
            mismatched.setdefault(key, []).extend(mismatched_here)
        if captured is None:
            uncaptured.add(key)
        elif captured is not None and seen.unnamed:
            unlogged.add(key)
    if mismatched and not allow:
        raise UsageError(_refusal(comparison, mismatched))
    return ModelCheck(
        {key: tuple(found) for key, found in mismatched.items()},
        frozenset(uncaptured),
        frozenset(unlogged),
    )


def side_models(logs: SampleLogs) -> dict[str, str]:
    """Per record key whose base's samples were answered as one model and its patch's as
    another, both in words ('model: base "a", patch "b"')."""
    seen = answered(logs)
    found = {}
    for (key, side), base in seen.items():
        patch = seen.get((key, "patch"))
        if side != "base" or patch is None or len(base.models) != 1 or len(patch.models) != 1:
            continue
        if base.models.keys() != patch.models.keys():
            found[key] = f"model: base {_listed(base.models)}, patch {_listed(patch.models)}"
    return found


def _refusal(comparison: ResponsesDocument, mismatched: Mapping[str, list[Mismatch]]) -> str:
    first = next(iter(mismatched.values()))[0]
    more = sum(len(found) for found in mismatched.values()) - 1
    also = f" (and {more} more difference{'s' if more != 1 else ''})" if more else ""
    captured = "names none" if first.captured == "unset" else f"is {first.captured}"
    return (
        f"{first.log}: key {first.key!r} ({first.side}): the samples were answered as model "
        f"{first.sampled} but the capture's model in {comparison.name} {captured}{also}; "
        "samples count only for the request they repeat, answered by the same model: sample "
        "the server that answered the capture, or --allow-condition-mismatch to show them "
        "without clearing anything"
    )


def _shown(model: str) -> str:
    return shown_model(model, 80)


def _listed(models: Iterable[str]) -> str:
    return listed_models(models, 80)


def _records(keys: frozenset[str]) -> str:
    return f"{len(keys):,} record{'s' if len(keys) != 1 else ''}"
