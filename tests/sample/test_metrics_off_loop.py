"""A large `/metrics` body is parsed off the event loop (alpha61): prometheus_client's parser
took about 2.7 s of CPU for a hostile 8 MiB body, on the loop every request of the run waits
on, so a server could skew the latencies and overlap windows `sample` records. Now each body
is parsed in a worker thread, and the cap is 2 MiB (a large data-parallel vLLM's body fits:
the fault server's `bulky` one is 1.5 MiB of histogram buckets beside the gauge)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import k3diff.sample.metrics as metrics
import k3diff.sample.spec as spec

from .support import read_samples
from .test_server_gauge import _concurrent


def test_a_bulky_metrics_body_is_read_and_parsed_off_the_event_loop(
    fault_server: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    threads: list[tuple[str, bool]] = []
    main = threading.main_thread()

    def watched(name: str, parse: Any) -> Any:
        def run(data: bytes) -> Any:
            threads.append((name, threading.current_thread() is main))
            return parse(data)

        return run

    monkeypatch.setattr(metrics, "parse_metrics", watched("gauge", metrics.parse_metrics))
    monkeypatch.setattr(spec, "parse_spec", watched("spec", spec.parse_spec))
    out, summary, _ = _concurrent(fault_server, tmp_path, "--metrics", "bulky")
    header, lines = read_samples(out)
    assert header["metrics"]["base"]["running"] == "vllm:num_requests_running"
    assert header["metrics"]["base"]["problem"] is None
    assert summary["verdict"]["exit_code"] == 0 and len(lines) == 8
    assert any(name == "gauge" for name, _ in threads), threads
    assert not any(on_main for _, on_main in threads), threads
