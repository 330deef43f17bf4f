"""A fault-injecting OpenAI-compatible HTTP server, run as its own process by the tests.

    python tests/sample/fault_server.py --log REQUESTS.jsonl
        [--perf-metrics [--perf-cap N]] [--seed-concurrency-noise] [--seed-salt SALT]

(from the repository root, or anywhere: `openai_stub` lives in scripts/, which it puts on the path)

prints its port on stdout once listening (it binds port 0). Each request may carry a `fault`
object choosing the behaviour for its prompt:

    output   "det" (default: "echo:" + prompt), "rand" (differs every time), or "seeded"
             (a function of the request's seed; with --seed-concurrency-noise it also depends on
             how many requests are in flight, as on real batched servers; with --seed-salt
             SALT, of the salt too: a patched server whose seeded draw differs)
    delay    seconds to wait before answering
    status   with `times`: the first `times` requests for this prompt get this HTTP status
             (-1: always); `retry_after` adds a Retry-After header
    reset    the first N requests for this prompt get a TCP reset (a list: a cycle, [1, 1, 0])
    malformed  the first N requests get a 200 whose body is not JSON
    garbage  the first N requests (-1: all) get a 200 HTML page (no completion server)
    truncate the first N streamed requests are cut (reset) after the first chunk
    no_done  streams end without data: [DONE]
    cache    "prefix": usage reports cached prompt tokens (0 the first time a prompt is seen, all
             3 after), "zero": it reports 0 cached tokens every time
    spec     [accepted, drafted]: the request's /perf_metrics entry carries TensorRT-LLM's
             speculative_decoding counts
    perf_record  the request's /perf_metrics record as given (e.g. a disaggregated one)
    perf_records  {PROMPT: record}: the record of each prompt listed (before perf_record)
    perf_kv  [REUSED, MISSED]: the record reports these KV blocks when the request is warm
             (its prompt and cache_salt seen before, as `cache`), else [0, REUSED + MISSED]
    perf_fail  {PROMPT: N}: the /perf_metrics drain after the prompt's Nth request answers 503
             and keeps its records (TensorRT-LLM's drain that failed), once
    perf_late  {PROMPT: [N, ...]}: the record of the prompt's Nth request reaches /perf_metrics
             only when the server's next completion request arrives (TensorRT-LLM's chat
             stream records a request after sending `data: [DONE]`)
    perf_hold  {PROMPT: [N, ...]}: the prompt's Nth request is held, unanswered and unrecorded,
             until a request under a cache_salt arrives; its record then reaches
             /perf_metrics (before that request's) and it is answered (a loaded mode's
             background request still running when the mode ends, its client gone)
    perf_salted  {"cold": RECORD, "warm": RECORD, "cold_late": BOOL}: the record of a request
             under a cache_salt (cold-warm's), `cold` for the first under its salt (with
             cold_late, it reaches /perf_metrics only when the next completion arrives), `warm`
             for the others; a request without a salt keeps what the options above give
    vllm_spec    {drafts, draft_tokens, accepted_tokens, per_pos}: what the request adds to
             vLLM's speculative-decoding counters (`--metrics vllm-spec`)
    meta_info    the answer's SGLang `meta_info` as given; a stream carries it on each chunk's
             top level as the request's counts so far (its numbers 0 before the last chunk,
             which carries it whole)
    usage    the `usage` object to answer with instead of the real counts (any JSON)
    chunk_delay  seconds between a stream's chunks (answers in flight together overlap)
    pieces   how many chunks a streamed answer's text is cut into (default 2)
    unstreamed  a Content-Type: stream requests get one whole completion labelled so (stream ignored)
    model    the model the answer names (default: the request's, in a whole answer and in
             every stream chunk); a list: a stream's chunks name each in turn (a whole
             answer, the first)
    model_cycle  a list: the Nth request for this prompt names its ((N - 1) mod length)th model
             throughout (replicas behind one URL serving different checkpoints, in turn)
    output "cached": "echo:" + prompt the first time a (prompt, cache_salt) is seen, with
             " (warm)" after (a prefix cache whose hit changes the output); "batch" with
             `threshold` T: "solo" while fewer than T requests are in flight, else
             "batched:N" (output depending on the number in flight)
    The prefix cache ("cache", "cached") is keyed by prompt and cache_salt (by prompt alone with
    "ignore_salt": true, as a server that ignores cache_salt; never hit by a request that
    carries a cache_salt with "salt_misses": true, as a server whose salted prefix caching is
    broken).

`--perf-request-ids` numbers the requests as they arrive (1, 2, ...) and sets each record's
`request_id` to its request's number, as TensorRT-LLM's executor numbers requests as they are
submitted (`GenerationExecutor._get_next_client_id`); without it a record is stored as given.

`--serialise` handles one completion request at a time behind a lock (it never batches).

`--queue` is the server that looks concurrent from the client and is not: every streamed
request gets its headers and an empty first chunk at once, then waits behind one lock for its
turn to be generated (requests queued in the server, its running count never above 1), as
`transformers serve` without continuous batching does. `--queue-first-token` sends the answer's
first character in that first chunk (a prefill done together, the rest one at a time): the
client sees tokens arrive together, and only the server's gauge can say it queued them.

`--metrics KIND` serves `GET /metrics` (404 without it; scripts/fault_metrics.py): `vllm`,
`sglang`, `tgi` (Prometheus text: the engine's running-requests gauge, the requests being
generated now, plus vLLM's and SGLang's prefix-cache hit counters), `trtllm` (TensorRT-LLM's
JSON iteration stats), or hostile: `garbage` (not Prometheus text), `huge` (32 MiB), `slow` (no
answer for 60 s), `flaky` (vLLM's the first time, garbage after), `restarting` (vLLM's with
speculation counters back to zero at every 4th read), `wide` (vLLM's after a 100 KiB
line). A request whose fault has
`cache: "counter"` reports no cached tokens in its usage, but a warm one raises the
hit counter by 3 (`"counter_zero"`: it never rises).

`--faults '{"PROMPT": FAULT}'` gives this server a fault for a prompt, under the request's own
(two servers sent the same prompts, one failing: `{"b": {"status": 500, "times": -1}}`).

`--model NAME` names NAME as the model of every answer (and every stream chunk), whatever the
request named (a server restarted on another checkpoint); `--model-cycle A,B` names them in
turn, as `model_cycle` does, for every prompt; `--finish-reason R` answers every
non-streamed request with finish_reason R; `--tls-cert PEM`
(certificate chain and key in one file) serves HTTPS.

Every request is logged to --log as one JSON line with `start` and `end` (time.monotonic()):
`end` is taken before the last byte is sent, so a client that waits for the whole answer
before sending again always shows end < next start.
"""

from __future__ import annotations

import argparse
import json
import random
import socket
import ssl
import struct
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

# Run as a script, from anywhere: its shared parts live in scripts/ (the fixture also puts
# them on PYTHONPATH).
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

from fault_metrics import KINDS, metrics_text, trtllm_stats
from openai_stub import JsonHandler, QuietServer, completion, models, usage
from spec_counters import SpecCounters

STATE_LOCK = threading.Lock()
SEEN: Counter[str] = Counter()
IN_FLIGHT = [0]
PERF: list[dict[str, Any]] = []
PERF_FAIL = [0]
"""How many of the next /perf_metrics drains fail (`perf_fail`)."""
LATE: list[dict[str, Any]] = []
"""Records not yet on /perf_metrics (`perf_late`): added when the next completion arrives."""
HELD: list[dict[str, Any]] = []
"""Records of requests held (`perf_hold`): added when a request under a cache_salt arrives."""
RELEASED = threading.Event()
"""Set when a request under a cache_salt arrives: the held requests are answered."""
ARRIVED = [0]
"""Completion requests so far (`--perf-request-ids`)."""
PERF_CAP = [0]
"""`--perf-cap N`: /perf_metrics keeps the newest N records (TensorRT-LLM's
`perf_metrics_max_requests`, a deque of that length); 0: no cap."""
SERIAL_LOCK = threading.Lock()
CACHE_SEEN: Counter[str] = Counter()
CACHE_HITS = [0]
"""Cached prompt tokens so far (the prefix-cache hit counter of --metrics)."""
METRICS_READS = [0]
PROBE_READS = 26
"""Reads of `/metrics` before the first sample of a run of two servers: the gauge's probe, the
one-server check's (3 rounds of 2 readings of 4 bodies a side: `k3diff.sample.identity`) and
the speculation counters' (`--metrics restarting`)."""
SPEC = SpecCounters()
HANDLED: Counter[str] = Counter()
"""GETs answered per path (vLLM's `http_requests_total`; counted as the request arrives, where
vLLM counts it once answered: `sample` waits for the count either way)."""


def _record(*records: dict[str, Any]) -> None:
    """Add `records` to /perf_metrics, the oldest dropped past the cap (STATE_LOCK held)."""
    PERF.extend(records)
    if PERF_CAP[0]:
        del PERF[: max(0, len(PERF) - PERF_CAP[0])]


class Handler(JsonHandler):
    server_version = "fault/1"

    def do_GET(self) -> None:
        if self.path == "/v1/models":
            with STATE_LOCK:  # counted before it is answered: the next read shows it
                HANDLED[self.path] += 1
            time.sleep(self.server.models_delay)  # type: ignore[attr-defined]
            self._json(200, models("m"))
        elif self.path == "/metrics" and self.server.metrics:  # type: ignore[attr-defined]
            self._metrics(self.server.metrics)  # type: ignore[attr-defined]
        elif self.path == "/perf_metrics" and self.server.perf_metrics:  # type: ignore[attr-defined]
            with STATE_LOCK:
                failing = PERF_FAIL[0] > 0
                PERF_FAIL[0] = max(0, PERF_FAIL[0] - 1)
                drained = [] if failing else list(PERF)
                if not failing:
                    PERF.clear()
            if failing:
                self._json(503, {"error": "injected"})
            else:
                self._json(200, drained)
        else:
            self._json(404, {"error": "not found"})

    def _metrics(self, kind: str) -> None:
        with STATE_LOCK:
            running, hits = IN_FLIGHT[0], CACHE_HITS[0]
        if kind == "slow":
            time.sleep(60)
        if kind == "flaky":
            with STATE_LOCK:
                METRICS_READS[0] += 1
                first = METRICS_READS[0] == 1
            kind = "vllm" if first else "garbage"
        if kind == "restarting":  # reads 1-26 are the probes; then 2 reads a serial window
            with STATE_LOCK:
                METRICS_READS[0] += 1
                after = METRICS_READS[0] - PROBE_READS
                restart = after > 0 and after % 4 == 2
            if restart:
                SPEC.restart()
            kind = "vllm-spec"
        if kind == "trtllm":
            self._json(200, trtllm_stats(running))
            return
        with STATE_LOCK:
            handled = dict(HANDLED)
        self._raw(200, *metrics_text(kind, running, hits, SPEC, handled))

    def do_POST(self) -> None:
        start = time.monotonic()
        body = self.read_json()
        if self.path == "/flush":
            self._log(start, "flush", None, 200)
            self._json(200, {"ok": True})
            return
        prompt = json.dumps(body.get("messages", body.get("prompt")))
        # This server's fault for the prompt (`--faults`), the request's own over it.
        faults: dict[str, Any] = self.server.faults  # type: ignore[attr-defined]
        fault = {**faults.get(prompt, {}), **(body.get("fault") or {})}
        if self.server.serialise:  # type: ignore[attr-defined]
            with SERIAL_LOCK:
                self._completion(body, prompt, fault, start)
        elif self.server.queue and body.get("stream"):  # type: ignore[attr-defined]
            self._queued(body, prompt, fault, start)
        else:
            self._completion(body, prompt, fault, start)

    def _queued(
        self, body: dict[str, Any], prompt: str, fault: dict[str, Any], start: float
    ) -> None:
        """Headers and an empty first chunk at once, then the answer in turn behind the lock."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        text = f"echo:{json.loads(prompt)}"
        lead = text[:1] if self.server.queue == "first-token" else ""  # type: ignore[attr-defined]
        first = {"id": "cmpl-1", "choices": [{"index": 0, "text": lead, "finish_reason": None}]}
        self._chunk(f"data: {json.dumps(first)}\n\n")
        with SERIAL_LOCK:
            with STATE_LOCK:
                IN_FLIGHT[0] += 1
            try:
                time.sleep(float(fault.get("delay", 0)))
                last = {
                    "id": "cmpl-1",
                    "choices": [{"index": 0, "text": text[len(lead) :], "finish_reason": "stop"}],
                }
                self._chunk(f"data: {json.dumps(last)}\n\n")
                if (body.get("stream_options") or {}).get("include_usage"):
                    tail = {"id": "cmpl-1", "choices": [], "usage": usage(text)}
                    self._chunk(f"data: {json.dumps(tail)}\n\n")
                self._chunk("data: [DONE]\n\n")
            finally:
                with STATE_LOCK:
                    IN_FLIGHT[0] -= 1
        self._log(start, prompt, body, 200)
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _completion(
        self, body: dict[str, Any], prompt: str, fault: dict[str, Any], start: float
    ) -> None:
        with STATE_LOCK:
            _record(*LATE)
            LATE.clear()
            if body.get("cache_salt"):
                _record(*HELD)
                HELD.clear()
                RELEASED.set()
            SEEN[prompt] += 1
            nth = SEEN[prompt]
            ARRIVED[0] += 1
            number = ARRIVED[0]
            IN_FLIGHT[0] += 1
            in_flight = IN_FLIGHT[0]
            salt = "" if fault.get("ignore_salt") else str(body.get("cache_salt", ""))
            cache_key = prompt + "\x00" + salt
            CACHE_SEEN[cache_key] += 1
            warm = CACHE_SEEN[cache_key] > 1 and not (fault.get("salt_misses") and salt)
            fault = {**fault, "_warm": warm, "_number": number}
            if fault.get("cache") == "counter" and fault["_warm"]:
                CACHE_HITS[0] += 3
        try:
            time.sleep(float(fault.get("delay", 0)))
            self._answer(body, prompt, fault, nth, in_flight, start)
        finally:
            with STATE_LOCK:
                IN_FLIGHT[0] -= 1

    def _answer(
        self,
        body: dict[str, Any],
        prompt: str,
        fault: dict[str, Any],
        nth: int,
        in_flight: int,
        start: float,
    ) -> None:
        def hit(name: str) -> bool:
            times = fault.get(name, 0)
            cycle = times if isinstance(times, list) else [int(times) < 0 or nth <= int(times)]
            return bool(cycle[(nth - 1) % len(cycle)])

        cycle = fault.get("model_cycle") or self.server.model_cycle  # type: ignore[attr-defined]
        if cycle:
            fault = {**fault, "model": cycle[(nth - 1) % len(cycle)]}
        if hit("reset"):
            self._log(start, prompt, body, None)
            self._reset()
            return
        if "status" in fault and hit("times"):
            headers = {}
            if "retry_after" in fault:
                headers["Retry-After"] = str(fault["retry_after"])
            self._log(start, prompt, body, fault["status"])
            self._json(fault["status"], {"error": {"message": "injected"}}, headers)
            return
        if hit("malformed"):
            self._log(start, prompt, body, 200)
            self._raw(200, b'{"choices": [{"text": "cut', "application/json")
            return
        if hit("garbage"):
            self._log(start, prompt, body, 200)
            self._raw(200, b"<!DOCTYPE html><html>Sign in</html>\n", "text/html")
            return
        text = self._text(body, prompt, fault, in_flight)
        perf: dict[str, Any] = {"prompt": prompt, "in_flight": in_flight}
        spec = fault.get("spec") or self.server.spec  # type: ignore[attr-defined]
        if spec:
            accepted, drafted = spec
            perf["perf_metrics"] = {
                "speculative_decoding": {
                    "acceptance_rate": accepted / drafted if drafted else 0.0,
                    "total_accepted_draft_tokens": accepted,
                    "total_draft_tokens": drafted,
                }
            }
        if "perf_kv" in fault:
            reused, missed = fault["perf_kv"]
            blocks = [reused, missed] if fault["_warm"] else [0, reused + missed]
            kv = {"num_reused_blocks": blocks[0], "num_missed_blocks": blocks[1]}
            perf["perf_metrics"] = {**perf.get("perf_metrics", {}), "kv_cache_metrics": kv}
        if "perf_record" in fault:
            perf = fault["perf_record"]
        named = json.loads(prompt) if isinstance(json.loads(prompt), str) else prompt
        if named in fault.get("perf_records", {}):
            perf = fault["perf_records"][named]
        if fault.get("perf_fail", {}).get(named) == nth:
            with STATE_LOCK:
                PERF_FAIL[0] += 1
        if "vllm_spec" in fault:
            SPEC.add(fault["vllm_spec"])
        late = nth in fault.get("perf_late", {}).get(named, [])
        salted = fault.get("perf_salted")
        if salted and body.get("cache_salt"):
            perf = salted["warm" if fault["_warm"] else "cold"]
            late = late or (bool(salted.get("cold_late")) and not fault["_warm"])
        if self.server.perf_request_ids:  # type: ignore[attr-defined]
            perf = {**perf, "request_id": fault["_number"]}
        held = nth in fault.get("perf_hold", {}).get(named, [])
        with STATE_LOCK:
            if held:
                HELD.append(perf)
            elif late:
                LATE.append(perf)
            else:
                _record(perf)
        if held:
            RELEASED.wait(timeout=60)
        if body.get("stream") and not fault.get("unstreamed"):
            self._stream(body, text, fault, hit("truncate"), start, prompt)
        else:
            self._log(start, prompt, body, 200)
            answer = completion(body, text)
            named = fault.get("model", self.server.model)  # type: ignore[attr-defined]
            if named is not None:
                answer["model"] = named[0] if isinstance(named, list) else named
            if fault.get("cache") in ("prefix", "zero"):
                cached = 3 if fault["cache"] == "prefix" and fault["_warm"] else 0
                answer["usage"]["prompt_tokens_details"] = {"cached_tokens": cached}
            if "usage" in fault:
                answer["usage"] = fault["usage"]
            if "meta_info" in fault:
                answer["meta_info"] = fault["meta_info"]
            if self.server.finish_reason is not None:  # type: ignore[attr-defined]
                answer["choices"][0]["finish_reason"] = self.server.finish_reason  # type: ignore[attr-defined]
            ctype = fault.get("unstreamed") or "application/json"
            self._raw(200, json.dumps(answer).encode(), ctype)

    def _text(
        self, body: dict[str, Any], prompt: str, fault: dict[str, Any], in_flight: int
    ) -> str:
        kind = fault.get("output", "det")
        if kind == "rand":
            return f"rand:{random.getrandbits(64):016x}"
        if kind == "cached":
            return f"echo:{json.loads(prompt)}" + (" (warm)" if fault["_warm"] else "")
        if kind == "batch":
            return "solo" if in_flight < int(fault["threshold"]) else f"batched:{in_flight}"
        if kind == "seeded":
            seed = body.get("seed", 0)
            if self.server.seed_salt is not None:  # type: ignore[attr-defined]
                seed = (self.server.seed_salt, seed)  # type: ignore[attr-defined]
            if self.server.noise and in_flight > 1:  # type: ignore[attr-defined]
                seed = (seed, in_flight, random.getrandbits(8))
            return f"seeded:{random.Random(str(seed)).getrandbits(32):08x}"
        return f"echo:{json.loads(prompt)}"

    def _stream(
        self,
        body: dict[str, Any],
        text: str,
        fault: dict[str, Any],
        truncate: bool,
        start: float,
        prompt: str,
    ) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        chat = "messages" in body
        count = max(1, min(int(fault.get("pieces", 2)), len(text)))
        cuts = [len(text) * i // count for i in range(count + 1)]
        pieces = [text[cuts[i] : cuts[i + 1]] for i in range(count)]
        events: list[dict[str, Any]] = []
        for i, piece in enumerate(pieces):
            last = i == len(pieces) - 1
            choice: dict[str, Any] = {"index": 0, "finish_reason": "stop" if last else None}
            if chat:
                choice["delta"] = {"content": piece}
            else:
                choice["text"] = piece
            event: dict[str, Any] = {
                "id": "cmpl-1",
                "system_fingerprint": "fp-test",
                "choices": [choice],
            }
            if "meta_info" in fault:  # the counts so far: whole on the last chunk
                meta = fault["meta_info"]
                event["meta_info"] = meta if last else _so_far(meta)
            # Every chunk names the model, as real servers' do: the request's unless told.
            named = fault.get("model", self.server.model or body.get("model"))  # type: ignore[attr-defined]
            if named is not None:
                event["model"] = named[i % len(named)] if isinstance(named, list) else named
            events.append(event)
        if (body.get("stream_options") or {}).get("include_usage"):
            events.append({"id": "cmpl-1", "choices": [], "usage": usage(text)})
        lines = [f"data: {json.dumps(e)}\n\n" for e in events]
        if not fault.get("no_done"):
            lines.append("data: [DONE]\n\n")
        self._chunk(lines[0])
        if truncate:
            self._log(start, prompt, body, 200)
            self._reset()
            return
        for line in lines[1:]:
            time.sleep(float(fault.get("chunk_delay", 0)))
            self._chunk(line)
        self._log(start, prompt, body, 200)
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _chunk(self, text: str) -> None:
        data = text.encode()
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _reset(self) -> None:
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.connection.close()
        self.close_connection = True

    def _log(
        self, start: float, prompt: str, body: dict[str, Any] | None, status: int | None
    ) -> None:
        entry = {
            "path": self.path,
            "prompt": prompt,
            "start": start,
            "end": time.monotonic(),
            "status": status,
            "headers": {name.lower(): value for name, value in self.headers.items()},
        }
        if body is not None and "cache_salt" in body:
            entry["cache_salt"] = body["cache_salt"]
        line = json.dumps(entry) + "\n"
        with STATE_LOCK:
            self.server.log_file.write(line)  # type: ignore[attr-defined]
            self.server.log_file.flush()  # type: ignore[attr-defined]


def _so_far(meta: dict[str, Any]) -> dict[str, Any]:
    """`meta` before its request's first count: every number 0, lists left out."""
    return {
        name: 0 if isinstance(value, int | float) else value
        for name, value in meta.items()
        if not isinstance(value, list)
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--log", required=True)
    parser.add_argument("--bind", default="127.0.0.1", help="the address to listen on")
    parser.add_argument("--perf-metrics", action="store_true")
    parser.add_argument("--perf-cap", type=int, default=0)
    parser.add_argument("--perf-request-ids", action="store_true")
    parser.add_argument(
        "--spec",
        type=lambda v: [int(x) for x in v.split(",")],
        default=None,
        help="ACCEPTED,DRAFTED speculation counts in every request's /perf_metrics entry",
    )
    parser.add_argument("--seed-concurrency-noise", action="store_true")
    parser.add_argument("--seed-salt", default=None)
    parser.add_argument("--finish-reason", default=None)
    parser.add_argument("--model", default=None, help="the model every answer names")
    parser.add_argument(
        "--model-cycle",
        type=lambda v: v.split(","),
        default=None,
        help="A,B,...: the Nth request for a prompt names the ((N - 1) mod k)th (model_cycle)",
    )
    parser.add_argument("--serialise", action="store_true")
    parser.add_argument("--queue", action="store_true")
    parser.add_argument("--queue-first-token", action="store_true")
    parser.add_argument(
        "--metrics",
        choices=KINDS,
        default=None,
    )
    parser.add_argument("--tls-cert", default=None, help="PEM chain and key: serve HTTPS")
    parser.add_argument(
        "--models-delay", type=float, default=0.0, help="seconds GET /v1/models waits to answer"
    )
    parser.add_argument(
        "--faults",
        type=json.loads,
        default={},
        help='{"PROMPT": FAULT}: this server\'s fault for a prompt (a patch side that fails)',
    )
    args = parser.parse_args()
    server = QuietServer((args.bind, 0), Handler)
    if args.tls_cert:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.tls_cert)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    server.perf_metrics = args.perf_metrics  # type: ignore[attr-defined]
    PERF_CAP[0] = args.perf_cap
    server.perf_request_ids = args.perf_request_ids  # type: ignore[attr-defined]
    server.spec = args.spec  # type: ignore[attr-defined]
    server.noise = args.seed_concurrency_noise  # type: ignore[attr-defined]
    server.seed_salt = args.seed_salt  # type: ignore[attr-defined]
    server.finish_reason = args.finish_reason  # type: ignore[attr-defined]
    server.model = args.model  # type: ignore[attr-defined]
    server.models_delay = args.models_delay  # type: ignore[attr-defined]
    server.model_cycle = args.model_cycle  # type: ignore[attr-defined]
    server.serialise = args.serialise  # type: ignore[attr-defined]
    server.queue = (  # type: ignore[attr-defined]
        "first-token" if args.queue_first_token else "empty" if args.queue else None
    )
    server.metrics = args.metrics  # type: ignore[attr-defined]
    server.faults = {json.dumps(p): f for p, f in args.faults.items()}  # type: ignore[attr-defined]
    with open(args.log, "a", encoding="utf-8") as log_file:
        server.log_file = log_file  # type: ignore[attr-defined]
        sys.stdout.write(f"{server.server_address[1]}\n")
        sys.stdout.flush()
        server.serve_forever()


if __name__ == "__main__":
    main()
