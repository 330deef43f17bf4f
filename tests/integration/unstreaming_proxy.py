"""A front end that drops `stream` from every request, run as its own process by the tests.

    python unstreaming_proxy.py --upstream http://127.0.0.1:PORT

prints its port on stdout once listening. Every request is forwarded to the upstream server with
`stream` and `stream_options` taken out of its JSON body, and the upstream's answer is passed
back as it came (status, Content-Type, body): in front of `transformers serve` it is a real
server that ignores `stream: true`, answering each stream request with one whole completion.
"""

from __future__ import annotations

import argparse
import http.client
import json
import sys
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        self._forward(None)

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        for name in ("stream", "stream_options"):
            body.pop(name, None)
        self._forward(json.dumps(body).encode())

    def _forward(self, data: bytes | None) -> None:
        upstream = urllib.parse.urlsplit(self.server.upstream)  # type: ignore[attr-defined]
        conn = http.client.HTTPConnection(upstream.hostname or "", upstream.port, timeout=300)
        headers = {"Content-Type": "application/json"} if data is not None else {}
        conn.request(self.command, self.path, body=data, headers=headers)
        answer = conn.getresponse()
        content = answer.read()
        conn.close()
        self.send_response(answer.status)
        self.send_header("Content-Type", answer.getheader("Content-Type") or "")
        self.send_header("Content-Length", str(len(content)))
        self.end_headers()
        self.wfile.write(content)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--upstream", required=True)
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.upstream = args.upstream  # type: ignore[attr-defined]
    print(server.server_address[1], flush=True)
    sys.stdout.close()
    server.serve_forever()


if __name__ == "__main__":
    main()
