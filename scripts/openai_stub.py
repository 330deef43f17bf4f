"""What every loopback OpenAI-compatible server of this project shares: the threaded server,
JSON answers, and completion/chat bodies as vLLM and SGLang shape them.

Used by scripts/scripted_server.py (the demo's engines) and tests/sample/fault_server.py (the
fault-injecting server of the `k3diff sample` tests).
"""

from __future__ import annotations

import json
import random
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class QuietServer(ThreadingHTTPServer):
    """A threaded loopback server that does not report clients hanging up."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # clients that hang up (a killed k3diff, cancelled load) are expected


class JsonHandler(BaseHTTPRequestHandler):
    """HTTP/1.1 keep-alive handler with JSON answers and no access log on stderr."""

    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def read_json(self) -> dict[str, Any]:
        """The request body as a JSON object ({} when empty)."""
        length = int(self.headers.get("content-length", "0"))
        body: dict[str, Any] = json.loads(self.rfile.read(length) or b"{}")
        return body

    def _json(self, status: int, obj: Any, headers: dict[str, str] | None = None) -> None:
        self._raw(status, json.dumps(obj).encode(), "application/json", headers)

    def _raw(
        self, status: int, data: bytes, ctype: str, headers: dict[str, str] | None = None
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()


def models(model_id: str) -> dict[str, Any]:
    """A `/v1/models` answer naming one model."""
    return {"object": "list", "data": [{"id": model_id, "object": "model"}]}


def usage(text: str) -> dict[str, int]:
    """Token usage with one token per character."""
    return {"prompt_tokens": 3, "completion_tokens": len(text), "total_tokens": 3 + len(text)}


def completion(body: dict[str, Any], text: str, fingerprint: str = "fp-test") -> dict[str, Any]:
    """The answer to `body` (a completions or chat request) whose generated text is `text`."""
    choice: dict[str, Any] = {"index": 0, "finish_reason": "stop"}
    if "messages" in body:
        choice["message"] = {"role": "assistant", "content": text}
    else:
        choice["text"] = text
    if body.get("return_token_ids"):
        choice["token_ids"] = [ord(c) for c in text[:8]]
    return {
        "id": f"cmpl-{random.getrandbits(32):x}",
        "object": "chat.completion" if "messages" in body else "text_completion",
        "model": body.get("model"),
        "system_fingerprint": fingerprint,
        "choices": [choice],
        "usage": usage(text),
    }


if __name__ == "__main__":
    import sys

    sys.stderr.write(
        "openai_stub.py is the library of the loopback servers, not a server: run "
        "scripts/scripted_server.py --help (the demo's engines)\n"
    )
    sys.exit(2)
