"""The values sampling works with: options, one request to send, one sample, the results."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from k3diff.exitcodes import ExitCode
from k3diff.sample.names import Endpoint as Endpoint  # defined there: the header reads it
from k3diff.sample.names import Mode
from k3diff.sample.served import ServedModels
from k3diff.sample.sidefields import FieldDifference


@dataclass(frozen=True)
class PromptRecord:
    """One request to sample, read from the prompts file."""

    key: str
    """The record key (pairs samples with `k3diff responses` records)."""
    body: dict[str, Any]
    """The request fields from the file (prompt or messages and any others)."""
    where: str
    """`file:line` of the record, for messages."""
    label: str | None = None
    """How the user names the record (client key, their `id`, else the prompt's start)."""


@dataclass(frozen=True)
class SampleOptions:
    """Everything one `k3diff sample` run is asked to do."""

    base: str
    """URL of the base server (scheme, host, port, optional path prefix)."""
    patch: str | None
    """URL of the patch server, or None to sample the base only."""
    prompts: Path
    """The prompts file."""
    out: Path
    """Directory that holds `samples.jsonl` (and `perf_metrics.jsonl`)."""
    repeats: int
    """Samples per record, side and mode."""
    modes: tuple[Mode, ...] = (Mode.SERIAL,)
    """Modes to run, in order; their samples stay apart."""
    concurrency: int = 8
    """C: requests in flight in concurrent and loaded modes."""
    endpoint: Endpoint | None = None
    """The route; None infers it from the prompts (messages: chat, else completions)."""
    stream: bool = False
    """Ask for server-sent events (with usage in the last chunk)."""
    params: dict[str, Any] = field(default_factory=dict)
    """Extra request fields (`--param`), overriding the prompts file's."""
    side_params: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Extra request fields of one side only (`--base-param`, `--patch-param`), over `params`."""
    headers: dict[str, str] = field(default_factory=dict)
    """Extra HTTP headers (`--header`) for the base and patch servers only; only their names
    are written to the log."""
    flush_headers: dict[str, str] = field(default_factory=dict)
    """HTTP headers for the flush URL only (`--flush-header`); names logged, values not."""
    proxy: str | None = None
    """`--proxy`: send every request through this proxy."""
    trust_env: bool = False
    """`--trust-env`: use the proxy the environment's proxy variables name."""
    ca_cert: Path | None = None
    """`--ca-cert`: extra trusted certificates (PEM) besides the system trust store."""
    resume: bool = False
    """Continue the run in `out`, taking only the samples it lacks."""
    adaptive: bool = False
    """Stop a record early once the evidence is decisive."""
    cache_salt: bool = False
    """Send a fresh `cache_salt` with every request (defeats prefix caches)."""
    flush_url: str | None = None
    """POSTed before every request (or batch) to flush the server's caches."""
    timeout: float = 120.0
    """Seconds allowed for one request, its retries and the waits between them included."""
    max_response_bytes: int = 64 << 20
    """Largest answer read (streamed or not, after decoding); a larger one fails the sample."""
    finish_reasons: tuple[str, ...] = ()
    """`--finish-reason`: finish reasons (normalised, sorted) that end a request besides
    `k3diff.sample.finish.FINISHED`; recorded in the header when any."""
    retries: int = 3
    """Retries after the first attempt for connection errors, timeouts, 429 and 5xx."""
    backoff: float = 0.5
    """First backoff delay in seconds (doubled per retry, with full jitter)."""
    command: tuple[str, ...] = ()
    """The command line, recorded in the header."""
    control: str | None = None
    """`--control seeds|nonce`: before the modes, the first prompt `control_repeats` times per
    side at temperature 1 with distinct seeds (`nonce`: each with a random suffix too); None:
    no control."""
    control_repeats: int = 8
    """K: requests of the control per side."""
    levels: tuple[int, ...] = (1, 2, 4, 8)
    """`--levels`: the concurrency levels of `sweep` mode, in order."""
    metrics: bool = True
    """Read each server's `/metrics` (`k3diff.sample.metrics`): its running-requests gauge
    while batches are in flight, its prefix-cache counter around cold-warm requests
    (`--metrics-url off`: not at all)."""
    metrics_urls: dict[str, str] = field(default_factory=dict)
    """`--metrics-url SIDE=URL`: where a side's metrics are (default: its server's `/metrics`)."""
    left_out: frozenset[str] = frozenset()
    """The options of a `--resume` left at their default (`--repeats`, `--mode`,
    `--concurrency`, `--levels`, `--control`, `--control-repeats`, by their parameter names,
    click's parameter source): the logged run's are taken (`sample.resumeoptions`)."""


@dataclass(frozen=True)
class Outcome:
    """What one request (after its retries) produced."""

    status: int | None
    """HTTP status of the last attempt, None when no response arrived."""
    text: str | None
    """Generated text, None when the request failed."""
    text_xxh3: str | None
    """xxh3-128 of the text (`k3diff.responses.model.text_digest`)."""
    token_ids_xxh3: str | None
    """xxh3-128 of the generated token ids when the server returned them."""
    finish_reason: str | None
    usage: dict[str, Any] | None
    fingerprint: str | None
    """system_fingerprint."""
    error: str | None
    """None on success, else one line saying what went wrong."""
    attempts: int
    """Attempts made (1 + retries used)."""
    latency_s: float
    """Seconds of the last attempt."""
    started: float
    """Epoch seconds when the first attempt started."""
    connected: bool
    """False when no attempt ever reached the server."""
    trace: dict[str, Any] | None = None
    """Token ids, logprobs and margins when the server sent them (`k3diff.sample.trace`)."""
    spec_meta: dict[str, Any] | None = None
    """SGLang's `meta_info` speculation fields, as sent (`k3diff.sample.response`)."""
    spec_meta_invalid: str | None = None
    """Why a `meta_info` speculation field sent is no count (`k3diff.sample.specmeta`)."""
    model: str | None = None
    """The model the server said it answered as (`k3diff.sample.response.Answer.model`)."""
    stream_models: tuple[str, ...] | None = None
    """The models a stream's chunks named, where they disagree (`Answer.stream_models`)."""
    out_of_step: int = 0
    """Attempts answered before they were sent (`k3diff.sample.retry.OutOfStep`): refused, and
    the request sent again on a new connection."""


@dataclass(frozen=True)
class RecordStats:
    """Samples of one record on one side in one mode."""

    key: str
    """The record key (pairs with `k3diff responses` records)."""
    side: str
    mode: str
    n: int
    """Successful samples."""
    errors: int
    """Failed samples (in the log with their error)."""
    distinct: int
    """Distinct output texts (by xxh3-128)."""
    modal_share: float | None
    """Share of the most frequent output among successful samples; None when n is 0."""
    in_flight: int | None = None
    """The most requests of one batch proven in flight together at the server (its gauge; 1
    where streams never interleaved: `k3diff.sample.proof.batch_overlap`); None for serial
    samples or where no batch was decided."""
    one_at_a_time: int = 0
    """Batches not exercised: the server's gauge never read above 1, or, without a gauge
    reading, no two of its streams interleaved at the client."""
    server_running: int | None = None
    """The largest reading of the server's running-requests gauge in any batch (None: not
    exposed, or not read)."""
    server_one_at_a_time: int = 0
    """Of `one_at_a_time`, the batches the server's running-requests gauge decided at 1."""
    batches: int = 0
    """Batches that could show overlap (timed, two or more requests, or a loaded target)."""
    unproven: int = 0
    """Batches without a gauge reading, of whole answers or of streams that interleaved at the
    client: overlap neither proven nor refuted."""
    by_gauge: int = 0
    """Batches the server's running-requests gauge decided."""
    by_token_windows: int = 0
    """Batches their streams' token windows decided (not exercised)."""
    load_failed: int = 0
    """Of `unproven`, loaded targets whose background requests all failed while they were in
    flight (`k3diff.sample.load`)."""
    load_idle: int = 0
    """Of `unproven`, loaded targets while which no background request ended (`load_ended` 0):
    nothing shows the load overlapped them (`k3diff.sample.proof`)."""
    label: str | None = None
    """How the user names the record (see `PromptRecord.label`); None: the key names it."""

    @property
    def name(self) -> str:
        """The label, or the key when there is none."""
        return self.key if self.label is None else self.label


@dataclass(frozen=True)
class LoadSummary:
    """The background requests of loaded mode that ended while a target was in flight (the
    loaded samples' `load_ended`, `load_failed` and `load_error`, summed over the log)."""

    requests: int
    """Background requests that ended while a target was in flight."""
    failed: int
    """Of those, the ones that failed."""
    common_error: str | None
    """The most common error the loaded samples recorded; None when none failed."""


@dataclass(frozen=True)
class SampleResult:
    """The whole run, read back from the log at its end."""

    out: Path
    """The output directory."""
    records: tuple[RecordStats, ...]
    """Per record, side and mode, in prompt order."""
    planned: int
    """Samples the run meant to take (adaptive stops shrink it)."""
    taken: int
    """Samples in the log (successful or failed)."""
    failed: int
    """Samples that failed after their retries."""
    taken_now: int
    """Samples taken by this invocation (the rest came from a resumed log)."""
    torn_line_dropped: bool
    """A torn last line (from a killed run) was dropped on resume."""
    perf_metrics: int
    """`/perf_metrics` documents stored beside the samples."""
    proxy: dict[str, Any] | None = None
    """The proxy the requests went through (the log header's `proxy`), None when direct."""
    run_id: str | None = None
    """The run's identity, from the log header."""
    ignored_proxy_variables: tuple[str, ...] = ()
    """Proxy variables the environment set and the run ignored (no `--trust-env`)."""
    control: dict[str, tuple[int, int]] | None = None
    """Per side, the control's (successful samples, distinct outputs); None without one."""
    vacuous: tuple[str, ...] = ()
    """Sides whose control came back identical: the run could not have seen a difference."""
    metrics: dict[str, dict[str, Any]] | None = None
    """Per side, what its `/metrics` exposes (the log header's `metrics`), None when not read."""
    common_error: tuple[str, int] | None = None
    """The most common error of the failed samples and how many gave it; None when none
    failed."""
    sampled: tuple[str, ...] = ()
    """Sides whose request fields sample (temperature > 0, or top-p/top-k/min-p without one):
    triage judges their outputs by distribution, not by distinct outputs."""
    sampled_keys: tuple[str, ...] = ()
    """Records whose request fields sample on every side: triage tests them by distribution
    (`k3diff.triage.shift.sampled`); not in the JSON document, whose `sampled` names sides."""
    seeded: tuple[str, ...] = ()
    """Records whose requests sent an integer `seed` on every side: where each side repeated one
    output, triage judges the record as one draw, by its exact outputs
    (`k3diff.triage.shift.seeded_draws`)."""
    load: LoadSummary | None = None
    """The background load of loaded mode, read from the log; None without loaded mode."""
    out_of_step: dict[str, int] = field(default_factory=dict)
    """Per side, the answers that arrived before their request was sent (the server or a proxy
    answered a request more than once): each refused, its request sent again on a new
    connection (the log's `out_of_step`, summed)."""
    models: ServedModels | None = None
    """What the answers named as their model, per side (`k3diff.sample.served`)."""
    side_fields: tuple[FieldDifference, ...] = ()
    """Request fields the base was sent otherwise than the patch (`k3diff.sample.sidefields`)."""

    @property
    def unstable(self) -> int:
        """Record/side/mode triples with more than one distinct output."""
        return sum(1 for r in self.records if r.distinct > 1)

    @property
    def mixed_models(self) -> bool:
        """A side answered one record as several models: triage will refuse the log."""
        return self.models is not None and self.models.refused

    @property
    def ok(self) -> bool:
        """Every planned sample was taken, none failed, no side's control was vacuous, and no
        side answered one record as several models."""
        complete = self.failed == 0 and self.taken >= self.planned
        return complete and not self.vacuous and not self.mixed_models

    @property
    def exit_code(self) -> ExitCode:
        """0 when the run is `ok`, else 1 (failed samples are in the log; a vacuous control
        means the run could not have shown a difference; samples answered as several models
        are samples triage refuses)."""
        return ExitCode.OK if self.ok else ExitCode.FINDINGS


def most_common_error(errors: Iterable[str | None]) -> tuple[str, int] | None:
    """The most common of the failed samples' errors (None entries are successes) and how
    many gave it: the summary names it, so a run that failed every sample says why."""
    found = Counter(error for error in errors if error is not None).most_common(1)
    return found[0] if found else None
