"""Fields besides the text that the comparison found differing: samples record texts, so none of
them clears a record whose captured answers differ there.

`k3diff responses` fails a record whose texts agree but whose other fields differ
(`fields-differ`), and one whose output besides its text differs: a chat answer's tool calls,
function call, refusal, audio or reasoning are output the model generated, which a sample's
text does not hold (`k3diff.sample.response` keeps the text, its token ids and its finish
reason). Where the texts differ too, the base's spread of texts excuses nothing of those fields
(review64: the patch's tool call went from get_weather to delete_all_files beside a text the
base also gave; triage said base-nondeterminism and report "Nothing in this evidence fails",
both exit 0).
"""

from __future__ import annotations

import re

from k3diff.responses.recordview import ResponsesRecord
from k3diff.responses.results import Status
from k3diff.triage.flags import Flag
from k3diff.triage.model import RecordVerdict
from k3diff.triage.rollup import held

FIELDS_SHOWN = 3
"""How many differing field paths a fields-unjudged reason names."""
UNSAMPLED_OUTPUTS = frozenset(
    {"tool_calls", "function_call", "refusal", "audio", "reasoning", "reasoning_content"}
)
"""A chat answer's output besides its text (`k3diff.responses.ignore.DECIDING_NAMES`' names of
it): no sample records it."""
_PART = re.compile(r"[^.\[\]]+")


def unsampled_outputs(paths: tuple[str, ...]) -> tuple[str, ...]:
    """The field paths (`choice.message.tool_calls[0].function.name`) that name output no
    sample records."""
    return tuple(p for p in paths if UNSAMPLED_OUTPUTS.intersection(_PART.findall(p)))


def hold_fields_differ(verdict: RecordVerdict, record: ResponsesRecord) -> RecordVerdict:
    """`verdict`, made inconclusive (flag fields-unjudged) when the comparison found the
    captured texts equal but other fields differing (`fields-differ`), or output besides the
    text differing whatever the text (`unsampled_outputs`): triage judges texts, so a patch whose
    tool calls, refusal or reasoning changed would pass unseen. It fails the run whatever
    `--fail-inconclusive` says; a regression candidate stays one."""
    if verdict.regression_candidate:
        return verdict
    outputs = unsampled_outputs(record.field_paths)
    if record.status == Status.FIELDS_DIFFER.value:
        paths, agree = record.field_paths, "the captured texts agree but "
    elif outputs:
        paths, agree = outputs, "besides the captured texts, "
    else:
        return verdict
    named = ", ".join(paths[:FIELDS_SHOWN]) or "fields"
    more = f" and {len(paths) - FIELDS_SHOWN} more" if len(paths) > FIELDS_SHOWN else ""
    ignore = " ".join(f"--ignore-field {path}" for path in paths[:FIELDS_SHOWN]) or "--ignore-field"
    advice = (
        f"compare again with `k3diff responses {ignore}` for fields that do not matter"
        if not outputs
        else "samples record texts only: judge these fields by reading both answers"
    )
    why = (
        f"fields-unjudged: {agree}{named}{more} differ (the comparison's "
        f"{record.status}); triage judges texts, so no sample clears it ({advice})"
    )
    return held(verdict, Flag.FIELDS_UNJUDGED, why, samples_decide=False)
