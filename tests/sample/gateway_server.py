"""A serial engine behind a front end that reshapes its streams, run as its own process by the
tests: the servers that make a client's arrival clock lie about co-batching.

    python tests/sample/gateway_server.py --log ENGINE.jsonl
        --front pace|hold|burst [--tokens N] [--token-s G] [--pace-s P] [--hold-s H]
        [--held-tokens K] [--tick-s F]

(from the repository root, or anywhere: `openai_stub` lives in scripts/, which it puts on the path)

prints its port on stdout once listening (it binds port 0) and answers `GET /v1/models` and
`POST /v1/completions` (streamed or whole) with "t0 t1 ..." (N tokens). The **engine** generates
one request at a time: it holds `ENGINE_LOCK` for the whole generation (G seconds a token) and
logs each generation's `start` and `end` (time.monotonic()) to --log once it is done, so a test
can show that no two generations overlapped. The **front end** is what differs:

- `pace` — a token-rate-limited gateway: it takes the engine's whole answer, then trickles its
  chunks out one every P seconds. With P > G the next request is generated while the previous
  answer is still being paced out, so every two streams receive chunks while the other is open.
- `hold` — an HTTP layer that keeps a finished stream open: the engine's tokens go out as they
  are generated, except the last K (held back, as a stop-sequence check holds text back); the
  engine is released at once, and H seconds later the held tokens go out one chunk each, then
  the finishing chunk (no text), the usage chunk and `[DONE]`. K = 0: only the end is delayed.
- `burst` — a proxy that buffers and flushes in bursts: every F seconds after the first open
  stream arrived it flushes every open stream's buffered chunks, newest stream first (its own
  order, not the order the engine generated them), pausing 30 ms after each stream it wrote
  to; a stream whose generation is done ends after its last flush.

There is no `/metrics`: nothing but the streams speaks for the server.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from pathlib import Path
from typing import Any

# Run as a script, from anywhere: its shared parts live in scripts/ (the fixture also puts
# them on PYTHONPATH).
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

from openai_stub import JsonHandler, QuietServer, completion, models, usage

ENGINE_LOCK = threading.Lock()
LOG_LOCK = threading.Lock()
FLUSH_GAP_S = 0.03
"""The burst proxy's pause between two streams' flushes within one tick."""


class Engine:
    """The serial engine: one generation at a time, each logged when it is done."""

    def __init__(self, log_path: str, tokens: int, token_s: float) -> None:
        self._log_path = log_path
        self.tokens = tokens
        self._token_s = token_s

    def generate(self, emit: Any) -> None:
        """Generate the answer's tokens one by one under the lock, `emit(piece)` for each."""
        with ENGINE_LOCK:
            start = time.monotonic()
            for i in range(self.tokens):
                time.sleep(self._token_s)
                emit(f" t{i}" if i else f"t{i}")
            end = time.monotonic()
        with LOG_LOCK, open(self._log_path, "a", encoding="utf-8") as log:
            log.write(json.dumps({"start": start, "end": end}) + "\n")


class Burst:
    """The burst proxy's buffers: per open stream, the chunks not yet flushed, flushed together
    every tick by one thread."""

    def __init__(self, tick_s: float) -> None:
        self._tick_s = tick_s
        self._lock = threading.Lock()
        self._streams: list[Stream] = []
        self._ticking = False

    def open(self, stream: Stream) -> None:
        with self._lock:
            self._streams.append(stream)
            if not self._ticking:
                self._ticking = True
                threading.Thread(target=self._tick, daemon=True).start()

    def _tick(self) -> None:
        """Tick k comes k * F seconds after the first stream opened (not after the last pass)."""
        began = time.monotonic()
        tick = 0
        while True:
            tick += 1
            time.sleep(max(0.0, began + tick * self._tick_s - time.monotonic()))
            with self._lock:
                streams = list(reversed(self._streams))  # newest first
            for stream in streams:
                wrote, over = stream.flush()
                if over:
                    with self._lock:
                        self._streams.remove(stream)
                if wrote:
                    time.sleep(FLUSH_GAP_S)
            with self._lock:
                if not self._streams:
                    self._ticking = False
                    return


class Stream:
    """One streamed answer's buffered chunks (burst front end)."""

    def __init__(self, handler: Handler) -> None:
        self._handler = handler
        self._lock = threading.Lock()
        self._pending: list[str] = []
        self._generated = False
        self.finished = threading.Event()

    def add(self, event: str, last: bool = False) -> None:
        with self._lock:
            self._pending.append(event)
            self._generated = self._generated or last

    def flush(self) -> tuple[bool, bool]:
        """Write what is buffered: (anything written, the stream is over: it has been ended)."""
        with self._lock:
            pending, self._pending = self._pending, []
            over = self._generated
        if pending:
            self._handler.chunk("".join(pending))
        if over:
            self.finished.set()
        return bool(pending), over


class Handler(JsonHandler):
    server_version = "gateway/1"

    def do_GET(self) -> None:
        if self.path == "/v1/models":
            self._json(200, models("gateway-model"))
        else:
            self._json(404, {"error": "not found"})

    def do_POST(self) -> None:
        body = self.read_json()
        engine: Engine = self.server.engine  # type: ignore[attr-defined]
        if not body.get("stream"):
            pieces: list[str] = []
            engine.generate(pieces.append)
            self._json(200, completion(body, "".join(pieces)))
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        front = self.server.front  # type: ignore[attr-defined]
        text = getattr(self, f"_{front}")(engine)
        tail = _event({"id": "cmpl-1", "choices": [], "usage": usage(text)}) + "data: [DONE]\n\n"
        if front != "burst":
            self.chunk(tail)
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _pace(self, engine: Engine) -> str:
        pieces: list[str] = []
        engine.generate(pieces.append)
        for i, piece in enumerate(pieces):
            time.sleep(self.server.pace_s)  # type: ignore[attr-defined]
            self.chunk(_token(piece, i == len(pieces) - 1))
        return "".join(pieces)

    def _hold(self, engine: Engine) -> str:
        keep = engine.tokens - self.server.held_tokens  # type: ignore[attr-defined]
        sent: list[str] = []
        held: list[str] = []

        def live(piece: str) -> None:
            sent.append(piece)
            if len(sent) <= keep:
                self.chunk(_token(piece, False))
            else:
                held.append(piece)

        engine.generate(live)
        time.sleep(self.server.hold_s)  # type: ignore[attr-defined]
        for piece in held:
            self.chunk(_token(piece, False))
            time.sleep(0.01)
        self.chunk(_token("", True))
        return "".join(sent)

    def _burst(self, engine: Engine) -> str:
        stream = Stream(self)
        self.server.burst.open(stream)  # type: ignore[attr-defined]
        pieces: list[str] = []

        def buffered(piece: str) -> None:
            pieces.append(piece)
            stream.add(_token(piece, len(pieces) == engine.tokens))

        engine.generate(buffered)
        text = "".join(pieces)
        tail = _event({"id": "cmpl-1", "choices": [], "usage": usage(text)})
        stream.add(tail + "data: [DONE]\n\n", last=True)
        stream.finished.wait()
        return text

    def chunk(self, text: str) -> None:
        """One HTTP chunk of the stream."""
        data = text.encode()
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()


def _token(piece: str, last: bool) -> str:
    choice = {"index": 0, "text": piece, "finish_reason": "stop" if last else None}
    return _event({"id": "cmpl-1", "created": int(time.time()), "choices": [choice]})


def _event(obj: dict[str, Any]) -> str:
    return f"data: {json.dumps(obj)}\n\n"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--log", required=True)
    parser.add_argument("--front", choices=("pace", "hold", "burst"), required=True)
    parser.add_argument("--tokens", type=int, default=6)
    parser.add_argument("--token-s", type=float, default=0.02)
    parser.add_argument("--pace-s", type=float, default=0.1)
    parser.add_argument("--hold-s", type=float, default=0.3)
    parser.add_argument("--held-tokens", type=int, default=0)
    parser.add_argument("--tick-s", type=float, default=0.3)
    args = parser.parse_args()
    server = QuietServer(("127.0.0.1", 0), Handler)
    server.engine = Engine(args.log, args.tokens, args.token_s)  # type: ignore[attr-defined]
    server.front = args.front  # type: ignore[attr-defined]
    server.pace_s = args.pace_s  # type: ignore[attr-defined]
    server.hold_s = args.hold_s  # type: ignore[attr-defined]
    server.held_tokens = args.held_tokens  # type: ignore[attr-defined]
    server.burst = Burst(args.tick_s)  # type: ignore[attr-defined]
    sys.stdout.write(f"{server.server_address[1]}\n")
    sys.stdout.flush()
    server.serve_forever()


if __name__ == "__main__":
    main()
