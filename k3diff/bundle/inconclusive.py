"""Why a triage's inconclusive records are undecided, by cause: the bundle's follow-up row
names each cause with the records it covers (`k3diff.bundle.triagefacts`)."""

from __future__ import annotations

from collections.abc import Sequence

from k3diff.documents.triage import TriageDocument, TriageRecord
from k3diff.documents.triagerules import fields_unjudged, unanswered_records, unsampled_records
from k3diff.numbers import named
from k3diff.output import plural


def inconclusive_sentences(triage: TriageDocument, undecided: Sequence[TriageRecord]) -> list[str]:
    """Why the inconclusive records are undecided, by cause, each cause with the records it
    covers: more samples decide only the records that lacked samples (a differing record never
    sampled on a side is said as such), not a vacuous control (the run could not have seen a
    difference), batches the server never overlapped or that no gauge proved overlapped,
    samples that never reproduce the patch's capture, nor samples of another condition."""
    causes: dict[str, list[str]] = {}
    # By the records' numbers as well as the flag: a document written before the flag.
    never = {r.key for r in unsampled_records(triage.records)}
    unjudged = {r.key for r in fields_unjudged(triage.records)}
    silent = {r.key for r in unanswered_records(triage.records)}
    for record in undecided:
        if "unsampled" in record.flags or record.key in never:
            cause = (
                "never sampled on one side or both although their captures differ: the "
                "difference is unexplained, and samples of both sides would decide them"
            )
        elif "unanswered" in record.flags or record.key in silent:
            cause = (
                "a side answered none of their requests in a mode (unanswered: every one "
                "failed, or none is in the logs: removed, or a killed run's, which --resume "
                "takes), so that side proved nothing there; samples its server answers would "
                "decide them"
            )
        elif "unlogged" in record.flags:
            cause = (
                "a log lacks lines of them its run owed, or cannot show it holds them "
                "(unlogged: lines removed from it, a killed run's that --resume takes, or a "
                "log written before k3diff stated what its run owed), so their verdict would "
                "be read from the lines left; the log as sample wrote it would decide them"
            )
        elif "same-server" in record.flags:
            cause = (
                "base and patch were sampled from one server with the same parameters "
                "(same-server): the patch samples are that server's, so they clear nothing; "
                "samples of the patched build on a server of its own would decide them "
                "(--allow-same-server for an A/A calibration run)"
            )
        elif "doc-changed" in record.flags:
            cause = (
                "their document changed (doc-changed): the two runs did not score the same "
                "question, and no sample clears them; runs on the same dataset would"
            )
        elif "target-changed" in record.flags:
            cause = (
                "their gold target changed (target-changed): the two runs did not score the same "
                "answer as right, and no sample clears them; runs of the same task version would"
            )
        elif "arguments-changed" in record.flags:
            cause = (
                "their request arguments changed (arguments-changed): the two runs did not ask "
                "the same of the model (another continuation or generation setting), and no "
                "sample clears them; runs with the same task config and --gen_kwargs would"
            )
        elif "prompt-unknown" in record.flags:
            cause = (
                "their prompt is in one log only (prompt-unknown): the other holds neither the "
                "request arguments nor prompt_hash, so the prompts cannot be compared, and no "
                "sample clears them; logs that both hold their arguments would"
            )
        elif "arguments-unknown" in record.flags:
            cause = (
                "their request arguments are missing from one log or both (arguments-unknown): "
                "what the two runs asked of the model (continuations, generation settings) "
                "cannot be compared, and no sample clears them; logs that both hold their "
                "arguments would"
            )
        elif "not-comparable" in record.flags:
            cause = (
                "their captured prompts differ (not-comparable): the comparison compared "
                "nothing for them, and no sample clears them; captures of the same prompts would"
            )
        elif "fields-unjudged" in record.flags or record.key in unjudged:
            cause = (
                "their captured texts agree but other fields differ (fields-unjudged): triage "
                "judges texts, so no sample clears them; a comparison with --ignore-field for "
                "the fields that do not matter would"
            )
        elif "finish-reason-shift" in record.flags:
            cause = (
                "the patch ended its answers otherwise than the base (finish-reason-shift): "
                "the finish reason is output the texts compared do not hold, and no sample of "
                "the same patch clears it"
            )
        elif "token-ids-differ" in record.flags:
            cause = (
                "the patch gave a text as other token ids than the base, or their captures "
                "differ in token ids no sample logged (token-ids-differ): texts do not hold them"
            )
        elif "patch-errors" in record.flags:
            cause = (
                "the patch failed requests more often than the base (patch-errors): a failed "
                "request is a regression the texts compared do not show; a patch server that "
                "answers them would decide them"
            )
        elif "no-power" in record.flags and not more_of_no_use(record):
            shift = "--shift" if triage.shift is None else f"--shift {100 * triage.shift:.3g} %"
            cause = (
                "their requests sample and, at their n, the distribution test could not have "
                f"detected {shift} of the answers moved to one new answer, only a larger shift "
                "or none (no-power): more samples a side would decide them"
            )
        elif "novel-undecided" in record.flags and not more_of_no_use(record):
            cause = (
                "the patch gave an output the base never gave and no test could decide it at "
                "their n (novel-undecided): more samples a side would decide them"
            )
        elif triage.vacuous:
            cause = "the control was vacuous: a run whose control varies would decide them"
        elif "not-exercised" in record.flags:
            cause = (
                "the server never overlapped their batches: a run it batches (or serial "
                "samples) would decide them"
            )
        elif "unproven" in record.flags:
            cause = (
                "their batches are unproven: more samples would not decide them (the unproven "
                "records' qualification says what would)"
            )
        elif "samples-of-another-condition" in record.flags:
            cause = (
                "their samples are of another request condition than their capture "
                "(--allow-condition-mismatch), or their base's than their patch's, or were "
                "answered as another model: more samples of this run are of it too and would "
                "not decide them; samples of the captured condition would (triage's next: "
                "step names the sample options)"
            )
        elif "capture-unexplained" in record.flags:
            cause = (
                "the samples never reproduce the patch's captured output and the base never "
                "gave it (capture-unexplained), so they do not explain the difference the "
                "comparison found"
            )
        else:
            cause = "too few samples: more samples would decide them"
        causes.setdefault(cause, []).append(record.name)
    return [
        f"{plural(len(names), 'record')} inconclusive ({named(names)}): {cause}"
        for cause, names in causes.items()
    ]


HELD_WORDS = (
    ("unsampled", "never sampled on a side although the captures differ"),
    ("unsampled-lacking", "never sampled on a side, and one capture lacks the record"),
    ("unanswered", "a side answered none of the requests"),
    ("unlogged", "lines a log lacks, or cannot show it holds, of what its run owed"),
    ("same-server", "base and patch sampled from one server"),
    ("doc-changed", "the document changed"),
    ("target-changed", "the gold target changed"),
    ("arguments-changed", "the request arguments changed"),
    ("prompt-unknown", "the prompt is in one log only"),
    ("arguments-unknown", "the request arguments are missing from one log or both"),
    ("not-comparable", "the captured prompts differ"),
    ("fields-unjudged", "fields other than the text differ"),
    ("finish-reason-shift", "the patch ends its answers otherwise (finish reasons)"),
    ("token-ids-differ", "token ids that differ under one text"),
    ("patch-errors", "a patch that fails requests more often than the base"),
    ("no-power", "no power at {shift}"),
    ("novel-undecided", "a patch output the base never gave, undecided at this n"),
    ("not-exercised", "batches the server never overlapped"),
    ("unproven", "batches unproven"),
    ("samples-of-another-condition", "samples of another condition"),
    ("capture-unexplained", "a patch capture the samples do not explain"),
)
"""Each held flag as the headline words it, in `inconclusive_sentences`' order of causes."""
DECIDED_BY_MORE = frozenset({"no-power", "novel-undecided"})
"""Holds that more samples of the same run decide (each record's `more_samples`), unless the
record is held as well for what more of them cannot lift (`more_of_no_use`)."""
NOT_DECIDED_BY_MORE = frozenset({"not-exercised", "unproven", "samples-of-another-condition"})
"""Holds that more samples of the same run leave as they are: batches the server did not
overlap or no gauge proved, samples of another condition. Triage asks such a record for no
`more_samples` (null); one written before stop 80 may still give a samples-of-another-condition
record its mode's count, which is read and asks for nothing (`more_of_no_use`)."""


def more_of_no_use(record: TriageRecord) -> bool:
    """A record held for what more samples of its run cannot lift (`NOT_DECIDED_BY_MORE`): said by
    that cause, never "more samples would decide it" (newuser79: a concurrent mode at temperature
    1 on a server without a gauge, held no-power and unproven, read both "more samples a side
    would decide them" and "more samples would not decide them")."""
    return bool(NOT_DECIDED_BY_MORE & set(record.flags))


def held_sentence(triage: TriageDocument) -> str | None:
    """'1 record held: no power at --shift 35 % (q; 15 more samples a side would decide it)':
    why the records a triage holds fail, by cause, for the bottom line (None: none held)."""
    never = {r.key for r in unsampled_records(triage.records)}
    silent = {r.key for r in unanswered_records(triage.records)}
    causes: dict[str, list[TriageRecord]] = {}
    for record in triage.records:
        if record.category != "inconclusive":
            continue
        flags = set(record.flags) | ({"unsampled"} if record.key in never else set())
        flags |= {"unanswered"} if record.key in silent else set()
        if more_of_no_use(record):
            flags -= DECIDED_BY_MORE
        flag = next((flag for flag, _ in HELD_WORDS if flag in flags), None)
        if flag == "unsampled" and record.comparison_status in ("only-base", "only-patch"):
            flag = "unsampled-lacking"  # newuser68: nothing differs, a capture has none
        if flag is not None:
            causes.setdefault(flag, []).append(record)
    if not causes:
        return None
    shift = "--shift" if triage.shift is None else f"--shift {100 * triage.shift:.3g} %"
    parts = []
    for flag, words in HELD_WORDS:
        records = causes.get(flag, [])
        if not records:
            continue
        part = f"{words.format(shift=shift)} ({named([r.name for r in records])}"
        more = [r.more_samples for r in records if r.more_samples]
        if flag in DECIDED_BY_MORE and more:
            upto = "" if len(set(more)) == 1 else "up to "
            it = "it" if len(records) == 1 else "them"
            part += f"; {upto}{plural(max(more), 'more sample')} a side would decide {it}"
        parts.append(part + ")")
    total = sum(len(records) for records in causes.values())
    return f"{plural(total, 'record')} held: {'; '.join(parts)}"


def resample_sentence(triage: TriageDocument) -> str | None:
    """The bundle's step for records held for samples of another condition, as triage's
    `next:` line words it (`k3diff.report.triagesteps.resample_step`), without the run's
    options, which the document does not hold (None: none is held so)."""
    held = [
        r.name
        for r in triage.records
        if r.category == "inconclusive" and "samples-of-another-condition" in r.flags
    ]
    if not held:
        return None
    ask = "asks" if len(held) == 1 else "ask"
    return (
        f"{plural(len(held), 'record')} held for samples of another condition ({named(held)}) "
        f"{ask} for no more samples of this run, which are of that condition too: sample under "
        "the captured condition (each record's reason names what differs; triage's next: line "
        "gives the sample options), in a new --out, then run the triage with its samples.jsonl "
        "in place of this run's"
    )
