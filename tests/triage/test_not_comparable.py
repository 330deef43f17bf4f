"""A record whose captured prompts differ (`not-comparable`) is no pass.

`k3diff responses` fails such a record (exit 1: nothing was compared for it), but triage let it
pass: samples repeat one request, so when they agreed the record read `match` and the run
passed (exit 0) although the patch's capture answered another prompt than the base's, one
never judged (a harness or template change the patch brought would hide there). It stays
`inconclusive`, flagged `not-comparable`, and fails the run whatever `--fail-inconclusive` says.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_support import CliResult, run_k3diff
from responses.fixtures import write_jsonl
from responses.lm_eval_logs import generate_current

from .helpers import S, side, write_samples

FEW_SHOT = "Q: 1+1?\nA: 2\n\nQ: {}?\nA:"


def _setup(tmp_path: Path, patch_text: str, samples: list[S] | None = None) -> None:
    """lm-eval captures of docs 0 and 1: the patch's prompt of doc 0 differs (a trailing
    blank), its answer `patch_text`; doc 1 matches. Both docs sampled alike on both sides
    unless `samples` says otherwise."""
    base = [generate_current(n, FEW_SHOT.format(n), ["42"], "42", "none", 1.0) for n in (0, 1)]
    patch = [
        generate_current(0, FEW_SHOT.format(0) + " ", [patch_text], patch_text, "none", 1.0),
        base[1],
    ]
    for name, rows in (("base", base), ("patch", patch)):
        (tmp_path / name).mkdir()
        write_jsonl(tmp_path / name / "samples_gsm8k.jsonl", rows)
    compared = run_k3diff(
        "responses", "base/samples_gsm8k.jsonl", "patch/samples_gsm8k.jsonl", "--format",
        "json", "-o", "cmp.json", cwd=tmp_path,
    )  # fmt: skip
    assert compared.exit_code == 1, compared.stderr
    statuses = [r["status"] for r in json.loads((tmp_path / "cmp.json").read_text())["records"]]
    assert statuses == ["not-comparable", "match"]
    if samples is None:
        samples = [
            s for key in ("0", "1") for who in ("base", "patch") for s in side(key, who, ["42"] * 3)
        ]
    write_samples(tmp_path / "run" / "samples.jsonl", samples)


def _triage(tmp_path: Path, *args: str) -> tuple[CliResult, dict[str, Any]]:
    result = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--format", "json", *args, cwd=tmp_path
    )
    assert result.exit_code in (0, 1), result.stderr
    return result, json.loads(result.stdout)


def test_a_record_whose_prompts_differ_fails_though_its_samples_agree(tmp_path: Path) -> None:
    """Failed on main: record 0 read `match` and triage exited 0."""
    _setup(tmp_path, "42")
    result, document = _triage(tmp_path)
    first, second = document["records"]
    assert result.exit_code == 1
    assert document["verdict"] == {"ok": False, "exit_code": 1}
    assert (first["category"], second["category"]) == ("inconclusive", "match")
    assert "not-comparable" in first["flags"]
    assert first["reason"].startswith("not-comparable: the captured prompts differ")
    assert "capture both sides with the same prompts" in first["reason"]
    assert document["summary"]["held"] == 1
    text = run_k3diff("triage", "cmp.json", "run/samples.jsonl", cwd=tmp_path)
    assert text.exit_code == 1
    assert "captures whose prompts differ (not-comparable)" in text.stdout


def test_a_record_whose_prompts_differ_fails_unsampled_too(tmp_path: Path) -> None:
    """Without a sample of it, it was inconclusive and passed unless --fail-inconclusive."""
    _setup(tmp_path, "42", side("1", "base", ["42"] * 3) + side("1", "patch", ["42"] * 3))
    result, document = _triage(tmp_path)
    assert result.exit_code == 1
    assert "not-comparable" in document["records"][0]["flags"]


def test_a_regression_candidate_whose_prompts_differ_stays_one(tmp_path: Path) -> None:
    samples = side("0", "base", ["42"] * 3) + side("0", "patch", ["41"] * 3)
    _setup(tmp_path, "41", samples + side("1", "base", ["42"] * 3) + side("1", "patch", ["42"] * 3))
    result, document = _triage(tmp_path)
    first = document["records"][0]
    assert result.exit_code == 1
    assert first["category"] == "deterministic-divergence"
    assert "not-comparable" not in first["flags"]
