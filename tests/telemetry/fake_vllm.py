"""A stand-in vLLM OpenAI server (newuser59's repro): `/v1/completions`, and `/metrics` from a real
`prometheus_client` registry with vLLM's speculative-decoding counters
(`vllm/v1/spec_decode/metrics.py`). Each request runs DRAFTS drafts of len(RATES) tokens; a
draft's token at position L is accepted with probability RATES[L-1] while every earlier one was.

    python fake_vllm.py RATES SEED    (RATES: comma-separated, e.g. 0.8,0.65,0.5,0.35)

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
registry = pc.CollectorRegistry()
names = ["model_name", "engine"]
drafts = pc.Counter("vllm:spec_decode_num_drafts", "Drafts.", names, registry=registry)
draft_tokens = pc.Counter(
    "vllm:spec_decode_num_draft_tokens", "Draft tokens.", names, registry=registry
)
accepted_tokens = pc.Counter(
    "vllm:spec_decode_num_accepted_tokens", "Accepted tokens.", names, registry=registry
)
per_pos = pc.Counter(
    "vllm:spec_decode_num_accepted_tokens_per_pos",
    "Accepted tokens per draft position.",
    [*names, "position"],
    registry=registry,
)
running = pc.Gauge("vllm:num_requests_running", "Requests running.", names, registry=registry)
for counter in (drafts, draft_tokens, accepted_tokens, running):
    counter.labels(*LABELS)
for position in range(len(rates)):
    per_pos.labels(*LABELS, str(position))
lock = threading.Lock()


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
        self._send(pc.generate_latest(registry), "text/plain; version=0.0.4")

    def do_POST(self) -> None:
        request = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        with lock:
            for _ in range(DRAFTS):
                accepted = 0
                for rate in rates:
                    if rng.random() >= rate:
                        break
                    accepted += 1
                drafts.labels(*LABELS).inc()
                draft_tokens.labels(*LABELS).inc(len(rates))
                accepted_tokens.labels(*LABELS).inc(accepted)
                for position in range(accepted):
                    per_pos.labels(*LABELS, str(position)).inc()
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
