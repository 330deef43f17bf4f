"""left69: a `--metrics-url` the user gave that answered 404, or answered without a
running-requests gauge, is a URL to check, and the triage document records which sides
(`metrics_url_404`, `metrics_url_no_gauge`) so that `report`'s bundle words its advice on the
unproven records from it. Before, the triage document did not record a given URL's 404, so the
bundle told the reader to add the `--metrics-url` they had given; and a given URL that answered
HTTP 200 without the gauge read as a server without one: "no --metrics-url can help", in
`sample`'s summary, triage's reasons and the bundle. A triage document written before the
fields still reads, with the advice it always had.

Runs are real `k3diff sample` runs (concurrent, streamed) against loopback fault servers: the
streams interleave at the client, which proves no batch without the server's gauge."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff
from triage.helpers import compare_texts

from .support import flat, sample, write_prompts

FAULT = {"delay": 0.3, "chunk_delay": 0.05, "pieces": 6}
ADD_METRICS_URL = "adding --metrics-url URL"
NO_HELP = "expose no running-requests gauge"
GIVEN_404 = (
    "the --metrics-url given for the base and patch answered HTTP 404: check them (the default "
    "is the server's /metrics); --mode serial still checks batch-1 parity"
)
GIVEN_NO_GAUGE = (
    "the --metrics-url given for the base and patch answered without a running-requests gauge: "
    "check them (the default is the server's /metrics); --mode serial still checks batch-1 "
    "parity"
)


class _OtherMetrics(BaseHTTPRequestHandler):
    """Prometheus text of a process, none of the engines' running-requests gauges."""

    def do_GET(self) -> None:
        body = b"# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total 1.5\n"
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; version=0.0.4")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def other_metrics() -> Iterator[str]:
    """The URL of a loopback server answering every GET with `_OtherMetrics`'s text."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _OtherMetrics)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/metrics"
    finally:
        server.shutdown()
        server.server_close()


def _run(
    fault_server: Any, tmp_path: Path, urls: tuple[str, str] | None
) -> tuple[str, dict[str, Any]]:
    """`sample`'s summary on one line, and the triage document, of a concurrent streamed run
    against servers serving vLLM's /metrics, reading the --metrics-url `urls` (base, patch;
    a path of each server where None)."""
    base, patch = fault_server("--metrics", "vllm"), fault_server("--metrics", "vllm")
    given = urls or (f"{base.url}/metricz", f"{patch.url}/metricz")
    prompts = write_prompts(tmp_path / "p.jsonl", [{"key": "k0", "prompt": "p0", "fault": FAULT}])
    out = tmp_path / "out"
    result = sample(
        "--base", base.url, "--patch", patch.url, "--prompts", prompts, "--repeats", "4",
        "--mode", "concurrent", "--concurrency", "4", "--stream", "--out", out,
        "--metrics-url", f"base={given[0]}", "--metrics-url", f"patch={given[1]}",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    comparison = compare_texts(tmp_path, {"k0": ("echo:p0", "echo:p0")})
    triage = run_k3diff(
        "triage", comparison, out / "samples.jsonl", "--format", "json",
        "--output", tmp_path / "triage.json",
    )  # fmt: skip
    assert triage.exit_code == 1, triage.stderr
    doc: dict[str, Any] = json.loads((tmp_path / "triage.json").read_text())
    (record,) = doc["records"]
    assert record["category"] == "inconclusive" and "unproven" in record["flags"]
    return flat(result.stdout), doc


def _report(tmp_path: Path, doc: dict[str, Any], name: str) -> str:
    """REPORT.md of a bundle of the triage document `doc` alone, on one line."""
    (tmp_path / f"{name}.json").write_text(json.dumps(doc))
    result = run_k3diff("report", tmp_path / f"{name}.json", "--out", tmp_path / name)
    assert result.exit_code == 1, result.stderr
    return flat((tmp_path / name / "REPORT.md").read_text())


def test_the_bundle_says_to_check_a_given_metrics_url_that_answered_404(
    fault_server: Any, tmp_path: Path
) -> None:
    """Failed on base69: the bundle said to add --metrics-url (triage69 left it)."""
    _, doc = _run(fault_server, tmp_path, None)
    report = _report(tmp_path, doc, "bundle")
    assert GIVEN_404 in report
    assert ADD_METRICS_URL not in report and NO_HELP not in report
    assert (doc["gaugeless"], doc["metrics_url_404"], doc["metrics_url_no_gauge"]) == (
        [],
        ["base", "patch"],
        [],
    )

    # A document written before the fields does not say: the advice it always had.
    del doc["metrics_url_404"], doc["metrics_url_no_gauge"]
    older = _report(tmp_path, doc, "older")
    assert ADD_METRICS_URL in older and GIVEN_404 not in older


def test_a_given_metrics_url_that_answered_without_the_gauge_is_to_be_checked(
    fault_server: Any, tmp_path: Path, other_metrics: str
) -> None:
    """Failed on base69: sample, triage and the bundle said no --metrics-url can help."""
    said, doc = _run(fault_server, tmp_path, (other_metrics, other_metrics))
    assert GIVEN_NO_GAUGE in said and NO_HELP not in said
    header = json.loads((tmp_path / "out" / "samples.jsonl").read_text().splitlines()[0])
    probes = header["run"]["metrics"]
    assert [(p["running"], p["given"]) for p in probes.values()] == [(None, True)] * 2
    assert (doc["gaugeless"], doc["metrics_url_404"], doc["metrics_url_no_gauge"]) == (
        [],
        [],
        ["base", "patch"],
    )
    (record,) = doc["records"]
    assert GIVEN_NO_GAUGE.partition(";")[0] in record["reason"]
    assert NO_HELP not in record["reason"] and ADD_METRICS_URL not in record["reason"]
    report = _report(tmp_path, doc, "bundle")
    assert GIVEN_NO_GAUGE in report
    assert ADD_METRICS_URL not in report and NO_HELP not in report


def test_a_log_written_before_given_was_recorded_reads_as_the_servers_own(
    fault_server: Any, tmp_path: Path, other_metrics: str
) -> None:
    """A log header without `given` (written before left69) does not say the URL was given:
    its side reads as a server without a gauge, as before (wording only: the mode stays
    unproven and the run fails either way)."""
    _run(fault_server, tmp_path, (other_metrics, other_metrics))
    log = tmp_path / "out" / "samples.jsonl"
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    for probe in lines[0]["run"]["metrics"].values():
        del probe["given"]
    log.write_text("".join(json.dumps(line) + "\n" for line in lines))
    triage = run_k3diff("triage", tmp_path / "cmp.json", log, "--format", "json")
    assert triage.exit_code == 1, triage.stderr
    doc = json.loads(triage.stdout)
    assert (doc["gaugeless"], doc["metrics_url_no_gauge"]) == (["base", "patch"], [])
