"""A real inference server for the integration suite: `transformers serve` on loopback.

`running_server` installs the server into its own cached venv
(scripts/install_inference_server.sh), builds a tiny random-weight Llama with make_tiny_llama.py,
starts `transformers serve` pinned to it on a free loopback port, waits until it answers, and
stops it by pid on every path. Every test module here carries
`pytest.mark.xdist_group("inference_server")` and `make test` runs with `--dist loadgroup`, so
one xdist worker holds the whole suite and only one server starts.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

REPO = Path(__file__).resolve().parents[2]
INSTALL_SCRIPT = REPO / "scripts" / "install_inference_server.sh"
MAKE_MODEL = Path(__file__).with_name("make_tiny_llama.py")
READY_TIMEOUT_S = 180.0


@dataclass(frozen=True)
class InferenceServer:
    """A running `transformers serve` process and what the tests need to reach it."""

    base_url: str
    """http://127.0.0.1:PORT, without /v1."""
    model: str
    """The model path the server is pinned to (`--force-model`); requests may name it or omit it."""
    pid: int
    """The server process, for tests that check it is a real process."""
    log: Path
    """The server's stdout and stderr."""
    timings: dict[str, float]
    """Seconds taken by install, model creation and server start in this session."""


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _server_env(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        HF_HUB_DISABLE_TELEMETRY="1",
        OMP_NUM_THREADS="1",
        # A cache of its own: nothing of the user's is read or written, and /v1/models (which
        # scans the hub cache) finds an empty one instead of failing on a missing directory.
        HF_HOME=str(home),
        HF_HUB_CACHE=str(home / "hub"),
        TOKENIZERS_PARALLELISM="false",
    )
    (home / "hub").mkdir(parents=True, exist_ok=True)
    return env


def _run(cmd: list[str], env: dict[str, str], what: str) -> str:
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        pytest.fail(
            f"{what} failed ({proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
        )
    return proc.stdout


def _wait_ready(proc: subprocess.Popen[bytes], url: str, log: Path) -> None:
    deadline = time.monotonic() + READY_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"transformers serve exited with {proc.returncode}:\n{_tail(log)}")
        try:
            if httpx.get(f"{url}/health", timeout=2.0).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.25)
    raise RuntimeError(f"transformers serve not ready after {READY_TIMEOUT_S:.0f}s:\n{_tail(log)}")


def _tail(log: Path) -> str:
    return log.read_text(errors="replace")[-4000:]


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=15)


@contextmanager
def running_server(root: Path) -> Iterator[InferenceServer]:
    """Install, build the model, start the server under ROOT; stop it by pid on the way out."""
    env = _server_env(root / "hf-home")
    timings: dict[str, float] = {}

    start = time.monotonic()
    venv = Path(_run(["bash", str(INSTALL_SCRIPT)], env, "install_inference_server.sh").split()[-1])
    timings["install_s"] = time.monotonic() - start

    model = root / "tiny-llama"
    start = time.monotonic()
    _run([str(venv / "bin" / "python"), str(MAKE_MODEL), str(model)], env, "make_tiny_llama.py")
    timings["model_s"] = time.monotonic() - start

    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    log = root / "serve.log"
    cmd = [
        str(venv / "bin" / "transformers"), "serve", str(model),
        "--host", "127.0.0.1", "--port", str(port), "--device", "cpu", "--log-level", "info",
    ]  # fmt: skip
    start = time.monotonic()
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT, cwd=root)
    try:
        _wait_ready(proc, url, log)
        timings["start_s"] = time.monotonic() - start
        print(f"\ninference server timings: {timings}", file=sys.stderr)
        yield InferenceServer(url, str(model), proc.pid, log, timings)
    finally:
        _stop(proc)
