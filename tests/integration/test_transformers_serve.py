"""What a real inference server does with repeated requests, measured with plain httpx.

The server is `transformers serve` (see conftest.py) with a tiny random-weight Llama. These are
the behaviours `k3diff sample` exists to tell apart, checked against the server directly so the
evidence does not depend on the sampler:

- temperature 0 gives one output, serially and under concurrency (no batching without
  --continuous-batching, so each request runs alone through the same kernels);
- temperature 1 without a seed gives many outputs;
- a fixed seed gives one output serially, but several when the requests run together: the server
  seeds torch's one global generator per request (`torch.manual_seed`), so concurrent requests
  draw from a generator the others have already advanced.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

import httpx
import pytest

from .serve import InferenceServer

pytestmark = pytest.mark.xdist_group("inference_server")

REPEATS = 6
MAX_TOKENS = 16
ENDPOINTS = ("completions", "chat")


def _body(server: InferenceServer, endpoint: str, **params: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"model": server.model, "max_tokens": MAX_TOKENS, **params}
    if endpoint == "chat":
        body["messages"] = [{"role": "user", "content": "the quick brown fox"}]
    else:
        body["prompt"] = "the quick brown fox"
    return body


def _text(response: httpx.Response) -> str:
    assert response.status_code == 200, response.text
    choice = response.json()["choices"][0]
    text = choice["text"] if "text" in choice else choice["message"]["content"]
    assert isinstance(text, str)
    assert text, "an empty output would make every distinct count meaningless"
    return text


async def _serial(server: InferenceServer, endpoint: str, body: dict[str, Any]) -> list[str]:
    async with httpx.AsyncClient(base_url=server.base_url, timeout=120) as client:
        return [
            _text(await client.post(f"/v1/{_path(endpoint)}", json=body)) for _ in range(REPEATS)
        ]


async def _concurrent(server: InferenceServer, endpoint: str, body: dict[str, Any]) -> list[str]:
    async with httpx.AsyncClient(base_url=server.base_url, timeout=120) as client:
        responses = await asyncio.gather(
            *(client.post(f"/v1/{_path(endpoint)}", json=body) for _ in range(REPEATS))
        )
    return [_text(r) for r in responses]


def _path(endpoint: str) -> str:
    return "chat/completions" if endpoint == "chat" else "completions"


def test_the_server_is_a_real_process_serving_the_tiny_model(
    inference_server: InferenceServer,
) -> None:
    os.kill(inference_server.pid, 0)  # raises if no such process
    response = httpx.post(
        f"{inference_server.base_url}/v1/completions",
        json=_body(inference_server, "completions", temperature=0),
        timeout=120,
    )
    assert response.status_code == 200, response.text
    assert response.json()["model"].startswith(inference_server.model)
    assert response.json()["usage"]["completion_tokens"] >= 1


def test_a_request_for_another_model_is_refused(inference_server: InferenceServer) -> None:
    body = _body(inference_server, "completions", temperature=0) | {"model": "no/such-model"}
    response = httpx.post(f"{inference_server.base_url}/v1/completions", json=body, timeout=120)
    assert response.status_code == 400


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_temperature_zero_is_stable_serially(
    inference_server: InferenceServer, endpoint: str
) -> None:
    texts = asyncio.run(
        _serial(inference_server, endpoint, _body(inference_server, endpoint, temperature=0))
    )
    assert len(set(texts)) == 1, texts


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_temperature_zero_is_stable_under_concurrency(
    inference_server: InferenceServer, endpoint: str
) -> None:
    body = _body(inference_server, endpoint, temperature=0)
    serial = asyncio.run(_serial(inference_server, endpoint, body))
    concurrent = asyncio.run(_concurrent(inference_server, endpoint, body))
    assert set(concurrent) == set(serial), (serial, concurrent)
    assert len(set(concurrent)) == 1


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_temperature_one_without_a_seed_is_not_stable(
    inference_server: InferenceServer, endpoint: str
) -> None:
    texts = asyncio.run(
        _serial(inference_server, endpoint, _body(inference_server, endpoint, temperature=1))
    )
    # A flat distribution over a few hundred tokens, 16 draws: a repeat is all but impossible.
    assert len(set(texts)) >= REPEATS - 1, texts


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_a_fixed_seed_is_stable_serially(inference_server: InferenceServer, endpoint: str) -> None:
    body = _body(inference_server, endpoint, temperature=1, seed=1234)
    texts = asyncio.run(_serial(inference_server, endpoint, body))
    assert len(set(texts)) == 1, texts


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_a_fixed_seed_is_not_stable_under_concurrency(
    inference_server: InferenceServer, endpoint: str
) -> None:
    body = _body(inference_server, endpoint, temperature=1, seed=1234)
    serial = asyncio.run(_serial(inference_server, endpoint, body))
    concurrent = asyncio.run(_concurrent(inference_server, endpoint, body))
    assert len(set(serial)) == 1, serial
    assert len(set(concurrent)) >= 2, concurrent
