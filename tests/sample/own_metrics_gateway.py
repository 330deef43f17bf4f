"""An OpenAI-style gateway in front of one server, run by the tests under a real uvicorn
(`python -m uvicorn own_metrics_gateway:app`, `K3DIFF_TEST_UPSTREAM` the server's URL): it
forwards completions to that server and answers `GET /v1/models` and `GET /metrics` itself, the
latter with its own request counter and none of an engine's series (as LiteLLM's proxy or a
router that lists its backends' models answer them). Base and patch, the server and the
gateway, are one engine; no counter of the gateway's is the server's."""

from __future__ import annotations

import os
from typing import Any

import httpx
import workers_app  # type: ignore[import-not-found]  # uvicorn --app-dir tests/sample

_UPSTREAM = httpx.AsyncClient(base_url=os.environ.get("K3DIFF_TEST_UPSTREAM", ""), timeout=30)


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    path = scope.get("path", "")
    if scope["type"] != "http" or not path.endswith("/completions"):
        await workers_app.app(scope, receive, send)  # /v1/models, /metrics, lifespan: its own
        return
    body = await workers_app.read_body(receive)
    headers = {"content-type": "application/json"}
    answer = await _UPSTREAM.post(path, content=body, headers=headers)
    kept = [(b"content-type", answer.headers.get("content-type", "application/json").encode())]
    await send({"type": "http.response.start", "status": answer.status_code, "headers": kept})
    await send({"type": "http.response.body", "body": answer.content})
