"""A hostile OpenAI-compatible server, run as its own process by the tests.

    python tests/sample/hostile_server.py

(from the repository root, or anywhere: `openai_stub` lives in scripts/, which it puts on the path)

prints its port on stdout once listening (it binds port 0). Each completion request's `hostile`
field chooses how it misbehaves:

    drip          headers, then one byte of the body every 2 s (a declared 1 MB body)
    huge          a 200 whose JSON body is `huge_bytes` long (default 1 GiB), no Content-Length
    huge_declared the same, with its Content-Length
    endless       an event stream of valid 1 KB chunks that never ends (no finish_reason, no
                  [DONE])
    endless_line  an event stream that sends one line without end
    retry_after   503 with `Retry-After: 999999`
    split         a stream whose first event's JSON spans two data: lines (answer "ab")
    padding       a valid answer padded with `huge_bytes` (default 63 MiB) of `{},` objects
    choices       a valid answer with 1,000,000 choices
    encoded       a 200 whose Content-Encoding is the request's `encoding` (its body is not
                  encoded: the client must refuse it before decoding)
    accept        an ordinary completion whose text is the request's Accept-Encoding header
    raw           a 200 whose body is the request's `body` (a string) as given, its Content-Type
                  the request's `ctype` (none when it has none)
    twice         two answers in one write, on a kept-alive connection: "ok", then "extra"
                  (each an event stream when the request streams)

Anything else (or no field) is an ordinary completion whose text is "ok".
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

# Run as a script, from anywhere: its shared parts live in scripts/ (the fixture also puts
# them on PYTHONPATH).
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

from openai_stub import JsonHandler, QuietServer, completion, models

CHUNK = 1 << 16


class Handler(JsonHandler):
    server_version = "hostile/1"

    def do_GET(self) -> None:
        self._json(200, models("hostile-model"))

    def do_POST(self) -> None:
        body = self.read_json()
        how = body.get("hostile")
        try:
            if how == "drip":
                self._drip()
            elif how in ("huge", "huge_declared"):
                self._huge(int(body.get("huge_bytes", 1 << 30)), how == "huge_declared")
            elif how == "endless":
                text = b"x" * 1000
                self._endless(b'data: {"choices": [{"index": 0, "text": "' + text + b'"}]}\n\n')
            elif how == "endless_line":
                self._endless(b"data: " + b"x" * CHUNK)
            elif how == "retry_after":
                self._json(503, {"error": "busy"}, {"Retry-After": "999999"})
            elif how == "split":
                self._split()
            elif how == "padding":
                self._padding(int(body.get("huge_bytes", 63 << 20)))
            elif how == "choices":
                self._choices(1_000_000)
            elif how == "encoded":
                self._json(200, completion(body, "ok"), {"Content-Encoding": body["encoding"]})
            elif how == "accept":
                self._json(200, completion(body, self.headers.get("Accept-Encoding", "")))
            elif how == "twice":
                self._twice(body)
            elif how == "raw":
                self._as_given(body["body"].encode(), body.get("ctype"))
            elif body.get("stream"):
                self._events(
                    [
                        b'data: {"choices": [{"index": 0, "text": "ok", "finish_reason": '
                        b'"stop"}]}\n\n',
                        b"data: [DONE]\n\n",
                    ]
                )
            else:
                self._json(200, completion(body, "ok"))
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _twice(self, body: dict[str, object]) -> None:
        answers = b""
        ctype = "text/event-stream" if body.get("stream") else "application/json"
        for text in ("ok", "extra"):
            data = json.dumps(completion(body, text)).encode()
            if body.get("stream"):
                data = b"data: " + data + b"\n\ndata: [DONE]\n\n"
            head = f"HTTP/1.1 200 OK\r\nContent-Type: {ctype}\r\nContent-Length: {len(data)}"
            answers += head.encode() + b"\r\n\r\n" + data
        self.wfile.write(answers)  # one write: the second arrives with the first
        self.wfile.flush()

    def _drip(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(1 << 20))
        self.end_headers()
        for _ in range(1 << 20):
            self.wfile.write(b" ")
            self.wfile.flush()
            time.sleep(2)

    def _huge(self, size: int, declared: bool) -> None:
        head = b'{"choices": [{"index": 0, "finish_reason": "stop", "text": "'
        tail = b'"}]}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        if declared:
            self.send_header("Content-Length", str(size))
        else:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(head)
        left = size - len(head) - len(tail)
        block = b"a" * CHUNK
        while left > 0:
            self.wfile.write(block[: min(left, CHUNK)])
            left -= CHUNK
        self.wfile.write(tail)

    def _padding(self, size: int) -> None:
        head = b'{"choices": [{"index": 0, "finish_reason": "stop", "text": "ok"}], "pad": ['
        count = max(1, (size - len(head)) // 3)
        self._raw_json(head + b"{}," * (count - 1) + b"{}]}")

    def _choices(self, count: int) -> None:
        choice = b'{"index": 0, "finish_reason": "stop", "text": "ok"}'
        self._raw_json(b'{"choices": [' + b",".join([choice] * count) + b"]}")

    def _as_given(self, data: bytes, ctype: str | None) -> None:
        self.send_response(200)
        if ctype is not None:
            self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _raw_json(self, data: bytes) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _endless(self, piece: bytes) -> None:
        self._stream_head()
        chunk = f"{len(piece):x}\r\n".encode() + piece + b"\r\n"
        while True:
            self.wfile.write(chunk)

    def _split(self) -> None:
        self._events(
            [
                b'data: {"id": "c1", "choices": [{"index": 0,\ndata: "text": "a"}]}\n\n',
                b'data: {"id": "c1", "choices": [{"index": 0, "text": "b", "finish_reason": '
                b'"stop"}]}\n\n',
                b"data: [DONE]\n\n",
            ]
        )

    def _events(self, events: list[bytes]) -> None:
        self._stream_head()
        for event in events:
            self.wfile.write(f"{len(event):x}\r\n".encode() + event + b"\r\n")
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _stream_head(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()


def main() -> None:
    server = QuietServer(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
