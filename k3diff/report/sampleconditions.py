"""The `k3diff sample` summary's clauses on the conditions its samples were taken under: the
control, answers that came out of step, the models that answered, and request fields the two
sides were sent differently (also said before the run starts: `side_fields_note`)."""

from __future__ import annotations

from collections.abc import Iterable

from k3diff import escape
from k3diff.sample.model import SampleResult
from k3diff.sample.served import IGNORE_MODEL_COMMAND, SideModels, listed_models, shown_model
from k3diff.sample.sidefields import FieldDifference


def control_text(result: SampleResult) -> str:
    """'; vacuous: ...' when a side's control came back identical, else its numbers."""
    if result.control is None:
        return ""
    if result.vacuous:
        found = result.control
        sides = ", ".join(f"{side} 1 output in {found[side][0]}" for side in result.vacuous)
        return (
            f"; vacuous: the control (one prompt at temperature 1, distinct seeds) came back "
            f"identical ({sides}): sampling parameters ignored, or a cache or proxy answering; "
            "this run could not have shown a difference"
        )
    parts = [f"{side} {d} distinct in {n}" for side, (n, d) in result.control.items()]
    return f"; control: {', '.join(parts)}"


def out_of_step_text(result: SampleResult) -> str:
    """'; out of step: base 0, patch 3 answers arrived before their request was sent ...' (''
    when none did)."""
    if not any(result.out_of_step.values()):
        return ""
    counts = ", ".join(f"{side} {count}" for side, count in result.out_of_step.items())
    return (
        f"; out of step: {counts} answers arrived before their request was sent (a server or "
        "proxy answering one request more than once): each was refused and its request sent "
        "again on a new connection"
    )


def models_text(result: SampleResult) -> str:
    """'; models: base answered as "a" (3), patch answered as "b" (3), requested "a"; ...' when
    the answers named several models on a side, another model than the requests named, or one
    model on the base and another on the patch ('' otherwise)."""
    models = result.models
    if models is None or not models.notable:
        return ""
    answered = ", ".join(
        f"{side} {_answered(found)}"
        for side, found in models.sides.items()
        if found.answered or found.torn
    )
    text = f"; models: {answered}"
    for side, found in models.sides.items():
        if not found.mixed:
            continue
        count = len(found.mixed)
        text += (
            f"; {side} answered {count} record{'s' if count != 1 else ''} as more than one "
            "model: triage refuses such samples (a server restarted on another checkpoint, or "
            "replicas serving different ones)"
        )
    if models.across:
        count = len(models.across)
        text += (
            f"; base and patch answered {count} record{'s' if count != 1 else ''} as different "
            "models: triage clears none of them unless its comparison ignores `model` (one "
            f"model under two names, as two model directories are: compare the two captures "
            f"again with `{IGNORE_MODEL_COMMAND}`)"
        )
    return text


def _answered(found: SideModels) -> str:
    """'answered as "a" (3), "b" (1), requested "m"' for one side (the requested models only
    where one answered is none of them); its streams whose chunks named several models too."""
    names = [f"{_name(model)} ({count})" for model, count in found.answered.items()]
    text = f"answered as {', '.join(names)}" if names else "answered"
    if found.torn:
        streams = f"{found.torn} stream{'s' if found.torn != 1 else ''}"
        text += f"{',' if names else ''} in {streams} whose chunks named several models"
    if found.renamed:
        text += f", requested {_listed(found.requested)}"
    return text


def side_fields_text(result: SampleResult) -> str:
    """'; base and patch were sent different request fields (temperature: base 0, patch 1):
    ...' ('' when the sides were sent the same)."""
    if not result.side_fields:
        return ""
    return f"; {_differ(result.side_fields, 'were')}"


def side_fields_note(found: tuple[FieldDifference, ...]) -> str:
    """The note `sample` prints before its first request when the sides will be sent different
    request fields."""
    return escape.text(f"k3diff: note: {_differ(found, 'are')}")


def _differ(found: Iterable[FieldDifference], verb: str) -> str:
    said = "; ".join(difference.text() for difference in found)
    return (
        f"base and patch {verb} sent different request fields ({said}): triage clears none of "
        "these records, the base's spread excusing nothing of a patch sent otherwise "
        "(deliberate in an A/B run; else check --param, --base-param, --patch-param and the "
        "prompts' fields)"
    )


def _name(model: str) -> str:
    return shown_model(model, 60)


def _listed(models: Iterable[str]) -> str:
    return listed_models(models, 60)
