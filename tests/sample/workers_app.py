"""An OpenAI-style ASGI server of several worker processes, run by the tests under a real
uvicorn (`python -m uvicorn workers_app:app --workers 2`): one server whose worker processes
each count their own requests, as prometheus_client does outside its multiprocess mode (a
FastAPI app under `uvicorn --workers N`, a vLLM API server's workers, gunicorn).

It answers `GET /v1/models`, `POST /v1/completions` and `/v1/chat/completions` (the prompt
echoed, `echo:PROMPT`, whole and unstreamed) and `GET /metrics` (prometheus_client's exposition
of this worker's default registry), and counts every request but `/metrics` in
`http_requests_total{handler,method,status}` after answering it, as
prometheus-fastapi-instrumentator does. With `K3DIFF_TEST_PROCESS_NAMESPACE` set, its process
collector is prometheus_client's with that `namespace` (`NAMESPACE_process_start_time_seconds`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Awaitable, Callable
from typing import Any

from prometheus_client import PROCESS_COLLECTOR, REGISTRY, Counter, ProcessCollector, make_asgi_app

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]

REQUESTS = Counter("http_requests", "Requests answered", ["handler", "method", "status"])
METRICS = make_asgi_app()
if NAMESPACE := os.environ.get("K3DIFF_TEST_PROCESS_NAMESPACE"):
    REGISTRY.unregister(PROCESS_COLLECTOR)
    ProcessCollector(namespace=NAMESPACE)
MODEL = "m"


async def read_body(receive: Receive) -> bytes:
    """A request's whole body."""
    chunks = []
    while True:
        message = await receive()
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            return b"".join(chunks)


async def _json(send: Send, status: int, value: Any) -> None:
    body = json.dumps(value).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _answer(path: str, request: dict[str, Any]) -> dict[str, Any]:
    """The echo of a completion or chat request."""
    prompt = request.get("messages", request.get("prompt"))
    text = f"echo:{prompt if isinstance(prompt, str) else json.dumps(prompt)}"
    chat = path.endswith("/chat/completions")
    choice: dict[str, Any] = {"index": 0, "finish_reason": "stop"}
    if chat:
        choice["message"] = {"role": "assistant", "content": text}
    else:
        choice["text"] = text
    usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
    return {"id": "cmpl-1", "model": MODEL, "choices": [choice], "usage": usage}


async def _lifespan(receive: Receive, send: Send) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


async def app(scope: Scope, receive: Receive, send: Send) -> None:
    if scope["type"] == "lifespan":
        await _lifespan(receive, send)
        return
    path, method = scope["path"], scope["method"]
    if path == "/metrics":
        await METRICS(scope, receive, send)
        return
    if method == "GET" and path == "/v1/models":
        status = 200
        await _json(send, 200, {"object": "list", "data": [{"id": MODEL, "object": "model"}]})
    elif method == "POST" and path in ("/v1/completions", "/v1/chat/completions"):
        status = 200
        await _json(send, 200, _answer(path, json.loads(await read_body(receive))))
    else:
        status = 404
        await _json(send, 404, {"error": "not found"})
    REQUESTS.labels(handler=path, method=method, status=f"{status // 100}xx").inc()
