"""What a comparison record's own evidence says differs, whatever its status claims
(`ResponsesRecord.differs_in`).

`responses` calls a record a `match` only when nothing it compared differs (`diff._output_pair`,
`diff._lm_eval_status`): no side failed, the token ids are equal, no first divergence, the
logprobs within `--logprob-tol`, no field change, no lm-eval log-likelihood, greedy flag, metric
or grouping that moved. A `match` that lists any of them disagrees with itself, and the reader's
self-check refuses it (`doccheck`; hunt75: a tokens-differ, fields-differ, logprobs-differ or
failed record relabelled `match`, its counts and verdict edited to agree, passed `report` and
`triage` with exit 0, only its texts' digests were held to its status)."""

from __future__ import annotations

from k3diff.fields import Fields


def differs_in(fields: Fields) -> tuple[str, ...]:
    """What the record's own evidence shows differs, in words ('token ids', 'field changes');
    empty where nothing does."""
    found = [
        f"the {side} request failed"
        for side in ("base", "patch")
        if (answer := fields.optional_object(side)) is not None and answer.raw("error") is not None
    ]
    if fields.optional_boolean("token_match") is False or _digests_differ(fields):
        found.append("token ids")
    if fields.optional_object("divergence") is not None:
        found.append("a first divergence")
    logprobs = fields.optional_object("logprobs")
    if logprobs is not None and logprobs.optional_boolean("within_tolerance") is False:
        found.append("logprobs beyond the tolerance")
    if fields.raw("field_changes"):
        found.append("field changes")
    lm_eval = fields.optional_object("lm_eval")
    if lm_eval is not None:
        found += [
            words
            for key, words in _LM_EVAL
            if lm_eval.raw(key)  # a non-empty list, or the two groupings
        ]
    return tuple(found)


_LM_EVAL = (
    ("loglikelihood_deltas", "lm-eval log-likelihoods"),
    ("greedy_flips", "lm-eval greedy flags"),
    ("metric_changes", "lm-eval metrics"),
    ("resps_grouping", "lm-eval response grouping"),
)
"""The lm-eval comparison's lists (and grouping) that make a record with equal output differ."""


def _digests_differ(fields: Fields) -> bool:
    """Both sides' token-id digests are given and differ."""
    sides = (fields.optional_object(side) for side in ("base", "patch"))
    digests = [None if s is None else s.optional_string("token_ids_xxh3") for s in sides]
    return None not in digests and digests[0] != digests[1]
