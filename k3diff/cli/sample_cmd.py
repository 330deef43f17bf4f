"""`k3diff sample`: send identical requests repeatedly to live servers and log every sample."""

from __future__ import annotations

from pathlib import Path

import click
from click.core import ParameterSource

from k3diff.cli.common import (
    EvidenceDir,
    FiniteFloatRange,
    InputPath,
    byte_count,
    input_cap_options,
    invoked_argv,
    output_options,
)
from k3diff.cli.progress import ProgressLine
from k3diff.cli.summaries import SUMMARIES
from k3diff.errors import UsageError
from k3diff.output import OutputFormat, emit, say, short_verdict
from k3diff.sample.model import Endpoint, SampleOptions
from k3diff.sample.names import SAMPLING_MODES, Mode
from k3diff.sample.options import (
    control_choice,
    parse_headers,
    parse_levels,
    parse_metrics_urls,
    parse_params,
    redacted_command,
    server_root,
)


@click.command("sample", short_help=SUMMARIES["sample"])
@click.option(
    "--base",
    required=True,
    metavar="URL",
    help="Base server (http://127.0.0.1:8000; a trailing /v1 is accepted).",
)
@click.option("--patch", metavar="URL", default=None, help="Patch server (optional).")
@click.option(
    "--prompts",
    required=True,
    type=InputPath(path_type=Path),
    help="JSONL of requests (prompt or messages, request fields, key), or a responses file.",
)
@click.option(
    "--repeats",
    type=click.IntRange(min=1),
    default=None,
    help="Samples per record, side and mode (required; with --resume, default: the log's).",
)
@click.option(
    "--mode",
    "modes",
    multiple=True,
    type=click.Choice(list(SAMPLING_MODES)),
    help="Repeatable; default serial. serial: one request in flight (the batch-1 oracle); "
    "concurrent: batches of --concurrency identical requests; loaded: the target while other "
    "prompts keep the server busy; cold-warm: a cold request, then warm ones (cache); sweep: "
    "batches of each of --levels; needle / mixed: the target at a random place in a batch of "
    "filler prompts (docs/sample.md).",
)
@click.option(
    "--control",
    type=click.Choice(["seeds", "nonce", "off"]),
    default=None,
    help="Before the modes, send the first prompt --control-repeats times per side at "
    "temperature 1 with distinct seeds (nonce: and a random suffix); all identical makes the "
    "run vacuous (exit 1). Default: seeds with cold-warm or sweep, else off.",
)
@click.option(
    "--levels",
    default="1,2,4,8",
    show_default=True,
    help="Concurrency levels of sweep mode (comma-separated, each >= 1).",
)
@click.option(
    "--control-repeats",
    type=click.IntRange(min=2),
    default=8,
    show_default=True,
    help="K: requests of the control per side.",
)
@click.option(
    "--concurrency",
    type=click.IntRange(min=1),
    default=8,
    show_default=True,
    help="C for concurrent and loaded modes.",
)
@click.option(
    "--endpoint",
    type=click.Choice([e.value for e in Endpoint]),
    default=None,
    help="Default: chat when the requests hold messages, else completions.",
)
@click.option(
    "--stream", is_flag=True, help="Request server-sent events (usage in the last chunk)."
)
@click.option(
    "--param",
    "params",
    multiple=True,
    metavar="KEY=VALUE",
    help="Extra request field; VALUE is JSON where it parses (repeatable).",
)
@click.option(
    "--base-param",
    "base_params",
    multiple=True,
    metavar="KEY=VALUE",
    help="Extra request field for the base only, over --param (repeatable): A/B two request "
    "settings, e.g. temperature=0 against top_k=1 on one server.",
)
@click.option(
    "--patch-param",
    "patch_params",
    multiple=True,
    metavar="KEY=VALUE",
    help="Extra request field for the patch only, over --param (repeatable).",
)
@click.option(
    "--header",
    "headers",
    multiple=True,
    metavar="K:V",
    help="HTTP header for the --base and --patch servers only (repeatable; values are not logged).",
)
@click.option(
    "--flush-header",
    "flush_headers",
    multiple=True,
    metavar="K:V",
    help="HTTP header for --flush-url only (repeatable; values are not logged).",
)
@click.option(
    "--proxy",
    metavar="URL",
    default=None,
    help="Send every request through this proxy (recorded in the log). Default: direct.",
)
@click.option(
    "--trust-env",
    is_flag=True,
    help="Use the proxy the environment names (http_proxy, ALL_PROXY, NO_PROXY, ...).",
)
@click.option(
    "--ca-cert",
    type=InputPath(dir_okay=False, path_type=Path),
    default=None,
    help="Trust these PEM certificates too (the system trust store, SSL_CERT_FILE and "
    "SSL_CERT_DIR always are).",
)
@click.option(
    "--out",
    required=True,
    type=EvidenceDir(file_okay=False, path_type=Path),
    help="Directory for samples.jsonl.",
)
@click.option(
    "--resume",
    is_flag=True,
    help="Continue the run in --out, taking only missing samples; a larger --repeats "
    "grows the run (every other option as logged; request options, --repeats, --mode, "
    "--concurrency, --levels and --control left out are taken from the log).",
)
@click.option("--adaptive", is_flag=True, help="Stop a record once the evidence is decisive.")
@click.option("--cache-salt", is_flag=True, help="Send a fresh cache_salt with every request.")
@click.option(
    "--flush-url",
    metavar="URL",
    default=None,
    help="POST this URL before every request (or batch).",
)
@click.option(
    "--metrics-url",
    "metrics_urls",
    multiple=True,
    metavar="SIDE=URL|off",
    help="Where a side's Prometheus metrics are (default: each server's /metrics; repeatable): "
    "its running-requests gauge is read while batches are in flight, its prefix-cache counter "
    "around cold-warm requests; only that gauge proves a concurrent or loaded batch was "
    "exercised (docs/evidence-conditions.md lists the gauges known). off: read no metrics.",
)
@click.option(
    "--timeout",
    type=FiniteFloatRange(min=0, min_open=True),
    default=120.0,
    show_default=True,
    help="Seconds per request, its retries and the waits between them included.",
)
@click.option(
    "--max-response-bytes",
    metavar="SIZE",
    default="64M",
    show_default=True,
    help="Largest answer read, streamed or not (K/M/G); a larger one fails the sample.",
)
@click.option(
    "--finish-reason",
    "finish_reasons",
    multiple=True,
    metavar="NAME",
    help="A finish reason that ends a request on your server besides stop, length, tool_calls, "
    "function_call, content_filter, eos, eos_token and stop_sequence (Mistral's model_length; "
    "repeatable; recorded in the log's header). An answer whose finish reason is none of them "
    "fails its sample; a reason that gives the request up (abort, cancelled, ...) cannot be "
    "added.",
)
@click.option(
    "--retries",
    type=click.IntRange(min=0),
    default=3,
    show_default=True,
    help="Retries for connection errors, timeouts, 429 and 5xx.",
)
@output_options
@input_cap_options
def sample(
    base: str,
    patch: str | None,
    prompts: Path,
    repeats: int | None,
    modes: tuple[str, ...],
    control: str | None,
    control_repeats: int,
    levels: str,
    concurrency: int,
    endpoint: str | None,
    stream: bool,
    params: tuple[str, ...],
    base_params: tuple[str, ...],
    patch_params: tuple[str, ...],
    headers: tuple[str, ...],
    flush_headers: tuple[str, ...],
    proxy: str | None,
    trust_env: bool,
    ca_cert: Path | None,
    out: Path,
    resume: bool,
    adaptive: bool,
    cache_salt: bool,
    flush_url: str | None,
    metrics_urls: tuple[str, ...],
    timeout: float,
    max_response_bytes: str,
    finish_reasons: tuple[str, ...],
    retries: int,
    output_format: str,
    output: Path | None,
) -> int:
    """Send each prompt's request REPEATS times per server and mode; log every sample.

    Every sample is appended to OUT/samples.jsonl and fsynced before it counts; --resume
    continues a killed run without losing or repeating one. Exit 0 when every planned sample
    was taken, 1 when any request failed after its retries (it is in the log), the control was
    vacuous or a side answered one record as several models (triage refuses those), 2 when a
    server cannot be reached or the input is unusable.

    \b
    Examples:
      k3diff sample --base http://127.0.0.1:8000 --patch http://127.0.0.1:8001 \\
          --prompts prompts.jsonl --repeats 5 --param temperature=0 --out samples/
      k3diff sample --base http://127.0.0.1:8000 --prompts base.jsonl --repeats 16 \\
          --mode serial --mode concurrent --concurrency 8 --stream --out samples/ --resume
      (only the server's running-requests gauge, read from its /metrics or --metrics-url,
      proves a concurrent batch was exercised; streams alone prove none)
      k3diff sample --base https://llm.corp:8443 --ca-cert corp-ca.pem \\
          --proxy http://proxy.corp:3128 --prompts p.jsonl --repeats 4 --out samples/
      k3diff sample --base http://127.0.0.1:8000 --patch http://127.0.0.1:8000 \\
          --prompts prompts.jsonl --repeats 8 --base-param temperature=0 \\
          --patch-param top_k=1 --out ab/
    """
    if patch_params and patch is None:
        raise UsageError("--patch-param needs --patch (the side it changes)")
    if repeats is None and not resume:
        raise UsageError("Missing option '--repeats' (only a --resume takes the log's)")
    options = SampleOptions(
        base=server_root(base),
        patch=None if patch is None else server_root(patch),
        prompts=prompts,
        out=out,
        repeats=repeats or 0,  # with --resume, the log's (`left_out`)
        modes=tuple(Mode(m) for m in dict.fromkeys(modes)) or (Mode.SERIAL,),
        concurrency=concurrency,
        control=control_choice(control, modes),
        levels=parse_levels(levels),
        control_repeats=control_repeats,
        endpoint=Endpoint(endpoint) if endpoint else None,
        stream=stream,
        params=parse_params(params),
        side_params={
            side: found
            for side, found in (
                ("base", parse_params(base_params, "--base-param")),
                ("patch", parse_params(patch_params, "--patch-param")),
            )
            if found
        },
        headers=parse_headers(headers),
        flush_headers=parse_headers(flush_headers, "--flush-header"),
        proxy=proxy,
        trust_env=trust_env,
        ca_cert=ca_cert,
        resume=resume,
        adaptive=adaptive,
        cache_salt=cache_salt,
        flush_url=flush_url,
        metrics="off" not in metrics_urls,
        metrics_urls=parse_metrics_urls(metrics_urls, patch is not None),
        timeout=timeout,
        max_response_bytes=byte_count(max_response_bytes),
        finish_reasons=_finish_reasons(finish_reasons),
        retries=retries,
        command=_recorded_command(),
        left_out=_left_out() if resume else frozenset(),
    )
    # Imported here: `--help` does not load the HTTP client and the renderers.
    from k3diff.report.sample import render
    from k3diff.report.sampleconditions import side_fields_note
    from k3diff.sample.oneserver import OneServer
    from k3diff.sample.run import run_sampling

    def same_server(found: OneServer) -> None:  # deliberate (an A/A run), or a typo
        urls = found.urls  # credentials hidden (`one_server`)
        say(
            f"k3diff: note: --base and --patch are the same server ({urls}, both "
            f"{found.where}): the run measures that server against itself, and triage holds "
            "it unless --allow-same-server"
        )

    progress = ProgressLine()
    try:
        result = run_sampling(
            options, progress, lambda found: say(side_fields_note(found)), same_server
        )
    finally:
        progress.close()
    if result.proxy is not None:
        say(
            f"k3diff: note: requests went through the proxy {result.proxy.get('url')} "
            f"({result.proxy.get('source')}); {out}/samples.jsonl records it"
        )
    if result.ignored_proxy_variables and result.proxy is None:
        say(
            f"k3diff: note: ignored {', '.join(result.ignored_proxy_variables)}: sample connects "
            "only to the URLs it is given (--trust-env or --proxy URL to use a proxy)"
        )
    if result.torn_line_dropped:
        say(f"k3diff: note: {out}/samples.jsonl: dropped a torn last line (a killed run)")
    # Where -o takes the summary (its last line, `result: ... (exit N)`), stdout says the short verdict.
    emit(render(result, OutputFormat(output_format)), output, short_verdict(result.exit_code))
    return int(result.exit_code)


def _recorded_command() -> tuple[str, ...]:
    """The command line for the log header (redacted); empty when it is unknown (the `sample`
    command invoked outside the `k3diff` group): never the host process's arguments."""
    argv = invoked_argv()
    return () if argv is None else redacted_command(argv)


RESUMED = ("repeats", "modes", "concurrency", "levels", "control", "control_repeats")
"""Options a `--resume` takes from the log where left at their default (`SampleOptions.left_out`)."""


def _left_out() -> frozenset[str]:
    context = click.get_current_context()
    sources = {name: context.get_parameter_source(name) for name in RESUMED}
    return frozenset(
        name for name, source in sources.items() if source in (None, ParameterSource.DEFAULT)
    )


def _finish_reasons(given: tuple[str, ...]) -> tuple[str, ...]:
    """`--finish-reason`: the reasons added to the known ones, normalised and sorted (UsageError,
    exit 2, for a blank one or one that gives a request up)."""
    from k3diff.sample.finish import FINISHED, finishing

    try:
        return tuple(sorted(finishing(given) - FINISHED))
    except ValueError as exc:
        raise UsageError(str(exc)) from exc
