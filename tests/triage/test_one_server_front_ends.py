"""The one-server check behind HTTP front ends (samples74).

- A front end that keeps its own connections to a server's workers, a pool per route (nginx's
  two `upstream` blocks with `keepalive` in front of one server), sends every reading of one
  route down the connection it kept, to one worker: before, the base's route stayed on a worker
  the patch's GETs never reached, and one server read `two-servers`, which triage passed
  (exit 0). Each reading is now `identity.TOGETHER` bodies read at once, which makes the front
  end open more connections, to the other workers: `unchecked`, never `two-servers`.
- Two servers whose base counts as many GETs of `/v1/models` from others as the check sent the
  patch (a busy base; here a front end mirroring the patch's traffic to the base) read
  `one-server` before, triage holding two servers as one (exit 1); one server now needs the
  base's counter to read the very values the patch's read: `unchecked`.
"""

from __future__ import annotations

import contextlib
import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff
from server_support import loopback_script, uvicorn_app, uvicorn_apps

from .helpers import compare_texts, sampled_identity

SAMPLE_TESTS = Path(__file__).resolve().parents[1] / "sample"
FRONT_END = SAMPLE_TESTS / "front_end.py"
RUNS = 6
"""Runs against one `uvicorn --workers 2` behind the front end, each with a front end of its own
(which worker each route keeps is the kernel's choice): 3 of 10 read `two-servers` before
samples74, 1 of 4 in stop 74's final CI on a loaded machine (review74e: 10 runs took 57 s).
Since oneserver75 no scheduling reads it so (the workers' start times tell; the worst, each
route on its own worker, is forced every run by the pinning front end below): 0 `two-servers`
in 60 probes on a loaded 2-core machine, 1 of which the old check would have read so."""


def _port(url: str) -> str:
    return url.rsplit(":", 1)[1]


def _sample(tmp_path: Path, base: str, patch: str, out: str) -> dict[str, Any]:
    """One run of `k3diff sample` (exit 0): its header's `server_identity`."""
    if not (tmp_path / "p.jsonl").exists():
        compare_texts(tmp_path, {"a": ("echo:a", "echo:a")})
        (tmp_path / "p.jsonl").write_text(json.dumps({"key": "a", "prompt": "a"}) + "\n")
    return sampled_identity(tmp_path, base, patch, out)


def _assert_said_unchecked(tmp_path: Path, out: str, identity: dict[str, Any]) -> None:
    """Triage passes the run (exit 0) and says one server at two addresses was not ruled out,
    and why."""
    assert identity["result"] == "unchecked", identity
    log = f"{out}/samples.jsonl"
    result = run_k3diff("triage", "cmp.json", log, "--format", "json", "-o", f"{out}.json", cwd=tmp_path)  # fmt: skip
    assert result.exit_code == 0, result.stdout
    document = json.loads((tmp_path / f"{out}.json").read_text())
    (said,) = [q for q in document["qualifications"] if "two addresses" in q]
    assert f"was not checked by the servers' counters: {identity['why'][:300]}" in said


@contextlib.contextmanager
def _front_end(*ports: str, mirror: str | None = None, pin: bool = False) -> Iterator[str]:
    """The front end to `ports` (its URL), stopped by pid."""
    flags = [arg for port in ports for arg in ("--to", port)]
    flags += ["--mirror", mirror] if mirror is not None else []
    flags += ["--pin"] if pin else []
    with loopback_script(FRONT_END, *flags) as url:
        yield url


def test_one_server_whose_workers_a_front_end_hands_out_in_turn_is_not_two_servers(
    tmp_path: Path,
) -> None:
    """Failed before samples74 (`two-servers`, triage exit 0): one server's two worker processes
    (two single-worker uvicorns, to which the front end hands its new connections in turn, as a
    server's kernel hands them to its workers), its base and patch two routes of the front end,
    each keeping the connection it opened first."""
    with (
        uvicorn_app("workers_app:app", SAMPLE_TESTS, workers=1) as one,
        uvicorn_app("workers_app:app", SAMPLE_TESTS, workers=1) as two,
        _front_end(_port(one), _port(two)) as front,
    ):
        identity = _sample(tmp_path, f"{front}/base", f"{front}/patch", "run")
    _assert_said_unchecked(tmp_path, "run", identity)


def test_one_server_of_two_workers_behind_a_keep_alive_front_end_is_never_two_servers(
    tmp_path: Path,
) -> None:
    """A real `uvicorn --workers 2` behind the front end, a new front end each run: before
    samples74, the routes' kept connections reached two workers in 3 of 10 runs
    (`two-servers`), and before oneserver75 still 1 of 4 in stop 74's final CI on a loaded
    machine (each side's readings at once all on one worker, the base's on the other). Now its
    workers' start times, 10 to 20 ms apart, read as one server's: never `two-servers`,
    whichever worker answers which side."""
    found: Counter[str] = Counter()
    with uvicorn_app("workers_app:app", SAMPLE_TESTS, workers=2) as server:
        for run in range(RUNS):
            with _front_end(_port(server)) as front:
                identity = _sample(tmp_path, f"{front}/base", f"{front}/patch", f"run{run}")
            found[identity["result"]] += 1
    assert found["two-servers"] == 0, found


def test_one_servers_workers_each_answering_one_side_only_are_unchecked_never_two_servers(
    tmp_path: Path,
) -> None:
    """Failed before oneserver75 (`two-servers`, triage exit 0 without a word): two worker
    processes started together (two single-worker uvicorns, as one server's workers) behind a
    front end that opens every connection of the base's route to one and of the patch's to the
    other, so that no reading at once reaches the other worker (the scheduling that made stop
    74's CI read one server as two). Two servers started within a second of each other read so
    too: `unchecked`, said by triage."""
    with (
        uvicorn_apps("workers_app:app", SAMPLE_TESTS, workers=1, servers=2) as (one, two),
        _front_end(_port(one), _port(two), pin=True) as front,
    ):
        identity = _sample(tmp_path, f"{front}/base", f"{front}/patch", "run")
    assert "did not count the 3 GETs" in identity["why"], identity
    assert "are not told apart from two servers started within 1 s" in identity["why"]
    _assert_said_unchecked(tmp_path, "run", identity)


def test_workers_whose_process_collector_has_a_namespace_are_unchecked_never_two_servers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Failed on the merge of oneserver75, bbb971b0 (`two-servers`, triage exit 0 without a
    word): the pinned pair above, each process's start time shown as prometheus_client's
    process collector writes it given a `namespace` (`llm_process_start_time_seconds`), which
    the check read as no start time."""
    monkeypatch.setenv("K3DIFF_TEST_PROCESS_NAMESPACE", "llm")
    with (
        uvicorn_apps("workers_app:app", SAMPLE_TESTS, workers=1, servers=2) as (one, two),
        _front_end(_port(one), _port(two), pin=True) as front,
    ):
        identity = _sample(tmp_path, f"{front}/base", f"{front}/patch", "run")
    assert "are not told apart from two servers started within 1 s" in identity["why"], identity
    _assert_said_unchecked(tmp_path, "run", identity)


def test_two_servers_whose_base_counts_the_patchs_traffic_too_are_not_one_server(
    tmp_path: Path,
) -> None:
    """Failed before samples74 (`one-server`: triage held two servers as one, exit 1): the
    patch behind a front end that mirrors its traffic to the base, whose counter so moves by
    the check's 3 GETs each round, from another value than the patch's."""
    with (
        uvicorn_app("workers_app:app", SAMPLE_TESTS, workers=1) as base,
        uvicorn_app("workers_app:app", SAMPLE_TESTS, workers=1) as patch,
        _front_end(_port(patch), mirror=_port(base)) as front,
    ):
        identity = _sample(tmp_path, base, f"{front}/patch", "run")
    assert "but read" in identity["why"] and "where the patch's read" in identity["why"]
    _assert_said_unchecked(tmp_path, "run", identity)


def test_one_engine_and_a_gateway_answering_its_own_metrics_in_front_of_it_is_not_two_servers(
    fault_server: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Failed before review74e (`two-servers`, triage exit 0 without a word): the base a vLLM-like
    server, the patch a gateway forwarding completions to it that answers `/v1/models` and
    `/metrics` itself, its counter its own and no engine's series in it: `unchecked`, said."""
    base = fault_server("--metrics", "vllm").url
    monkeypatch.setenv("K3DIFF_TEST_UPSTREAM", base)
    with uvicorn_app("own_metrics_gateway:app", SAMPLE_TESTS, workers=1) as gateway:
        identity = _sample(tmp_path, base, gateway, "run")
    assert "names no engine's series" in identity["why"], identity
    _assert_said_unchecked(tmp_path, "run", identity)
