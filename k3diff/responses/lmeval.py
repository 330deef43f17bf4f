"""lm-evaluation-harness samples compared as lm-eval means them.

A samples line is one (doc, filter): ``doc_id``, ``doc``, ``target``, ``arguments`` (0.4.0-0.4.2:
a list of argument lists; 0.4.3 and later: ``{"gen_args_0": {"arg_0": ctx, "arg_1": ...}}``
with ``doc_hash``, ``prompt_hash``, ``target_hash``, ``filter`` and ``metrics``), ``resps`` (per
request, every response: several with ``repeats``) and ``filtered_resps``, and the doc's metric
values (``exact_match``, ``acc``, ...). Newer logs write every response as strings
(``["-5.8694", "False"]``); older ones keep numbers and booleans. Both are read.

- The record's key is ``doc_id`` (``doc_id/filter`` when a filter other than ``none`` is named),
  reported as the pairing field ``doc_id+filter``.
- ``--lm-eval-field resps`` (default: the model's raw output) or ``filtered_resps`` (what the
  metrics were computed from) names what is compared; the report says which.
- Generation tasks: every generation is compared, repeats included.
- Loglikelihood tasks (each response a (loglikelihood, is_greedy) pair, one per choice): the
  per-choice log-likelihoods are compared within ``--logprob-tol`` and ``is_greedy`` exactly.
- What the two runs were given is compared first (`k3diff.responses.lmevalinputs`): the
  prompt, the requests' other arguments (continuations, generation settings), ``target`` and
  ``doc``. A doc whose prompt or inputs differ is ``not-comparable`` — its answers are to
  another question, or were scored as another task, so it is neither a match nor a
  regression — the differing inputs named (``inputs_differ``).
- The compared field is compared by its grouping too (responses per request): in ``resps``,
  ``[["42", "43"]]`` is one request's two answers, ``[["42"], ["43"]]`` two requests', scored
  differently by the harness; equal generations regrouped are a difference (``resps_grouping``).
  ``filtered_resps`` holds one entry per request, one response where the filter reduced the
  request's repeats to one (``take_first``, ``majority_vote``: every lm-eval task ends so), or
  a list of responses where it kept several: its own grouping is compared, not that of ``resps``,
  which the filter reduced (``[["42", "43"], ["7"]]`` and ``[["42"], ["7", "43"]]`` both
  filter to ``["42", "7"]``).
- The metric values are compared per doc and filter; docs whose metric changed ("flips", in
  both directions) are the headline lm-eval users read.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from k3diff.errors import ResponseFormatError
from k3diff.responses import lmevalinputs
from k3diff.responses.lmevalinputs import (
    first_context,
    lm_eval_hash,
    read_inputs,
    request_arguments,
)
from k3diff.responses.model import LmEvalParts, LoadOptions, score_number, text_digest
from k3diff.responses.parts import Parts, canonical, without

KNOWN_FIELDS = frozenset(
    {
        "doc_id",
        "doc",
        "target",
        "arguments",
        "resps",
        "filtered_resps",
        "filter",
        "metrics",
        "doc_hash",
        "prompt_hash",
        "target_hash",
    }
)
FIELDS = ("resps", "filtered_resps")
KEY_FIELD = "doc_id+filter"
_GREEDY: dict[bool | str, bool] = {True: True, False: False, "True": True, "False": False}


def _loglikelihood(value: Any) -> tuple[float, bool | None] | None:
    """(ll, is_greedy) when `value` is one, in either layout; None otherwise."""
    if isinstance(value, list | tuple) and len(value) == 2:
        ll, greedy = value
        flag = _GREEDY.get(greedy) if isinstance(greedy, bool | str) else None
        if flag is None:
            return None
        number = _number(ll)
        return None if number is None else (number, flag)
    return None


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    try:
        if isinstance(value, int | float | str):
            return float(value)
    except (ValueError, OverflowError):  # OverflowError: an integer past float's range
        return None
    return None


def _requests(value: Any, field: str, where: str) -> list[list[Any]]:
    """Per request, its responses: `resps` holds a list a request; `filtered_resps` one
    response a request (what the filter reduced its repeats to), or a list where the filter
    kept several. An entry that reads as one (loglikelihood, is_greedy) pair is one response."""
    if not isinstance(value, list):
        raise ResponseFormatError(f"{where}: lm-eval sample has no list in {field}")
    if field == "resps":
        if not all(isinstance(request, list) for request in value):
            raise ResponseFormatError(f"{where}: lm-eval resps entry is not a list")
        return value
    return [
        entry if isinstance(entry, list) and _loglikelihood(entry) is None else [entry]
        for entry in value
    ]


def read_outputs(
    value: Any, field: str, where: str
) -> tuple[tuple[str, ...], tuple[tuple[float, bool | None], ...], tuple[int, ...]]:
    """Generations, or per-choice log-likelihoods, of one sample, and its responses per
    request."""
    requests = _requests(value, field, where)
    grouping = tuple(len(request) for request in requests)
    responses = [response for request in requests for response in request]
    if responses and all(isinstance(r, str) for r in responses):
        return tuple(responses), (), grouping
    lls = [_loglikelihood(r) for r in responses]
    if responses and all(ll is not None for ll in lls):
        return (), tuple(ll for ll in lls if ll is not None), grouping
    rolling = [_number(r) for r in responses]
    if responses and all(n is not None for n in rolling):
        return (), tuple((n, None) for n in rolling if n is not None), grouping
    raise ResponseFormatError(
        f"{where}: lm-eval {field} holds neither generations nor (loglikelihood, is_greedy)"
    )


def _metrics(obj: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    names = obj.get("metrics")
    if isinstance(names, list) and all(isinstance(n, str) for n in names):
        # Each name once: a list naming a metric twice would count every doc twice.
        keys = [n for n in dict.fromkeys(names) if n in obj]
    else:
        keys = [k for k in obj if k not in KNOWN_FIELDS]
    return tuple(
        (k, obj[k])
        for k in keys
        if isinstance(obj[k], int | float | bool) and not isinstance(obj[k], str)
    )


def _unscored(
    obj: dict[str, Any], scored: set[str], group: str | None
) -> tuple[tuple[str, str | None, float], ...]:
    """Metrics the line's `metrics` list names whose value is no number (a corpus metric's
    `[refs, prediction]`, NaN), each with NaN in its place: `ScoreCollector` counts them, so
    that the gate never passes over a metric it could not test."""
    names = obj.get("metrics")
    if not isinstance(names, list):
        return ()
    return tuple(
        (name, group, math.nan)
        for name in dict.fromkeys(name for name in names if isinstance(name, str))
        if name in obj and name not in scored
    )


class LmEvalShape:
    """One line of lm-evaluation-harness ``samples_*.jsonl``."""

    name = "lm-eval"

    def claims(self, obj: dict[str, Any]) -> bool:
        return "doc_id" in obj and "resps" in obj

    def extract(self, obj: dict[str, Any], where: str, options: LoadOptions) -> list[Parts]:
        field = options.lm_eval_field
        generations, lls, grouping = read_outputs(obj.get(field), field, where)
        doc_id = canonical(obj["doc_id"]) if not isinstance(obj["doc_id"], str) else obj["doc_id"]
        filt = obj.get("filter")
        filt = filt if isinstance(filt, str) else None
        key = doc_id if filt in (None, "none") else f"{doc_id}/{filt}"
        prompt_hash = obj.get("prompt_hash")
        arguments = request_arguments(obj)
        context = first_context(obj)
        metrics = _metrics(obj)
        taken = {*KNOWN_FIELDS, *(name for name, _ in metrics)}
        parts = Parts(
            text=generations[0] if generations else "",
            prompt=context,
            other=without(obj, *taken),
            request_params=None,  # lm-eval compares its prompt itself: not-comparable, not exit 2
            lm_eval=LmEvalParts(
                doc_id=doc_id,
                filter=filt,
                field=field,
                generations=generations,
                loglikelihoods=lls,
                prompt_hash=prompt_hash if isinstance(prompt_hash, str) else None,
                arguments_digest=None if arguments is None else text_digest(canonical(arguments)),
                metrics=metrics,
                inputs=read_inputs(obj),
                grouping=grouping,
                context_hash=None if context is None else lm_eval_hash(context),
            ),
        )
        parts.client_key = (key, KEY_FIELD)
        group = None if filt in (None, "none") else filt
        scored = tuple(
            (name, group, number)
            for name, value in metrics
            if (number := score_number(value)) is not None
        )
        parts.scores = scored + _unscored(obj, {name for name, _, _ in scored}, group)
        return [parts]


@dataclass(frozen=True)
class LmEvalDiff:
    """How one doc and filter compares as lm-eval means it."""

    doc_id: str
    """The doc."""
    filter: str | None
    """The filter."""
    field: str
    """`resps` or `filtered_resps`: what was compared."""
    prompt_differs: bool
    """The prompts differ: the doc is not comparable."""
    generations: tuple[int, int]
    """How many generations each side holds (repeats)."""
    differing_generations: tuple[int, ...]
    """Indexes of the generations that differ (one beyond the shorter side counts)."""
    loglikelihood_deltas: tuple[tuple[int, float, float], ...]
    """(choice, base ll, patch ll) for each choice whose log-likelihood moved beyond the
    tolerance."""
    greedy_flips: tuple[tuple[int, bool | None, bool | None], ...]
    """(choice, base is_greedy, patch is_greedy) where they differ."""
    metric_changes: tuple[tuple[str, Any, Any], ...]
    """(metric, base value, patch value) for each metric that changed (a flip)."""
    inputs_differ: tuple[str, ...] = ()
    """The eval's inputs beside the prompt (`arguments`, `target`, `doc`) that differ: not
    comparable."""
    regrouped: tuple[tuple[int, ...], tuple[int, ...]] | None = None
    """(base, patch) responses per request of the compared field, where they differ; None
    otherwise."""

    @property
    def not_comparable(self) -> bool:
        """The two runs did not score the same task on this doc (its prompt or inputs differ)."""
        return self.prompt_differs or bool(self.inputs_differ)


def compare(base: LmEvalParts, patch: LmEvalParts, tolerance: float) -> LmEvalDiff:
    """Compare two samples of one doc and filter."""
    prompt_differs = lmevalinputs.prompt_differs(base, patch)
    inputs_differ = lmevalinputs.inputs_differ(base, patch, prompt_differs)
    regrouped = None
    if base.grouping is not None and patch.grouping is not None and base.grouping != patch.grouping:
        regrouped = (base.grouping, patch.grouping)
    longest = max(len(base.generations), len(patch.generations))
    differing = tuple(
        i
        for i in range(longest)
        if i >= len(base.generations)
        or i >= len(patch.generations)
        or base.generations[i] != patch.generations[i]
    )
    deltas, flips = [], []
    for choice in range(max(len(base.loglikelihoods), len(patch.loglikelihoods))):
        b = base.loglikelihoods[choice] if choice < len(base.loglikelihoods) else (math.nan, None)
        p = patch.loglikelihoods[choice] if choice < len(patch.loglikelihoods) else (math.nan, None)
        if not abs(b[0] - p[0]) <= tolerance:
            deltas.append((choice, b[0], p[0]))
        if b[1] != p[1]:
            flips.append((choice, b[1], p[1]))
    patch_metrics = dict(patch.metrics)
    changes = tuple(
        (name, value, patch_metrics[name])
        for name, value in base.metrics
        if name in patch_metrics and patch_metrics[name] != value
    )
    return LmEvalDiff(
        doc_id=base.doc_id,
        filter=base.filter,
        field=base.field,
        prompt_differs=prompt_differs,
        generations=(len(base.generations), len(patch.generations)),
        differing_generations=differing,
        loglikelihood_deltas=tuple(deltas),
        greedy_flips=tuple(flips),
        metric_changes=changes,
        inputs_differ=inputs_differ,
        regrouped=regrouped,
    )
