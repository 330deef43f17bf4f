"""A replaying cache in front of a live server, run as its own process by the tests.

    python replay_proxy.py --upstream URL

prints its port once listening. The first completion request is forwarded to URL and its answer
kept; every later completion request, whatever it asks (another seed, another temperature,
another prompt), gets that first answer back. `GET` requests are forwarded. A run sampled
through it can never show a difference: what `k3diff sample --control` exists to catch.
"""

from __future__ import annotations

import argparse
import sys
import threading

import httpx

# Run as a script: its shared parts live in scripts/ (the fixture puts it on PYTHONPATH).
from openai_stub import JsonHandler, QuietServer

LOCK = threading.Lock()
FIRST: list[bytes] = []


class Handler(JsonHandler):
    def do_GET(self) -> None:
        answer = httpx.get(self.server.upstream + self.path)  # type: ignore[attr-defined]
        self._raw(answer.status_code, answer.content, "application/json")

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length", "0"))
        body = self.rfile.read(length)
        with LOCK:
            if not FIRST:
                answer = httpx.post(
                    self.server.upstream + self.path,  # type: ignore[attr-defined]
                    content=body,
                    headers={"content-type": "application/json"},
                )
                FIRST.append(answer.content)
            replay = FIRST[0]
        self._raw(200, replay, "application/json")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--upstream", required=True)
    args = parser.parse_args()
    server = QuietServer(("127.0.0.1", 0), Handler)
    server.upstream = args.upstream.rstrip("/")  # type: ignore[attr-defined]
    sys.stdout.write(f"{server.server_address[1]}\n")
    sys.stdout.flush()
    server.serve_forever()


if __name__ == "__main__":
    main()
