"""Fixtures for `k3diff sample` tests: fault-injecting servers as real processes on loopback."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from server_support import loopback_script

SERVER_SCRIPT = Path(__file__).with_name("fault_server.py")
PROXY_SCRIPT = Path(__file__).with_name("proxy_server.py")
HOSTILE_SCRIPT = Path(__file__).with_name("hostile_server.py")
SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


@dataclass
class FaultServer:
    """One running fault server."""

    url: str
    log: Path
    pid: int

    def requests(self) -> list[dict[str, Any]]:
        """The server's own request log."""
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines() if line]


def _start_script(args: list[str | Path], procs: list[subprocess.Popen[str]]) -> str:
    """Start a loopback server script (`args`: the script and its flags; kept in `procs`, for
    its fixture to stop by pid); its URL, from the port it prints first."""
    proc = subprocess.Popen(
        [sys.executable, *map(str, args)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(SCRIPTS)},
    )
    procs.append(proc)
    assert proc.stdout is not None
    return f"http://127.0.0.1:{int(proc.stdout.readline())}"


@pytest.fixture
def fault_server(tmp_path: Path) -> Iterator[Callable[..., FaultServer]]:
    """Gives `fault_server(*flags)`: starts a server process, stopped by pid after the test."""
    procs: list[subprocess.Popen[str]] = []

    def start(*flags: str) -> FaultServer:
        log = tmp_path / f"server{len(procs)}.jsonl"
        url = _start_script([SERVER_SCRIPT, "--log", log, *flags], procs)
        return FaultServer(url, log, procs[-1].pid)

    yield start
    for proc in procs:
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)


@dataclass
class ProxyServer:
    """The forwarding proxy stand-in."""

    url: str
    log: Path
    pid: int

    def requests(self) -> list[dict[str, Any]]:
        """What reached the proxy."""
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines() if line]


@pytest.fixture
def proxy_server(tmp_path: Path) -> Iterator[ProxyServer]:
    """A forwarding proxy on loopback that logs every request it receives (stopped by pid)."""
    log = tmp_path / "proxy.jsonl"
    proc = subprocess.Popen(
        [sys.executable, str(PROXY_SCRIPT), "--log", str(log)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    port = int(proc.stdout.readline())
    yield ProxyServer(f"http://127.0.0.1:{port}", log, proc.pid)
    os.kill(proc.pid, signal.SIGTERM)
    proc.wait(timeout=10)


@pytest.fixture
def hostile_server() -> Iterator[str]:
    """A hostile server process (tests/sample/hostile_server.py); its URL. Stopped by pid."""
    with loopback_script(HOSTILE_SCRIPT) as url:
        yield url


REPLAY_SCRIPT = Path(__file__).with_name("replay_proxy.py")


@pytest.fixture
def replay_proxy() -> Iterator[Callable[[str], str]]:
    """Gives `replay_proxy(upstream_url)`: a replaying cache in front of that server (its URL);
    every one started is stopped by pid after the test."""
    procs: list[subprocess.Popen[str]] = []

    def start(upstream: str) -> str:
        return _start_script([REPLAY_SCRIPT, "--upstream", upstream], procs)

    yield start
    for proc in procs:
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)


GATEWAY_SCRIPT = Path(__file__).with_name("gateway_server.py")


@dataclass
class GatewayServer:
    """A serial engine behind a stream-reshaping front end (tests/sample/gateway_server.py)."""

    url: str
    log: Path
    """The engine's log: one `{"start", "end"}` line per generation."""

    def generations(self) -> list[tuple[float, float]]:
        """(start, end) of every generation the engine ran, in start order."""
        if not self.log.exists():
            return []
        lines = [json.loads(line) for line in self.log.read_text().splitlines() if line]
        return sorted((line["start"], line["end"]) for line in lines)


@pytest.fixture
def gateway_server(tmp_path: Path) -> Iterator[Callable[..., GatewayServer]]:
    """Gives `gateway_server(*flags)`: starts a gateway process, stopped by pid after the test."""
    procs: list[subprocess.Popen[str]] = []

    def start(*flags: str) -> GatewayServer:
        log = tmp_path / f"engine{len(procs)}.jsonl"
        return GatewayServer(_start_script([GATEWAY_SCRIPT, "--log", log, *flags], procs), log)

    yield start
    for proc in procs:
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)
