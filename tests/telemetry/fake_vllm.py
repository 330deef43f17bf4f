"""A stand-in vLLM OpenAI server (newuser59's repro): `/v1/completions`, and `/metrics` from a real
`prometheus_client` registry with vLLM's speculative-decoding counters
(`vllm/v1/spec_decode/metrics.py`). Each request runs DRAFTS drafts of len(RATES) tokens; a
draft's token at position L is accepted with probability RATES[L-1] while every earlier one was.

    python fake_vllm.py RATES SEED [OPTION=N ...]    (RATES: comma-separated, e.g. 0.8,0.65)

Options: `preempt=N` adds N to `vllm:num_preemptions` per request (every server exposes the
counter); `restart=N` restarts the counters (all back to 0, as a new server process) after
the N-th request (inside its window); `restart_after_read=N` restarts them after the first
`/metrics` read that follows the N-th request (between two windows); `positions=N` exposes
the per-position counter for the first N positions only (0: no per-position counter); `hide=1` runs every
2nd request at a tenth of RATES and answers the `/metrics` read after it with HTTP 500 (a server
whose `/metrics` hides its bad windows; `hide=2`: that read lacks the speculation series); `v0=1` exposes vLLM V0's series instead (`vllm/engine/metrics.py`: draft,
accepted and emitted token counters and the acceptance-rate gauge, no drafts, no positions),
fed as V0 feeds them: the running totals since start added at every "log interval" (here
every request).

Binds 127.0.0.1 on a free port and prints the port first; stopped by pid (SIGTERM).
"""

from __future__ import annotations

import json
import random
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import prometheus_client as pc

DRAFTS = 30
"""Drafts per request."""
LABELS = ("meta-llama/Llama-3.1-8B-Instruct", "0")

rates = [float(x) for x in sys.argv[1].split(",")]
rng = random.Random(int(sys.argv[2]))
options = {k: int(v) for k, v in (arg.split("=") for arg in sys.argv[3:])}
names = ["model_name", "engine"]
SHOWN = options.get("positions", len(rates))
"""Positions the per-position counter exposes (`positions=N`; 0: no such counter)."""
lock = threading.Lock()
served = 0
fail_next_read = False
running_totals = [0, 0, 0]
"""V0: accepted, drafted, emitted tokens since the server started."""


class Metrics:
    """The counters of a freshly started server (`restart` makes new ones)."""

    def __init__(self) -> None:
        self.registry = pc.CollectorRegistry()
        registry = self.registry
        self.drafts = pc.Counter("vllm:spec_decode_num_drafts", "Drafts.", names, registry=registry)
        self.draft_tokens = pc.Counter(
            "vllm:spec_decode_num_draft_tokens", "Draft tokens.", names, registry=registry
        )
        self.accepted_tokens = pc.Counter(
            "vllm:spec_decode_num_accepted_tokens", "Accepted tokens.", names, registry=registry
        )
        self.emitted = pc.Counter(
            "vllm:spec_decode_num_emitted_tokens", "Emitted tokens.", names, registry=registry
        )
        self.rate = pc.Gauge(
            "vllm:spec_decode_draft_acceptance_rate", "Acceptance rate.", names, registry=registry
        )
        self.per_pos = pc.Counter(
            "vllm:spec_decode_num_accepted_tokens_per_pos",
            "Accepted tokens per draft position.",
            [*names, "position"],
            registry=registry,
        )
        self.preemptions = pc.Counter(
            "vllm:num_preemptions", "Cumulative number of preemption.", names, registry=registry
        )
        running = pc.Gauge("vllm:num_requests_running", "Running.", names, registry=registry)
        for metric in (
            self.drafts,
            self.draft_tokens,
            self.accepted_tokens,
            running,
            self.preemptions,
            self.emitted,
            self.rate,
        ):
            metric.labels(*LABELS)
        if options.get("v0"):
            for gone in (self.drafts, self.per_pos):
                registry.unregister(gone)
        else:
            registry.unregister(self.emitted)
            registry.unregister(self.rate)
            if not SHOWN:
                registry.unregister(self.per_pos)
            for position in range(SHOWN):
                self.per_pos.labels(*LABELS, str(position))
        running_totals[:] = [0, 0, 0]


metrics = [Metrics()]


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass

    def _send(self, body: bytes, kind: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        if self.path != "/metrics":
            self.send_response(404)
            self.end_headers()
            return
        global fail_next_read
        with lock:
            if fail_next_read and options.get("hide") == 1:  # the bad window is not read
                fail_next_read = False
                self.send_response(500)
                self.end_headers()
                return
            body = pc.generate_latest(metrics[0].registry)
            if fail_next_read:  # hide=2: the bad window's reading lacks the speculation series
                fail_next_read = False
                body = b"".join(
                    line + b"\n" for line in body.splitlines() if b"spec_decode" not in line
                )
            if served == options.get("restart_after_read"):  # after the window's closing read
                metrics[0] = Metrics()
                options["restart_after_read"] = -1
        self._send(body, "text/plain; version=0.0.4")

    def do_POST(self) -> None:
        global served, fail_next_read
        request = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        with lock:
            m = metrics[0]
            hidden = bool(options.get("hide")) and served % 2 == 1
            fail_next_read = fail_next_read or hidden
            for _ in range(DRAFTS):
                accepted = 0
                for chance in [r / 10 for r in rates] if hidden else rates:
                    if rng.random() >= chance:
                        break
                    accepted += 1
                running_totals[0] += accepted
                running_totals[1] += len(rates)
                running_totals[2] += accepted + 1
                if not options.get("v0"):
                    m.drafts.labels(*LABELS).inc()
                    m.draft_tokens.labels(*LABELS).inc(len(rates))
                    m.accepted_tokens.labels(*LABELS).inc(accepted)
                    for position in range(min(accepted, SHOWN)):
                        m.per_pos.labels(*LABELS, str(position)).inc()
            if options.get("v0"):  # V0's log interval: the running totals added (a sum of sums)
                m.accepted_tokens.labels(*LABELS).inc(running_totals[0])
                m.draft_tokens.labels(*LABELS).inc(running_totals[1])
                m.emitted.labels(*LABELS).inc(running_totals[2])
                m.rate.labels(*LABELS).set(running_totals[0] / running_totals[1])
            m.preemptions.labels(*LABELS).inc(options.get("preempt", 0))
            served += 1
            if served == options.get("restart"):
                metrics[0] = Metrics()
        answer = {
            "id": "cmpl-1",
            "object": "text_completion",
            "model": request.get("model", "m"),
            "choices": [{"index": 0, "text": " Paris.", "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7},
        }
        self._send(json.dumps(answer).encode(), "application/json")


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
