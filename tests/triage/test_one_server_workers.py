"""One server of several worker processes is never read as two servers (samples73).

A server run as `uvicorn --workers 2` (a FastAPI app, gunicorn, a vLLM API server's workers
without Prometheus multiprocess mode) keeps one request counter per worker, and each connection
is served by one worker. Before, the one-server check read each side over a kept connection:
whenever the base's connection and the patch's landed on different workers, the base's counter
did not count the patch's GETs and the header said `two-servers` (4 to 14 of 20 probes of one
such server), so base and patch being one server passed triage (exit 0). Now every reading and
GET of the check is on a new connection, over 3 rounds: the worker counters are seen going down
between two readings of one side (`unchecked`, said by triage), or the base counts the patch's
GETs (`one-server`, held); never `two-servers`.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from cli_support import run_k3diff
from server_support import loopback_script, uvicorn_app

from k3diff.sample.identityprocess import STARTED_TOGETHER_S

from .helpers import compare_texts, sampled_identity

SAMPLE_TESTS = Path(__file__).resolve().parents[1] / "sample"
FORWARDER = SAMPLE_TESTS / "tcp_forwarder.py"
RUNS = 12
"""Runs of `k3diff sample` against the one server: before, 12 runs without a `two-servers`
came about once in 15 (at the best rate measured, 4 of 20 probes) or in 4,000 (at 50 %)."""


@contextlib.contextmanager
def _one_server(workers: int) -> Iterator[tuple[str, str]]:
    """The app under uvicorn of `workers` workers, and a TCP forwarder to it: its two URLs."""
    with contextlib.ExitStack() as stack:
        server = stack.enter_context(uvicorn_app("workers_app:app", SAMPLE_TESTS, workers))
        patch = stack.enter_context(loopback_script(FORWARDER, "--to", server.rsplit(":", 1)[1]))
        yield server, patch


def _assert_not_passed(tmp_path: Path, out: str, identity: dict[str, Any]) -> None:
    """Triage holds a run read as one server, and says of any other that one server at two
    addresses was not ruled out, and why."""
    log = f"{out}/samples.jsonl"
    result = run_k3diff("triage", "cmp.json", log, "--format", "json", "-o", f"{out}.json", cwd=tmp_path)  # fmt: skip
    document = json.loads((tmp_path / f"{out}.json").read_text())
    if identity["result"] == "one-server":
        assert result.exit_code == 1, result.stdout
        assert all("same-server" in r["flags"] for r in document["records"])
        return
    assert identity["result"] == "unchecked", identity
    assert result.exit_code == 0, result.stdout
    (said,) = [q for q in document["qualifications"] if "two addresses" in q]
    assert f"was not checked by the servers' counters: {identity['why'][:300]}" in said


def test_one_server_of_two_worker_processes_is_never_two_servers(tmp_path: Path) -> None:
    """Failed on main at fb4ef845 (`two-servers` in some of the 12 runs, each passed by triage,
    exit 0): base a real `uvicorn --workers 2` server, patch a TCP forwarder to it."""
    compare_texts(tmp_path, {"a": ("echo:a", "echo:a")})
    (tmp_path / "p.jsonl").write_text(json.dumps({"key": "a", "prompt": "a"}) + "\n")
    found: Counter[str] = Counter()
    whys = []
    with _one_server(workers=2) as (server, patch):
        for run in range(RUNS):
            identity = sampled_identity(tmp_path, server, patch, f"run{run}")
            found[identity["result"]] += 1
            whys.append(identity["why"])
            _assert_not_passed(tmp_path, f"run{run}", identity)
    assert found["two-servers"] == 0, (found, whys)
    # Mostly (92 % of 100 probes measured) a worker's counter read lower than another's:
    # "the patch's SERIES went from X to Y between two readings: several processes answer
    # there, ..."; not asserted, as a loaded machine may hand every connection to one worker.


def test_one_server_of_one_worker_is_still_one_server(tmp_path: Path) -> None:
    """The same app under `uvicorn --workers 1` through the forwarder: one server (held)."""
    compare_texts(tmp_path, {"a": ("echo:a", "echo:a")})
    (tmp_path / "p.jsonl").write_text(json.dumps({"key": "a", "prompt": "a"}) + "\n")
    with _one_server(workers=1) as (server, patch):
        identity = sampled_identity(tmp_path, server, patch, "run")
    assert identity["result"] == "one-server", identity
    assert identity["series"].startswith('http_requests_total{handler="/v1/models"')
    _assert_not_passed(tmp_path, "run", identity)


def test_two_single_process_servers_are_two_servers(tmp_path: Path) -> None:
    """Two servers of one worker each, the patch's started `STARTED_TOGETHER_S` after the
    base's was up (servers started together read `unchecked`: oneserver75): every round's base
    stayed put, `two-servers`, no note, triage passes (exit 0)."""
    compare_texts(tmp_path, {"a": ("echo:a", "echo:a")})
    (tmp_path / "p.jsonl").write_text(json.dumps({"key": "a", "prompt": "a"}) + "\n")
    with uvicorn_app("workers_app:app", SAMPLE_TESTS, workers=1) as base:
        time.sleep(STARTED_TOGETHER_S)
        with uvicorn_app("workers_app:app", SAMPLE_TESTS, workers=1) as patch:
            identity = sampled_identity(tmp_path, base, patch, "run")
    assert identity["result"] == "two-servers", identity
    result = run_k3diff("triage", "cmp.json", "run/samples.jsonl", cwd=tmp_path)
    assert result.exit_code == 0, result.stdout
    assert "two addresses" not in result.stdout
