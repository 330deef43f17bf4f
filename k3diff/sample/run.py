"""One `k3diff sample` run: read the prompts, open (or resume) the log, sample, summarise."""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from k3diff import __version__
from k3diff.filehash import file_sha256
from k3diff.sample.adaptive import Tally
from k3diff.sample.bodies import request_bodies, request_template
from k3diff.sample.client import SamplerClient
from k3diff.sample.credentials import redacted_run
from k3diff.sample.finish import FINISHED
from k3diff.sample.gaugeadvice import given_problem
from k3diff.sample.header import LOG_FORMAT
from k3diff.sample.identity import Identity, probe_identity, through_a_gateway, unchecked
from k3diff.sample.log import LOG_NAME, PerfLog, SampleLog
from k3diff.sample.metrics import (
    METRICS_MAX_BYTES,
    METRICS_TIMEOUT,
    TRTLLM_RUNNING,
    Fetch,
    SideMetrics,
    probe,
)
from k3diff.sample.model import (
    Endpoint,
    PromptRecord,
    SampleOptions,
    SampleResult,
)
from k3diff.sample.modes import SCHEDULERS, Plan, run_control
from k3diff.sample.names import Mode
from k3diff.sample.oneserver import (
    IDENTITY_FIELD,
    OneServer,
    connects_to,
    one_server,
    refuse_unheld_one_server,
)
from k3diff.sample.perfdrain import END, PERF_BATCH_FIELD, PERF_START_FIELD, start_line
from k3diff.sample.prompts import check_endpoint, infer_endpoint, read_prompts
from k3diff.sample.reader import SamplesLog
from k3diff.sample.resumed import Sent
from k3diff.sample.resumeoptions import resumed_options
from k3diff.sample.routing import Routing, resolve_routing
from k3diff.sample.sampler import Counts, SampleId, Sampler
from k3diff.sample.sidefields import FieldDifference, sides_differ, with_sent_fields
from k3diff.sample.stop import Kept
from k3diff.sample.stopline import now
from k3diff.sample.summary import side_fields, side_urls, summarise, sweep_extra

EXTRA_CONNECTIONS = 4


def run_sampling(
    options: SampleOptions,
    progress: Callable[[Counts], None] | None = None,
    differing: Callable[[tuple[FieldDifference, ...]], None] | None = None,
    same_server: Callable[[OneServer], None] | None = None,
) -> SampleResult:
    """Take every planned sample the log in `options.out` lacks; the run read back from the log.
    A stop (an error, Ctrl-C, SIGTERM) says what the log keeps (`Kept.stops`). `differing`
    hears, before any request, the fields the two sides will be sent differently (if any);
    `same_server`, the URLs where base and patch connect to one server with the same
    parameters (`k3diff.sample.oneserver`)."""
    kept = Kept()
    with kept.stops():
        # A resume's request options left out are the logged run's (samples74).
        options = resumed_options(options, options.out / LOG_NAME)
        records = read_prompts(options.prompts)
        endpoint = options.endpoint or infer_endpoint(records)
        check_endpoint(records, endpoint)
        found = side_fields(options, records)
        if differing is not None and found:
            differing(found)
        routing = resolve_routing(
            side_urls(options),
            proxy=options.proxy,
            trust_env=options.trust_env,
            server_headers=options.headers,
            flush_headers=options.flush_headers,
            ca_cert=options.ca_cert,
        )
        run = run_header(options, endpoint, routing, [record.key for record in records])
        run = with_sent_fields(run, found)  # what decides one server's A/B (sides74)
        heard = _Heard(progress, same_server)
        outcome = kept.run(_sample(options, endpoint, records, run, routing, heard, kept))
    skipped, taken_now, perf_count, resumed = outcome
    result = summarise(options, records, skipped, taken_now, resumed, perf_count)
    return dataclasses.replace(result, ignored_proxy_variables=routing.ignored_variables)


@dataclass(frozen=True)
class _Heard:
    """Who hears of the run as it goes: its progress, and one server as both sides."""

    progress: Callable[[Counts], None] | None
    same_server: Callable[[OneServer], None] | None

    def check_one_server(
        self, run: dict[str, Any], options: SampleOptions, resumed: SamplesLog | None
    ) -> None:
        """Tell `same_server` where base and patch are one server with the same parameters
        (by their addresses, or by their own counters: `server_identity`), and where a resume
        found it and the log had not (its marker records it: `sample.identityread`)."""
        one = None if sides_differ(run) else one_server(run)
        if self.same_server is None or one is None:
            return
        if resumed is not None and resumed.header.one_server is None:
            one = dataclasses.replace(
                one,
                where=f"{one.where}; found by this resume, not by the log's own check: its "
                "resume marker records it, and triage holds every sample of the log",
            )
        self.same_server(one)


def _open_log(
    options: SampleOptions, run: dict[str, Any], sent: Sent
) -> tuple[SampleLog, SamplesLog | None]:
    run = redacted_run(run)  # written, and compared by a resume, without any URL's user:password
    if options.resume and (options.out / "samples.jsonl").exists():

        def check(logged: SamplesLog) -> None:
            refuse_unheld_one_server(logged.path, logged.header.fields, run)
            sent.check(logged)

        return SampleLog.resume(options.out, run, now(), check)
    PerfLog.refuse_stale(options.out)
    return SampleLog.create(options.out, run), None


def run_header(
    options: SampleOptions,
    endpoint: Endpoint,
    routing: Routing | None = None,
    keys: list[str] | None = None,
) -> dict[str, Any]:
    """The `run` object of the log's header line (its `request_template` is added once the
    servers' default models are known); `keys`, the records asked, in the prompts' order."""
    run = _with_side_params(_run_fields(options, endpoint, routing or Routing()), options)
    if keys is not None:
        # Readers hold a record the run asked whose lines a side lacks (deleted, or a run
        # killed before them) rather than reading it as never asked (triage70). The whole list,
        # not a count and digest: 100,000 prompt-hash keys are 3.5 MB, parsed in 20 ms, beside
        # a log of at least 200,000 sample lines; and a digest could not name the record.
        # `log_format` with them (samples71): a header stating it and lacking `keys` was edited.
        run = {**run, "keys": keys, "log_format": LOG_FORMAT}
    if Mode.SWEEP in options.modes:
        run = {**run, "levels": list(options.levels)}
    if options.control is None:
        return run
    modes = [*run["modes"], Mode.CONTROL.value]
    return {
        **run,
        "modes": modes,
        "control": options.control,
        "control_repeats": options.control_repeats,
    }


def _run_fields(options: SampleOptions, endpoint: Endpoint, routing: Routing) -> dict[str, Any]:
    return {
        "run_id": uuid.uuid4().hex,
        "command": list(options.command),
        "servers": {"base": options.base, "patch": options.patch},
        # Where each side's URL connects, so that readers tell one server under two spellings
        # without resolving anything themselves (server71).
        "connects_to": connects_to(side_urls(options)),
        "modes": [m.value for m in options.modes],
        "endpoint": endpoint.value,
        "stream": options.stream,
        "params": options.params,
        "repeats": options.repeats,
        "concurrency": options.concurrency,
        "k3diff_version": __version__,
        "started": now(),
        "prompts": str(options.prompts),
        "prompts_sha256": file_sha256(options.prompts)[0],
        "header_names": sorted(name.lower() for name in options.headers),
        "flush_header_names": sorted(name.lower() for name in options.flush_headers),
        "proxy": routing.header_record(),
        "ca_cert": None if options.ca_cert is None else str(options.ca_cert),
        "cache_salt": options.cache_salt,
        "flush_url": options.flush_url,
        "adaptive": options.adaptive,
        "timeout": options.timeout,
        "retries": options.retries,
        "max_response_bytes": options.max_response_bytes,
        # telemetry reads a cold drain against the start-up drain this version writes; a log
        # without this field is one written before it (review69b: its line removed read so).
        PERF_START_FIELD: True,
        PERF_BATCH_FIELD: True,
    }


def _with_side_params(run: dict[str, Any], options: SampleOptions) -> dict[str, Any]:
    """The header with `finish_reasons` (`--finish-reason`) when any, and `side_params` (each
    side's own request fields) when a side has any; a run without them keeps the header it
    always had, so its logs still resume."""
    if options.finish_reasons:
        run = {**run, "finish_reasons": list(options.finish_reasons)}
    if not any(options.side_params.values()):
        return run
    sides = {side: options.side_params.get(side, {}) for side in side_urls(options)}
    return {**run, "side_params": sides}


async def _sample(
    options: SampleOptions,
    endpoint: Endpoint,
    records: list[PromptRecord],
    run: dict[str, Any],
    routing: Routing,
    heard: _Heard,
    kept: Kept,
) -> tuple[int, int, int, SamplesLog | None]:
    urls = side_urls(options)
    widest = max(options.concurrency, *options.levels) if Mode.SWEEP in options.modes else 0
    connections = 2 * max(options.concurrency, widest) * len(urls) + EXTRA_CONNECTIONS
    client = SamplerClient(
        connections,
        options.timeout,
        options.retries,
        options.backoff,
        routing,
        max_response_bytes=options.max_response_bytes,
        finished=FINISHED | set(options.finish_reasons),
    )
    try:
        models = {side: await client.probe(url, side) for side, url in urls.items()}
        run = {**run, "request_template": request_template(options, endpoint, models)}
        found = await _probe_metrics(options, client, urls)
        if found:
            run = {**run, "metrics": {side: m.header() for side, m in found.items()}}
        identity = await _identity(client, urls, found)
        run = {**run, IDENTITY_FIELD: identity.header()}
        bodies = request_bodies(options, records, models)
        log, resumed = _open_log(options, run, Sent(bodies, options.control))
        heard.check_one_server(run, options, resumed)
        kept.log = log
        kept.command = tuple(options.command)
        kept.name_sides({side: url + endpoint.path for side, url in urls.items()})
        done, tally = _from_log(resumed)
        total = len(records) * len(urls) * len(options.modes) * options.repeats
        total += len(urls) * options.control_repeats if options.control is not None else 0
        total += sweep_extra(options, len(records), len(urls))
        sampler = Sampler(
            client,
            log,
            {side: url + endpoint.path for side, url in urls.items()},
            bodies,
            options.stream,
            options.cache_salt,
            done,
            tally,
            total,
            heard.progress,
        )
        sampler.flush_url = options.flush_url
        sampler.watch_metrics(_fetch(client), found)
        await sampler.watch_spec()
        segment = 0 if resumed is None else len(resumed.resumed) + 1
        await _find_perf_metrics(sampler, client, urls, options.out, segment)
        plan = Plan(
            records,
            tuple(urls),
            options.repeats,
            options.concurrency,
            options.adaptive,
            options.levels,
        )
        skipped = 0
        try:
            if options.control is not None:
                await run_control(sampler, plan, options.control, options.control_repeats)
            for mode in options.modes:
                skipped += await SCHEDULERS[mode](sampler, plan)
            await _close_perf_metrics(sampler, client, segment)
        finally:
            await log.settle()  # `kept` writes its stop line after these, and closes the log
        perf = sampler.perf.count if sampler.perf is not None else 0
        return skipped, sampler.taken_now, perf, resumed
    finally:
        await client.aclose()


def _fetch(client: SamplerClient, fresh: bool = False) -> Fetch:
    """GETs of `/metrics` within the gauge's cap and timeout; `fresh`: each on a new
    connection."""

    async def fetch(url: str) -> tuple[int, bytes | None]:
        return await client.get_bytes(url, METRICS_MAX_BYTES, METRICS_TIMEOUT, fresh)

    return fetch


async def _probe_metrics(
    options: SampleOptions, client: SamplerClient, urls: dict[str, str]
) -> dict[str, SideMetrics]:
    """What each side's `/metrics` exposes (none read with `--metrics-url off`); a URL the
    user gave is marked `given`, and its 404 said as such (`gaugeadvice.GIVEN_URL_404`)."""
    if not options.metrics:
        return {}
    fetch = _fetch(client)
    found = {}
    for side, url in urls.items():
        given = options.metrics_urls.get(side)
        probed = await probe(fetch, given or f"{url}/metrics")
        found[side] = dataclasses.replace(
            probed, problem=given_problem(probed.problem, given is not None), given=bool(given)
        )
    return found


async def _identity(
    client: SamplerClient, urls: dict[str, str], found: dict[str, SideMetrics]
) -> Identity:
    """What the servers' own counters say of base and patch being one (`sample.identity`)."""
    if "patch" not in urls:
        return unchecked("the run sampled one side")
    patch_models = f"{urls['patch']}/v1/models"

    async def send_patch() -> None:
        await client.get_json(patch_models, fresh=True)

    if any(m.running == TRTLLM_RUNNING for m in found.values()):  # read again, it drains
        return unchecked("TensorRT-LLM's /metrics is JSON iteration stats, with no request counter")
    unread = [f"{side}: {m.problem}" for side, m in found.items() if m.problem and not m.known]
    if unread:  # not read again: a dead or slow /metrics costs the run its timeout once only
        return unchecked(f"a side's /metrics gives no reading ({'; '.join(unread)})")
    metrics = {side: m.url for side, m in found.items()}
    found_now = await probe_identity(_fetch(client, fresh=True), metrics, send_patch)
    return through_a_gateway(found_now, found)


async def _find_perf_metrics(
    sampler: Sampler,
    client: SamplerClient,
    urls: dict[str, str],
    out: Path,
    segment: int,
) -> None:
    """The sides whose server offers `/perf_metrics`; the probe drains it, and is written as
    the run's start-up drain (`segment`: the resume markers before this run), so `telemetry`
    can tell a resumed run that started from a drained server from one that may not have
    (telem68b)."""
    probed = {side: await client.get_json(f"{url}/perf_metrics") for side, url in urls.items()}
    sampler.perf_sides |= {side for side, (status, _) in probed.items() if status == 200}
    if sampler.perf_sides:
        sampler.perf = PerfLog(out)
        sampler.perf_roots = urls
        for side in sorted(sampler.perf_sides):
            sampler.perf.append(start_line(side, segment, *probed[side]))


async def _close_perf_metrics(sampler: Sampler, client: SamplerClient, segment: int) -> None:
    """The closing drain of a run that finished, on each server that offers `/perf_metrics`
    (telem70): the drain after its last request, whose count shows whether that request's
    record came late (`k3diff.sample.perfdrain`)."""
    if sampler.perf is None:
        return
    for side in sorted(sampler.perf_sides):
        status, metrics = await client.get_json(f"{sampler.perf_roots[side]}/perf_metrics")
        sampler.perf.append(start_line(side, segment, status, metrics, END))


def _from_log(resumed: SamplesLog | None) -> tuple[set[SampleId], Tally]:
    done: set[SampleId] = set()
    tally = Tally()
    for sample in resumed.samples if resumed is not None else ():
        done.add(sample.ident)
        tally.add(sample.side, sample.key, sample.mode, sample.text_xxh3)
    return done, tally
