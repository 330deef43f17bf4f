"""`k3diff sample`'s two request paths (httpx's transport, or its client under a proxy)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .support import read_samples, sample, write_prompts


def test_a_proxy_in_the_environment_takes_httpx_client_path_with_the_same_samples(
    fault_server: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    """Requests go straight to httpx's transport unless the environment names a proxy; then
    httpx's client routes them (here NO_PROXY sends them direct) and the samples are the same."""
    base = fault_server()
    prompts = write_prompts(
        tmp_path / "p.jsonl",
        [{"key": "a", "prompt": "a"}, {"key": "b", "prompt": "b"}],
    )
    args = ("--base", base.url, "--prompts", prompts, "--repeats", "3", "--mode", "concurrent")
    direct = sample(*args, "--out", tmp_path / "direct")
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")  # the discard port: nothing there
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    routed = sample(*args, "--out", tmp_path / "routed")
    assert (direct.exit_code, routed.exit_code) == (0, 0), direct.stderr + routed.stderr
    kept = ("side", "key", "mode", "repeat", "request_sha256", "status", "text_xxh3", "attempts")
    lines = [
        sorted(tuple(s[k] for k in kept) for s in read_samples(tmp_path / out)[1])
        for out in ("direct", "routed")
    ]
    assert lines[0] == lines[1] and len(lines[0]) == 6
