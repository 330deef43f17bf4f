"""The one-server check's rounds take at most `identity.BUDGET_S` seconds (review73e).

A patch whose `/v1/models` answers each GET late, within the client's 10 s, held `sample` in
the check's 3 rounds of 3 GETs: 9 times the delay (86 s at 9.5 s a GET, measured). Now the
rounds stop at the budget and the check is `unchecked`, which triage states; the exit code is
unchanged.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from cli_support import run_k3diff

from k3diff.sample.identity import BUDGET_S

from .helpers import compare_texts

LOG = "run/samples.jsonl"
DELAY = 3.0
"""Seconds each GET of `/v1/models` waits: 27 s over the 3 rounds, past the budget."""


def test_a_patch_answering_its_models_late_is_unchecked_within_the_budget(
    tmp_path: Path, fault_server: Any
) -> None:
    """Failed on main at 34d5a9d9 (`two-servers` after the 3 rounds, 27 s of GETs)."""
    base = fault_server("--metrics", "vllm")
    patch = fault_server("--metrics", "vllm", "--models-delay", str(DELAY))
    compare_texts(tmp_path, {"a": ("echo:a", "echo:a")})
    (tmp_path / "p.jsonl").write_text(json.dumps({"key": "a", "prompt": "a"}) + "\n")
    started = time.monotonic()
    result = run_k3diff(
        "sample", "--base", base.url, "--patch", patch.url, "--prompts", "p.jsonl",
        "--repeats", "1", "--control", "off", "--out", "run", cwd=tmp_path,
    )  # fmt: skip
    took = time.monotonic() - started
    assert result.exit_code == 0, result.stderr
    identity = json.loads((tmp_path / LOG).read_text().splitlines()[0])["run"]["server_identity"]
    assert identity["result"] == "unchecked", identity
    assert identity["why"] == (
        "the servers did not answer the check's 3 rounds of /metrics readings and GETs of "
        f"/v1/models within {BUDGET_S:g} s"
    )
    # The budget, the patch's model asked once outside the check, and start-up: never the
    # 27 s of the 9 GETs (a loose bound for a loaded machine).
    assert took < BUDGET_S + 4 * DELAY + 6, took
    triaged = run_k3diff("triage", "cmp.json", LOG, cwd=tmp_path)
    assert triaged.exit_code == 0, triaged.stdout
    assert f"within {BUDGET_S:g} s; nothing to do where you know the two URLs" in triaged.stdout
