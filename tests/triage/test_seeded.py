"""Seeded sampling: at temperature 1 with a fixed `seed`, a server that honours the seed gives
one draw, repeated. Repeats that agree are that one draw, not n independent draws: triage judges
such a mode as a greedy one (exact-output rules, no distribution test in the family, no
no-power hold), so a patch whose seeded output differs from the base's stable seeded output is
a regression candidate (`deterministic-divergence`), and one that agrees is a match without a
test that claims n draws. Real `k3diff sample` runs against loopback servers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_support import run_k3diff

from .helpers import compare_texts

SEEDED = {"temperature": 1, "seed": 1234}


def _sample(tmp_path: Path, base: Any, patch: Any, params: dict[str, Any]) -> Path:
    prompts = tmp_path / "prompts.jsonl"
    record = {"key": "q", "prompt": "q", "fault": {"output": "seeded"}}
    prompts.write_text(json.dumps(record) + "\n")
    args = [f"{name}={json.dumps(value)}" for name, value in params.items()]
    result = run_k3diff(
        "sample", "--base", base.url, "--patch", patch.url, "--prompts", str(prompts),
        "--repeats", "3", "--out", str(tmp_path / "run"),
        *(part for arg in args for part in ("--param", arg)),
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    return tmp_path / "run" / "samples.jsonl"


def _texts(log: Path) -> dict[str, set[str]]:
    lines = [json.loads(line) for line in log.read_text().splitlines()[1:]]
    found: dict[str, set[str]] = {}
    for line in lines:
        found.setdefault(line["side"], set()).add(line["text"])
    return found


def _triage(tmp_path: Path, log: Path, patch_capture: str | None = None) -> dict[str, Any]:
    (base_text,) = _texts(log)["base"]
    captured = base_text if patch_capture is None else patch_capture
    cmp = compare_texts(tmp_path, {"q": (base_text, captured)})
    result = run_k3diff("triage", str(cmp), str(log), "--format", "json", cwd=tmp_path)
    assert result.exit_code in (0, 1), result.stderr
    document: dict[str, Any] = json.loads(result.stdout)
    return document


def test_a_patch_whose_seeded_draw_differs_is_a_regression_candidate(
    fault_server: Any, tmp_path: Path
) -> None:
    base, patch = fault_server(), fault_server("--seed-salt", "patched")
    log = _sample(tmp_path, base, patch, SEEDED)
    texts = _texts(log)
    assert len(texts["base"]) == len(texts["patch"]) == 1 and texts["base"] != texts["patch"]
    (patch_text,) = texts["patch"]
    document = _triage(tmp_path, log, patch_text)
    (record,) = document["records"]
    assert record["category"] == "deterministic-divergence", record["reason"]
    assert record["regression_candidate"] is True
    assert "distribution:" not in record["reason"] and "MMD" not in record["reason"]
    assert "fixed seed and each side repeated one output: one draw" in record["reason"]
    assert document["distribution_tests"] == 0
    assert record["modes"][0]["sampled"] is False
    assert document["verdict"]["exit_code"] == 1


def test_a_patch_giving_the_same_seeded_draw_matches_without_a_distribution_test(
    fault_server: Any, tmp_path: Path
) -> None:
    base, patch = fault_server(), fault_server()
    log = _sample(tmp_path, base, patch, SEEDED)
    document = _triage(tmp_path, log)
    (record,) = document["records"]
    assert record["category"] == "match", record["reason"]
    assert document["distribution_tests"] == 0
    assert record["modes"][0]["distribution"] is None
    assert document["verdict"]["exit_code"] == 0


def test_repeats_that_vary_despite_the_seed_are_still_judged_as_draws(
    fault_server: Any, tmp_path: Path
) -> None:
    # A server that ignores the seed: each repeat is a new draw, as without one.
    base, patch = fault_server(), fault_server()
    prompts = tmp_path / "prompts.jsonl"
    prompts.write_text(json.dumps({"key": "q", "prompt": "q", "fault": {"output": "rand"}}) + "\n")
    result = run_k3diff(
        "sample", "--base", base.url, "--patch", patch.url, "--prompts", str(prompts),
        "--repeats", "3", "--out", str(tmp_path / "run"),
        "--param", "temperature=1", "--param", "seed=1234",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    log = tmp_path / "run" / "samples.jsonl"
    cmp = compare_texts(tmp_path, {"q": ("rand:a", "rand:b")})
    out = run_k3diff("triage", str(cmp), str(log), "--format", "json", cwd=tmp_path)
    document = json.loads(out.stdout)
    (record,) = document["records"]
    assert record["modes"][0]["sampled"] is True
    assert record["category"] == "inconclusive" and "no-power" in record["flags"], record
    assert out.exit_code == 1
