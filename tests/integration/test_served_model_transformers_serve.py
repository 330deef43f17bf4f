"""The model a real `transformers serve` answers as, recorded by `k3diff sample` and held to the
capture by `k3diff triage`.

`transformers serve MODEL_DIR` (5.18.0) names every answer `MODEL_DIR@main` (the path it was
started with, and the revision): whole answers in `model`, streams in every chunk's `model`, on
both routes. `sample` logs it per sample (never `stream_models`: the chunks agree), `responses`
keeps it per side of a capture taken from the same server, and triage counts those samples,
checked against it: not refused, no model qualification.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from cli_support import run_k3diff

from .serve import InferenceServer

pytestmark = pytest.mark.xdist_group("inference_server")

REPEATS = 2
PROMPT = "the quick brown fox"
GREEDY = {"max_tokens": 6, "temperature": 0}


def _sample(
    server: InferenceServer, tmp_path: Path, prompts: Path, *options: str
) -> list[dict[str, Any]]:
    out = tmp_path / f"out{len(list(tmp_path.glob('out*')))}"
    result = run_k3diff(
        "sample", "--base", server.base_url, "--prompts", prompts, "--repeats", str(REPEATS),
        "--mode", "serial", "--out", out, "--format", "json", *options,
    )  # fmt: skip
    assert result.exit_code == 0, (result.stdout, result.stderr)
    lines = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    return [line for line in lines[1:] if "schema" not in line]


def _answered_as(server: InferenceServer, path: str, body: dict[str, Any]) -> str:
    """The model a whole answer names, asked directly."""
    response = httpx.post(f"{server.base_url}{path}", json=body, timeout=120)
    assert response.status_code == 200, response.text
    model = response.json()["model"]
    assert isinstance(model, str)
    return model


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
@pytest.mark.parametrize("route", ["completions", "chat"])
def test_every_sample_records_the_model_the_real_server_answered_as(
    inference_server: InferenceServer, tmp_path: Path, route: str, stream: bool
) -> None:
    if route == "chat":
        record: dict[str, Any] = {"messages": [{"role": "user", "content": PROMPT}]}
        path = "/v1/chat/completions"
    else:
        record, path = {"prompt": PROMPT}, "/v1/completions"
    prompts = tmp_path / "prompts.jsonl"
    prompts.write_text(json.dumps({"key": "fox", **record, **GREEDY}) + "\n")
    options = ["--endpoint", route] + (["--stream"] if stream else [])
    samples = _sample(inference_server, tmp_path, prompts, *options)
    named = _answered_as(inference_server, path, {**record, **GREEDY})
    # The server names the directory it serves (and its revision), not an alias.
    assert named.startswith(inference_server.model), named
    assert len(samples) == REPEATS
    for line in samples:
        assert line["error"] is None and line["model"] == named, line
        assert "stream_models" not in line, line


def test_samples_of_the_captured_server_are_checked_against_its_model_and_count(
    inference_server: InferenceServer, tmp_path: Path
) -> None:
    request = {"prompt": PROMPT, **GREEDY}
    response = httpx.post(f"{inference_server.base_url}/v1/completions", json=request, timeout=120)
    assert response.status_code == 200, response.text
    line = json.dumps({"key": "fox", "request": request, "response": response.json()})
    for side in ("base", "patch"):
        (tmp_path / f"{side}.jsonl").write_text(line + "\n")
    compared = run_k3diff(
        "responses", "base.jsonl", "patch.jsonl", "--key", "key", "--format", "json",
        "-o", "cmp.json", cwd=tmp_path,
    )  # fmt: skip
    assert compared.exit_code == 0, compared.stderr
    record = json.loads((tmp_path / "cmp.json").read_text())["records"][0]
    assert record["base"]["model"] == response.json()["model"]
    prompts = tmp_path / "prompts.jsonl"
    prompts.write_text(json.dumps({"key": "fox", **request}) + "\n")
    out = tmp_path / "run"
    sampled = run_k3diff(
        "sample", "--base", inference_server.base_url, "--patch", inference_server.base_url,
        "--prompts", prompts, "--repeats", str(REPEATS), "--mode", "serial", "--out", out,
    )  # fmt: skip
    assert sampled.exit_code == 0, sampled.stderr
    triaged = run_k3diff(
        "triage", "cmp.json", out / "samples.jsonl", "--format", "json", "--allow-same-server",
        cwd=tmp_path,
    )  # fmt: skip
    assert triaged.exit_code in (0, 1), triaged.stderr  # never refused (2)
    document = json.loads(triaged.stdout)
    assert not any("model" in q for q in document["qualifications"]), document
    (verdict,) = document["records"]
    assert "samples-of-another-condition" not in verdict["flags"], verdict
    assert "condition-unchecked" not in verdict["flags"], verdict
