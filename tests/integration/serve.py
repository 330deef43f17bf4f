"""A real inference server for the integration suite: `transformers serve` on loopback.

`start_server` installs the server into its own cached venv (scripts/install_inference_server.sh;
`install_server` skips the tests that need it when that fails, or fails them under
K3DIFF_REQUIRE_INTEGRATION=1, as CI runs), builds a tiny random-weight Llama with make_tiny_llama.py, starts `transformers serve` pinned to
it on a free loopback port and waits until it answers (stopping it if it never does).

One server per pytest run, whatever xdist does: `shared_server` starts it under a file lock in a
directory that every worker of the run shares, and records its pid there; the other workers reuse
it. A second server, `PENALTY`, is started the same way only when a test asks for it (triage's
end-to-end test): the same weights (the first server's model directory, copied) with another
generation config, a repetition penalty that changes some greedy outputs and not others; a third,
`CONTINUOUS`, serves the same weights with `--continuous-batching` (the axes tests' variant); a
fourth, `TOP_K`, samples from the two likeliest tokens (the distribution tests' patch). The
process that owns the run (the xdist controller, or pytest itself without xdist) stops every
started server by its recorded pid in `pytest_sessionfinish` (tests/conftest.py), after every
worker is done, on every path. Tests hold `use_lock` while they talk to the server: the server seeds one global torch
generator per request, so a test on another worker would otherwise disturb a serial measurement.
(The modules also carry `xdist_group` for `--dist loadgroup`, which would keep them on one worker,
but pytest-xdist 3.8 with pytest 9.2 ignores the group: pytest-xdist issue 1386.)
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

REPO = Path(__file__).resolve().parents[2]
INSTALL_SCRIPT = REPO / "scripts" / "install_inference_server.sh"
REQUIRE = "K3DIFF_REQUIRE_INTEGRATION"
"""Set to 1 (CI does, in .ci/run): a server that cannot be installed fails the suite instead of
skipping it."""
MAKE_MODEL = Path(__file__).with_name("make_tiny_llama.py")
READY_TIMEOUT_S = 180.0


@dataclass(frozen=True)
class ServerConfig:
    """Which server of the run: its name and how its model differs from make_tiny_llama.py's."""

    name: str
    """Names the state file and the directory the server runs in, inside the run directory."""
    generation: Mapping[str, Any]
    """Fields set over the model's generation_config.json (empty: the model as built)."""
    flags: tuple[str, ...] = ()
    """Extra `transformers serve` options (e.g. `--continuous-batching`)."""


BASE = ServerConfig("inference-server", {})
"""The suite's server: the tiny model as make_tiny_llama.py builds it."""
PENALTY = ServerConfig("penalty-server", {"repetition_penalty": 2.0})
"""The same weights with a repetition penalty in the generation config: a greedy request that
would repeat a token (of the prompt or of its own output) goes another way, unless it sets
`frequency_penalty` (the server maps it to `repetition_penalty = 1 + frequency_penalty`)."""
CONTINUOUS = ServerConfig(
    "continuous-server",
    {},
    ("--continuous-batching", "--cb-num-blocks", "64", "--cb-max-batch-tokens", "512"),
)
"""The same weights served with `--continuous-batching` (paged attention, requests scheduled
together): the batching variant of the axes tests. The KV cache is bounded (64 pages of 256
tokens, 512 tokens a forward step, far above what the tests send): left to itself, transformers
sizes it from 90 % of the free memory, which on CPU is the machine's RAM (21.7 GB RSS on a
24 GiB machine, an OOM risk for a smaller CI runner)."""
TOP_K = ServerConfig("top-k-server", {"top_k": 2})
"""The same weights with `top_k: 2` in the generation config: a sampled request draws each token
from the two likeliest instead of the whole vocabulary. `transformers serve` takes the request's
`temperature`, `top_p` and `seed` over the model's generation config
(`BaseHandler._build_generation_config` in transformers/cli/serving/utils.py, 5.18.0) but has no
request field for `top_k`, so at temperature 1 this server samples another distribution than
`BASE` (the distribution tests' patch)."""
SERVERS = (BASE, PENALTY, CONTINUOUS, TOP_K)


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


def install_server(env: dict[str, str], script: Path = INSTALL_SCRIPT) -> Path:
    """The server's venv, as SCRIPT installs it (or finds it cached).

    When it cannot be installed (an offline laptop: no index to fetch torch or transformers
    from) the tests that need the server are skipped, naming the reason, unless `REQUIRE` is set:
    then they fail, so that CI never passes by skipping them.
    """
    proc = subprocess.run(
        ["bash", str(script)], env=env, capture_output=True, text=True, check=False
    )
    if proc.returncode == 0:
        return Path(proc.stdout.split()[-1])
    said = [line.strip() for line in proc.stderr.splitlines() if line.strip()] or [
        line.strip() for line in proc.stdout.splitlines() if line.strip()
    ]  # pip's last error line says why
    why = f"{script.name} exited {proc.returncode}: {said[-1] if said else 'no output'}"
    if os.environ.get(REQUIRE, "") not in ("", "0"):
        pytest.fail(
            f"the inference server could not be installed ({why}; {REQUIRE} is set):\n"
            f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
        )
    pytest.skip(f"the inference server could not be installed ({why}); {REQUIRE}=1 fails instead")


def _wait_ready(pid: int, url: str, log: Path) -> None:
    deadline = time.monotonic() + READY_TIMEOUT_S
    while time.monotonic() < deadline:
        if not _alive(pid):
            raise RuntimeError(f"transformers serve (pid {pid}) exited:\n{_tail(log)}")
        try:
            if httpx.get(f"{url}/health", timeout=2.0).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.25)
    raise RuntimeError(f"transformers serve not ready after {READY_TIMEOUT_S:.0f}s:\n{_tail(log)}")


def _tail(log: Path) -> str:
    return log.read_text(errors="replace")[-4000:]


def _alive(pid: int) -> bool:
    """Whether PID still runs (reaping it first when it is our own exited child)."""
    try:
        if os.waitpid(pid, os.WNOHANG)[0] == pid:
            return False
    except ChildProcessError:
        pass  # started by another worker: init reaps it
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def stop_server(pid: int) -> None:
    """SIGTERM, then SIGKILL after 15 s; returns once PID is gone."""
    for sig, grace in ((signal.SIGTERM, 15.0), (signal.SIGKILL, 15.0)):
        if not _alive(pid):
            return
        os.kill(pid, sig)
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            if not _alive(pid):
                return
            time.sleep(0.1)


def _make_model(
    model: Path, venv: Path, env: dict[str, str], config: ServerConfig, weights_from: Path | None
) -> None:
    """Build the tiny model into MODEL, or copy WEIGHTS_FROM's; then apply CONFIG's generation."""
    if weights_from is None:
        _run([str(venv / "bin" / "python"), str(MAKE_MODEL), str(model)], env, "make_tiny_llama.py")
    else:
        shutil.copytree(weights_from, model)
    if config.generation:
        path = model / "generation_config.json"
        path.write_text(json.dumps({**json.loads(path.read_text()), **config.generation}))


def start_server(
    root: Path, config: ServerConfig = BASE, weights_from: Path | None = None
) -> InferenceServer:
    """Install, make the model, start the server under ROOT; stop it again if it never answers.

    WEIGHTS_FROM: a model directory to copy instead of building one (a second server of the run).
    """
    env = _server_env(root / "hf-home")
    timings: dict[str, float] = {}

    start = time.monotonic()
    venv = install_server(env)
    timings["install_s"] = time.monotonic() - start

    model = root / "tiny-llama"
    start = time.monotonic()
    _make_model(model, venv, env, config, weights_from)
    timings["model_s"] = time.monotonic() - start

    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    log = root / "serve.log"
    cmd = [
        str(venv / "bin" / "transformers"), "serve", str(model),
        "--host", "127.0.0.1", "--port", str(port), "--device", "cpu", "--log-level", "info",
        *config.flags,
    ]  # fmt: skip
    start = time.monotonic()
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT, cwd=root)
    _STARTED.append(proc)  # reaped by `stop_server`; kept so no ResourceWarning fires meanwhile
    try:
        _wait_ready(proc.pid, url, log)
    except BaseException:
        stop_server(proc.pid)
        raise
    timings["start_s"] = time.monotonic() - start
    return InferenceServer(url, str(model), proc.pid, log, timings)


_STARTED: list[subprocess.Popen[bytes]] = []


@contextmanager
def _flock(path: Path) -> Iterator[None]:
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def run_dir(basetemp: Path) -> Path:
    """The directory every process of this pytest run shares (an xdist worker's basetemp is a
    subdirectory of the controller's)."""
    return basetemp.parent if os.environ.get("PYTEST_XDIST_WORKER") else basetemp


def _state(run_dir: Path, config: ServerConfig) -> Path:
    return run_dir / f"{config.name}.json"


def shared_server(
    run_dir: Path,
    config: ServerConfig = BASE,
    start: Callable[[Path], InferenceServer] | None = None,
) -> InferenceServer:
    """The run's CONFIG server: started (by START, default `start_server`) by the first worker that
    asks, reused by the others."""
    with _flock(run_dir / f"{config.name}.start.lock"):
        state = _state(run_dir, config)
        skipped = run_dir / f"{config.name}.skipped"
        if skipped.exists():
            pytest.skip(skipped.read_text())  # another worker found it cannot be installed
        if state.exists():
            fields = json.loads(state.read_text())
            server = InferenceServer(**{**fields, "log": Path(fields["log"])})
            _wait_ready(server.pid, server.base_url, server.log)
            return server
        try:
            server = (start or start_server)(run_dir / config.name)
        except pytest.skip.Exception as exc:
            skipped.write_text(str(exc.msg))
            raise
        state.write_text(json.dumps({**asdict(server), "log": str(server.log)}))
        return server


def stop_shared_servers(run_dir: Path) -> dict[str, dict[str, float]]:
    """Stop the run's servers that were started (called once, by the process owning the run).

    Returns, per server name, the seconds its start took (install, model, start).
    """
    stopped: dict[str, dict[str, float]] = {}
    for config in SERVERS:
        state = _state(run_dir, config)
        if not state.exists():
            continue
        fields = json.loads(state.read_text())
        stop_server(int(fields["pid"]))
        state.unlink()
        stopped[config.name] = dict(fields["timings"])
    return stopped


@contextmanager
def use_lock(run_dir: Path) -> Iterator[None]:
    """Held by a test for as long as it sends requests: one test talks to the server at a time."""
    with _flock(run_dir / "inference-server.use.lock"):
        yield
