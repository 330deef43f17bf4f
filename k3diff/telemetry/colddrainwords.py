"""Why a cold-warm cold request's `/perf_metrics` drain cannot be read: the reasons
`k3diff.telemetry.colddrains` gives, each saying which proof is missing and, where a run
can give it, what to run instead (telem70)."""

from __future__ import annotations

MISSING = "no /perf_metrics drain after it in {name} (a run stopped before it, or the line removed)"
NO_START = (
    "no start-up /perf_metrics drain of that server for its run before its drain (line {line}) "
    "in {name}, which its run writes (the line removed or moved): what the drains before it "
    "took cannot be counted"
)
RESUMED = (
    "the first drain after a resume, which also holds what the server kept from before it "
    "(TensorRT-LLM's records name no request of the samples log); that resume wrote no "
    "start-up drain (k3diff before telem68b), which shows what the server kept: sample it again"
)
DUPLICATE = (
    "drained more than once under its label (lines {lines}): which drain holds its record "
    "cannot be told (sample drains a cold request once, on its own server)"
)
FAILED = (
    "its /perf_metrics drain failed (line {line}: {error}), so its record was left on the "
    "server for a later drain, among others"
)
AFTER_FAILED = (
    "its /perf_metrics drain follows a failed drain of that server (line {line}: {error}), "
    "whose records the server kept and this drain also holds"
)
NOT_ONE = (
    "its /perf_metrics drain (line {line}) holds {records} records where one request was "
    "sent since the drain before it (a request sent before it, or a run before a resume, "
    "finished since): which is its own cannot be told"
)
LATE = (
    "the next /perf_metrics drain of that server (line {line}) holds {records} where "
    "{sent} answered since its own drain{failed}: a record came after its request was answered "
    "(TensorRT-LLM's chat stream records a request after sending data: [DONE]), so the one "
    "record its own drain held may be an earlier request's"
)
SHORT = (
    "the drains of that server before it since its run's start-up drain (through line "
    "{line}) hold {records} where {answered} answered: a record that was not in its "
    "request's drain (it came late, or the server's cap dropped it) may be the one record "
    "its own drain held"
)
UNCHECKED = (
    "no /perf_metrics drain of that server after it that shows its record was not late "
    "({why}): the one record its own drain held may be an earlier request's"
)
UNNAMED = (
    "the drains of that server before it{since} hold the {mode} mode's records (from {first}), "
    "its {what}' among them, which no sample names: a record missing from them (late, or "
    "dropped past the server's cap) cannot be counted, so the one record its own drain held "
    "may be {one}; sample cold-warm before {mode} (--mode cold-warm --mode {mode}) or in a run "
    "of its own"
)
"""The loaded mode's background requests (telem70), the needle and mixed modes' fillers
(review70d: their records filled the count of a late one, exit 0)."""
EMPTY_UNNAMED = (
    "its /perf_metrics drain (line {line}) holds no record, and the next (line {next}) holds "
    "the {mode} mode's records, its {what}' among them, which no sample names: one of theirs "
    "may stand in for its own (dropped past the server's cap), so which is its own cannot be "
    "told; sample cold-warm with more than one repeat: the drain after its warm requests then "
    "counts it"
)
"""review70d: the one of least request_id read as its own was a loaded target's, exit 0."""
FAILED_UNCOUNTED = (
    "the drains of that server before it since its run's start-up drain (through line "
    "{line}) hold {records} where {answered} answered and {failed} failed (first: {first}): a "
    "failed request may have left a record or none, so whether one is owed to a later drain "
    "cannot be told, and the one record its own drain held may be that one"
)
FAILED_SINCE = " ({failed} more failed, each of which may have left a record or none)"
"""LATE's words where requests failed since the cold request's drain (telem70: counted as
SHORT counts them, a failed request holding either count to the side that flags)."""
STOPPED = (
    "; the run stopped after it: --resume it, and the resumed run's start-up drain shows that count"
)
EMPTY_STOPPED = (
    "; the run stopped after it, and a resumed run's start-up drain keeps a count only: "
    "sample it again"
)
LAST = (
    "; no closing drain of that server follows it (a run before telem70, which wrote none, or "
    "the line removed): sample it again"
)
RESAMPLE = (
    "; a server keeping more records than one drain takes (perf_metrics_max_requests) drops "
    "none, and requests sampled without --stream are recorded before their answers end"
)
EMPTY_UNCOUNTED = (
    "its /perf_metrics drain (line {line}) holds no record, and no start-up drain of its run "
    "before it counts what was owed (a log before telem68b): which later record is its own "
    "cannot be told; sample it again with this k3diff"
)
EMPTY = (
    "its /perf_metrics drain (line {line}) holds no record (TensorRT-LLM's chat stream records "
    "a request after sending data: [DONE]), and no drain after it holds it provably ({why})"
)
EMPTY_NEXT = (
    "its /perf_metrics drain (line {line}) holds no record, and the next (line {next}) holds "
    "{records} where {sent} answered since{failed}: not its own and theirs alone, so which is "
    "its own cannot be told"
)
EMPTY_NO_ID = (
    "its /perf_metrics drain (line {line}) holds no record, and the next (line {next}) holds "
    "its own among its requests' whose records name no distinct request_id (TensorRT-LLM's "
    "executor numbers requests as they are submitted; its is the least): which is its own "
    "cannot be told"
)
SURPLUS = (
    "the drains of that server before it since its run's start-up drain (through line "
    "{line}) hold {records} where {answered} answered{failed}: records no sample names "
    "(another client's requests, or one of the run before a resume that finished after its "
    "start-up drain) fill the count of any missing (late, or dropped past the server's cap), "
    "so the one record its own drain held may be one of theirs"
)
SHARED = (
    "base and patch were sampled from the same server ({url}): each /perf_metrics drain, "
    "labelled with one side, takes both sides' records (one that came late, in the other "
    "side's next drain), so no count of one side's drains proves which record is its own; "
    "sample each side on a server of its own"
)
