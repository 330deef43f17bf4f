"""A cold-warm log whose cold request is gone (review67b): `--expect cache-reuse` does not count
a cold request's hit (telem67), and fails the side, for a server that ignored `cache_salt`. Its
log with that one line deleted, or moved below the warm requests, passed (exit 0): the warm
requests' hits were counted with no cold request to show the salt took. `sample` logs each
prompt's cold request before its warm ones (and resumes it first), so every reader of the log
refuses such a log as edited, naming the first warm request's line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff

from .test_telemetry_cold_warm import _cold_warm


def _is_cold(line: str, side: str) -> bool:
    value = json.loads(line)
    return (value.get("side"), value.get("mode"), value.get("repeat")) == (side, "cold-warm", 0)


@pytest.mark.parametrize("edit", ["deleted", "moved below"])
def test_a_log_without_its_cold_request_before_the_warm_ones_is_refused(
    fault_server: Any, tmp_path: Path, edit: str
) -> None:
    out = _cold_warm(fault_server, tmp_path, {"cache": "prefix", "ignore_salt": True})
    log = out / "samples.jsonl"
    assert run_k3diff("telemetry", log, "--expect", "cache-reuse").exit_code == 1
    lines = log.read_text().splitlines(keepends=True)
    cold = [line for line in lines if _is_cold(line, "patch")]
    kept = [line for line in lines if not _is_cold(line, "patch")]
    log.write_text("".join(kept + (cold if edit == "moved below" else [])))
    first_warm = next(
        n
        for n, line in enumerate(kept, 1)
        if json.loads(line).get("side") == "patch" and json.loads(line).get("mode") == "cold-warm"
    )

    result = run_k3diff("telemetry", log, "--expect", "cache-reuse")
    assert result.exit_code == 2, result.stdout + result.stderr
    assert result.stderr == (
        f"k3diff: error: {log}:{first_warm}: repeat 1 of patch 'a' (cold-warm) has no cold "
        "request (repeat 0) on an earlier line; sample logs it first, so the log was edited: "
        "sample the run again\n"
    )
