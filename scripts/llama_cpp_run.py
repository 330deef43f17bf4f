"""The pieces of scripts/try_llama_cpp.py: a llama-cpp-python server started and stopped by pid,
captures written as `{key, request, response}` lines (streamed ones reassembled), and the real
k3diff CLI in a subprocess."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

N_CTX = 256


@dataclass(frozen=True)
class Case:
    name: str
    patch: str
    """Which server is the patch: "patch" (one weight changed) or "base" (the same model)."""
    temperature: float
    stream: bool
    """Capture streamed and sample with --stream."""
    modes: tuple[str, ...]
    repeats: int
    expected: int
    """The exit code triage should give."""
    sample_stream: bool = False
    """Sample with --stream whatever the capture did."""


@dataclass(frozen=True)
class Server:
    pid: int
    url: str


def start_server(venv: Path, model: Path, log: Path) -> Server:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    cmd = [str(venv / "bin" / "python"), "-m", "llama_cpp.server", "--model", str(model)]
    cmd += ["--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(N_CTX)]
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    server = Server(proc.pid, f"http://127.0.0.1:{port}")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited ({proc.returncode}): {log.read_text()[-2000:]}")
        try:
            if httpx.get(f"{server.url}/v1/models", timeout=2).status_code == 200:
                return server
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    stop_server(server)
    raise RuntimeError(f"the server did not answer in 120 s: {log}")


def stop_server(server: Server) -> None:
    """SIGTERM the server's process (by pid), SIGKILL it after 10 s."""
    try:
        os.kill(server.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if os.waitpid(server.pid, os.WNOHANG) != (0, 0):
            return
        time.sleep(0.1)
    os.kill(server.pid, signal.SIGKILL)
    os.waitpid(server.pid, 0)


def _streamed(client: httpx.Client, body: dict[str, Any]) -> dict[str, Any]:
    """POST a streamed completion and reassemble its chunks into one completion object."""
    text: list[str] = []
    first: dict[str, Any] | None = None
    finish = None
    with client.stream("POST", "/v1/completions", json=body) as response:
        assert response.status_code == 200, response.read()
        for line in response.iter_lines():
            if not line.startswith("data: ") or line == "data: [DONE]":
                continue
            chunk = json.loads(line[len("data: ") :])
            first = first or chunk
            for choice in chunk.get("choices", []):
                text.append(choice.get("text") or "")
                finish = choice.get("finish_reason") or finish
    assert first is not None, "an empty stream"
    choice = {"index": 0, "text": "".join(text), "finish_reason": finish}
    keep = ("id", "object", "created", "model")
    return {**{k: first[k] for k in keep if k in first}, "choices": [choice]}


def capture(
    server: Server, requests: list[dict[str, Any]], stream: bool, out: Path
) -> dict[str, str]:
    """POST each request once; write `{key, request, response}` lines to OUT; return the texts."""
    texts: dict[str, str] = {}
    lines = []
    with httpx.Client(base_url=server.url, timeout=120) as client:
        for request in requests:
            body = {k: v for k, v in request.items() if k != "key"}
            if stream:
                raw = _streamed(client, {**body, "stream": True})
                body["stream"] = True
            else:
                response = client.post("/v1/completions", json=body)
                assert response.status_code == 200, response.text
                raw = response.json()
            texts[request["key"]] = raw["choices"][0]["text"]
            lines.append(json.dumps({"key": request["key"], "request": body, "response": raw}))
    out.write_text("".join(line + "\n" for line in lines))
    return texts


def k3diff(*args: str | Path, stderr: Path | None = None) -> int:
    """Run the k3diff CLI of this interpreter's path; return its exit code."""
    cmd = [sys.executable, "-m", "k3diff", *map(str, args)]
    with open(stderr or os.devnull, "wb") as err:
        return subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=err, check=False).returncode


def stream_vs_whole(server: Server, requests: list[dict[str, Any]], seeds: int) -> list[str]:
    """Ask each request whole and streamed with the same seeds (0 .. SEEDS-1): the keys and seeds
    whose streamed text differs from the whole one (the same tokens, decoded two ways)."""
    differ = []
    with httpx.Client(base_url=server.url, timeout=120) as client:
        for request in requests:
            body = {k: v for k, v in request.items() if k != "key"}
            for seed in range(seeds):
                whole = client.post("/v1/completions", json={**body, "seed": seed})
                streamed = _streamed(client, {**body, "seed": seed, "stream": True})
                if whole.json()["choices"][0]["text"] != streamed["choices"][0]["text"]:
                    differ.append(f"{request['key']}@{seed}")
    return differ
