"""A forwarding HTTP proxy stand-in, run as its own process by the tests.

    python proxy_server.py --log REQUESTS.jsonl

prints its port on stdout once listening. Every request it receives is logged (method, the
absolute URL a client sends a proxy, header names) and forwarded to that URL directly (no
environment proxy), so a client configured to use it still gets real answers.
"""

from __future__ import annotations

import argparse
import http.client
import json
import sys
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _forward(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length) if length else b""
        entry = {
            "method": self.command,
            "url": self.path,
            "headers": sorted(name.lower() for name in self.headers),
        }
        with LOCK:
            self.server.log_file.write(json.dumps(entry) + "\n")  # type: ignore[attr-defined]
            self.server.log_file.flush()  # type: ignore[attr-defined]
        target = urllib.parse.urlsplit(self.path)
        if target.scheme != "http" or not target.hostname:
            self.send_response(400)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        upstream = http.client.HTTPConnection(target.hostname, target.port or 80, timeout=30)
        path = target.path + (f"?{target.query}" if target.query else "")
        headers = {k: v for k, v in self.headers.items() if k.lower() != "proxy-connection"}
        upstream.request(self.command, path or "/", body=body, headers=headers)
        answer = upstream.getresponse()
        data = answer.read()
        self.send_response(answer.status)
        for name, value in answer.getheaders():
            if name.lower() not in ("transfer-encoding", "content-length", "connection"):
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        upstream.close()

    do_GET = _forward
    do_POST = _forward


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--log", required=True)
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    with open(args.log, "a", encoding="utf-8") as log_file:
        server.log_file = log_file  # type: ignore[attr-defined]
        sys.stdout.write(f"{server.server_address[1]}\n")
        sys.stdout.flush()
        server.serve_forever()


if __name__ == "__main__":
    main()
