"""A real headless Chromium (Debian's package, installed by scripts/install_chromium.sh) driven
over the Chrome DevTools protocol; started by the fixture and stopped by its pid on every path."""

from __future__ import annotations

import base64
import io
import itertools
import json
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
from PIL import Image
from websockets.sync.client import ClientConnection, connect

ROOT = Path(__file__).resolve().parents[2]
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--remote-debugging-port=0",
    "--window-size=1280,1600",
]


def install() -> str:
    """The browser's path, installing it first when needed."""
    done = subprocess.run(
        ["bash", str(ROOT / "scripts/install_chromium.sh")],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]


class Page:
    """One page target: sends commands, keeps every event it sees."""

    def __init__(self, socket: ClientConnection) -> None:
        self.socket = socket
        self.events: list[dict[str, Any]] = []
        self._ids = itertools.count(1)

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        ident = next(self._ids)
        self.socket.send(json.dumps({"id": ident, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv(timeout=60))
            if message.get("id") == ident:
                assert "error" not in message, message
                result: dict[str, Any] = message.get("result", {})
                return result
            self.events.append(message)

    def wait_for(self, method: str) -> None:
        if any(e.get("method") == method for e in self.events):
            return
        while True:
            message = json.loads(self.socket.recv(timeout=60))
            self.events.append(message)
            if message.get("method") == method:
                return

    def evaluate(self, expression: str) -> Any:
        reply = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return reply["result"].get("value")

    def screenshot(self) -> Image.Image:
        data = self.call("Page.captureScreenshot", format="png", captureBeyondViewport=True)
        return Image.open(io.BytesIO(base64.b64decode(data["data"])))


def _debugger_port(profile: Path, process: subprocess.Popen[bytes]) -> int:
    active = profile / "DevToolsActivePort"
    for _ in range(300):
        if active.exists() and active.read_text().strip():
            return int(active.read_text().split()[0])
        assert process.poll() is None, f"chromium exited with {process.returncode}"
        time.sleep(0.1)
    raise AssertionError("chromium did not open its debugging port")


def open_page(browser: str, profile: Path) -> Iterator[Page]:
    """Start Chromium with a fresh profile and yield its first page; stop it by pid after."""
    process = subprocess.Popen(
        [browser, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        port = _debugger_port(profile, process)
        targets = httpx.get(f"http://127.0.0.1:{port}/json/list", timeout=30).json()
        page = next(t for t in targets if t.get("type") == "page")
        with connect(page["webSocketDebuggerUrl"], max_size=None, open_timeout=30) as socket:
            yield Page(socket)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
