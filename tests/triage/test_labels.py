"""Triage names records as the user does: a comparison paired by prompt hash whose records carry
the user's `"id"` shows those ids, with the pairing key beside them in JSON."""

from __future__ import annotations

import json
from pathlib import Path

from cli_support import run_k3diff

from k3diff.responses.model import text_digest

from .helpers import S, compare, write_samples


def test_triage_names_records_by_the_users_ids(tmp_path: Path) -> None:
    prompts = {"r1": "Capital of France?", "r2": "Two plus two?"}
    base = [{"id": rid, "prompt": p, "text": "same"} for rid, p in prompts.items()]
    patch = [
        {"id": rid, "prompt": p, "text": "same" if rid == "r1" else "new"}
        for rid, p in prompts.items()
    ]
    compare(tmp_path, base, patch)
    keys = {rid: text_digest(p) for rid, p in prompts.items()}
    samples = [
        S(side, keys[rid], text)
        for rid in prompts
        for side, text in (("base", "same"), ("patch", "same" if rid == "r1" else "new"))
        for _ in range(3)
    ]
    write_samples(tmp_path / "run" / "samples.jsonl", samples)
    result = run_k3diff("triage", "cmp.json", "run/samples.jsonl", "--format", "json", cwd=tmp_path)
    assert result.exit_code in (0, 1), result.stderr
    records = {r["label"]: r for r in json.loads(result.stdout)["records"]}
    assert set(records) == {"r1", "r2"} and records["r2"]["key"] == keys["r2"]
    assert records["r2"]["category"] == "deterministic-divergence"
    for fmt in ("text", "markdown"):
        out = run_k3diff("triage", "cmp.json", "run/samples.jsonl", "--format", fmt, cwd=tmp_path)
        assert "r2" in out.stdout and keys["r2"] not in out.stdout, fmt
    run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--format", "json", "-o", "t.json", cwd=tmp_path
    )
    bundle = run_k3diff(
        "report", "cmp.json", "run/samples.jsonl", "t.json", "--out", "b", cwd=tmp_path
    )
    assert bundle.exit_code == 1, bundle.stderr
    summary = json.loads((tmp_path / "b/summary.json").read_text())
    assert summary["bottom_line"][0].startswith("FAIL: 1 regression candidate r2; ")
    table = summary["tables"]["records"]
    assert table["columns"][:2] == ["record", "key"]
    assert {(row[0], row[1]) for row in table["rows"]} == {(r, keys[r]) for r in prompts}
