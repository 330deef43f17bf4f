"""The scripted batching engines (scripts/scripted_server.py --script) as real loopback
processes, run through capture, `k3diff responses`, `k3diff sample` and `k3diff triage`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import scripted_server
from cli_support import CliResult, run_k3diff
from sample.conftest import fault_server

__all__ = ["fault_server"]

PROMPTS = {"p1": "Tell me about A", "p2": "Say Z"}


Script = dict[str, dict[str, list[str]]]
"""prompt -> {"alone": answers, "batched": answers} of one engine."""


@dataclass
class Run:
    """One pass through capture, responses, sample and triage."""

    triage: CliResult
    document: dict[str, Any]
    text: str
    log: Path

    def record(self, key: str) -> dict[str, Any]:
        found: dict[str, Any] = next(r for r in self.document["records"] if r["key"] == key)
        return found

    def mode(self, key: str, mode: str) -> dict[str, Any]:
        found: dict[str, Any] = next(m for m in self.record(key)["modes"] if m["mode"] == mode)
        return found


@pytest.fixture
def scripted(tmp_path: Path) -> Iterator[Any]:
    """Gives `scripted(base_script, patch_script, ...)`: runs both engines (stopped by pid)."""
    running: list[scripted_server.Running] = []

    def run(
        base: dict[str, Any],
        patch: dict[str, Any],
        repeats: int,
        modes: tuple[str, ...] = ("serial", "concurrent"),
        burst: int = 1,
        triage_args: tuple[str, ...] = (),
        sample_args: tuple[str, ...] = (),
        prompts: dict[str, str] | None = None,
        capture_params: dict[str, Any] | None = None,
    ) -> Run:
        prompts = PROMPTS if prompts is None else prompts
        script = tmp_path / "script.json"
        by_prompt = {
            role: {prompts[key]: answers for key, answers in chosen.items()}
            for role, chosen in (("base", base), ("patch", patch))
        }
        script.write_text(json.dumps(by_prompt))
        for server in running:
            scripted_server.stop(server.pid)
        running.clear()
        for role in scripted_server.ROLES:
            running.append(scripted_server.start(role, tmp_path / "servers", script=script))
        urls = {server.role: server.url for server in running}
        wanted = {key: prompts[key] for key in base}
        scripted_server.capture(
            urls, tmp_path / "responses", wanted, {"base": burst}, capture_params
        )
        compared = run_k3diff(
            "responses", "responses/base.jsonl", "responses/patch.jsonl",
            "--format", "json", "-o", "cmp.json", cwd=tmp_path,
        )  # fmt: skip
        assert compared.exit_code in (0, 1), compared.stderr
        mode_args = [arg for mode in modes for arg in ("--mode", mode)]
        out = tmp_path / f"run{len(list(tmp_path.glob('run*')))}"
        sampled = run_k3diff(
            "sample", "--base", urls["base"], "--patch", urls["patch"],
            "--prompts", "responses/base.jsonl", "--repeats", str(repeats), *mode_args,
            "--concurrency", str(repeats), *sample_args, "--out", out.name, cwd=tmp_path,
        )  # fmt: skip
        assert sampled.exit_code == 0, sampled.stderr
        log = f"{out.name}/samples.jsonl"
        document = run_k3diff(
            "triage", "cmp.json", log, "--format", "json", *triage_args, cwd=tmp_path
        )
        text = run_k3diff("triage", "cmp.json", log, *triage_args, cwd=tmp_path)
        assert text.exit_code == document.exit_code, text.stderr
        return Run(text, json.loads(document.stdout), text.stdout, tmp_path / log)

    yield run
    for server in running:
        scripted_server.stop(server.pid)
