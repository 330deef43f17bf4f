"""telem67: a side whose speculation counters stayed at 0 drafted nothing. Its per-position
table said `0 of 0` (a rate of nothing) and the bundle `accepted 0 of 0`; now `no drafts`. And
no side without a draft passes `--expect speculation`: vLLM draft tokens counted in 0 drafts
(or an SGLang request's drafted tokens in 0 verify steps) are no counts, so that window or
request is lost (before, its draft tokens passed the expectation, exit 0).

Runs are real `k3diff sample` runs against loopback fault servers (`--metrics vllm-spec`: what a
request adds to vLLM's speculative-decoding counters)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import engine_schemas
from cli_support import run_k3diff, run_telemetry

from .support import sample_fault_pair

REPEATS = 4
BASE_POS = [8, 5, 2]
BASE = {"drafts": 10, "draft_tokens": 30, "accepted_tokens": 15, "per_pos": BASE_POS}


def _vllm(tmp_path: Path, fault_server: Any, patch: dict[str, Any]) -> Path:
    faults = ({"vllm_spec": BASE}, {"vllm_spec": patch})
    out = sample_fault_pair(fault_server, tmp_path, faults, REPEATS, "--metrics", "vllm-spec")
    return out / "samples.jsonl"


def test_a_side_whose_counters_stayed_at_zero_says_no_drafts(
    fault_server: Any, tmp_path: Path
) -> None:
    zero = {"drafts": 0, "draft_tokens": 0, "accepted_tokens": 0, "per_pos": [0, 0, 0]}
    log = _vllm(tmp_path, fault_server, zero)
    code, doc, text = run_telemetry(log, "--expect", "speculation")
    assert code == 1, text
    assert [(n["side"], n["detail"]) for n in doc["not_exercised"]] == [
        ("patch", f"0 drafted tokens in {REPEATS} requests (vLLM /metrics)")
    ]
    rows = [
        line.split() for line in text.splitlines() if line.split()[:1] and line.split()[0].isdigit()
    ]
    n = 10 * REPEATS
    positions = {r["position"] for r in doc["positions"]}
    assert [int(row[0]) for row in rows] == sorted(positions)
    for row in rows:
        assert row[-4:] == ["no", "drafts", "-", "-"]  # not "0 of 0"
    for row, accepted in zip(rows, BASE_POS, strict=False):
        assert row[1:4] == [str(accepted * REPEATS), "of", str(n)]
    assert " of 0" not in text
    # The bundle says it too.
    (tmp_path / "t.json").write_text(json.dumps(doc))
    bundle = run_k3diff("report", tmp_path / "t.json", "--out", tmp_path / "b")
    assert bundle.exit_code == 1, bundle.stderr
    report = (tmp_path / "b" / "REPORT.md").read_text()
    assert "acceptance by draft position, patch: no drafts" in report
    assert "patch drafted no tokens" in report
    assert "0/0" not in report and "of 0 drafted" not in report


def test_draft_tokens_in_zero_drafts_do_not_pass_speculation(
    fault_server: Any, tmp_path: Path
) -> None:
    """vLLM counted 20 draft tokens a window in no draft: no counts one server life gives."""
    log = _vllm(
        tmp_path,
        fault_server,
        {"drafts": 0, "draft_tokens": 20, "accepted_tokens": 0, "per_pos": [0, 0, 0]},
    )
    code, doc, text = run_telemetry(log, "--expect", "speculation")
    assert code == 1, text
    (gap,) = doc["not_exercised"]
    assert gap["side"] == "patch"
    assert gap["detail"].endswith(f"; {REPEATS} vLLM windows lost (counter-reset)")
    lost = [r for r in doc["counter_resets"] if r["side"] == "patch"]
    assert len(lost) == REPEATS
    assert {(r["metric"], r["reason"]) for r in lost} == {
        ("counts not valid", "draft tokens 20 in 0 drafts")
    }


def test_sglang_draft_tokens_in_zero_verify_steps_do_not_pass_speculation(
    fault_server: Any, tmp_path: Path
) -> None:
    base = engine_schemas.sglang_meta_info([3, 2, 4, 1], draft_per_step=3)
    patch = {**base, "spec_verify_ct": 0, "spec_accept_token_num": 0}
    faults = ({"meta_info": base}, {"meta_info": patch})
    out = sample_fault_pair(fault_server, tmp_path, faults, REPEATS)
    code, doc, text = run_telemetry(out / "samples.jsonl", "--expect", "speculation")
    assert code == 1, text
    (gap,) = doc["not_exercised"]
    assert gap["side"] == "patch"
    reason = f"draft tokens {base['spec_draft_token_num']} in 0 verify steps"
    assert {r["reason"] for r in doc["counter_resets"] if r["side"] == "patch"} == {reason}
