"""The triage row counts each record in its own kind of difference, as the records row does:
before (left68) "text differs on N of M records" counted every record that was not a match,
so a failed request and two records in one capture only beside one changed text read "text
differs on 4 of 5 records"."""

from __future__ import annotations

import json
from pathlib import Path

from cli_support import run_k3diff
from triage.helpers import S, write_samples


def _rows(path: Path, rows: list[dict[str, str]]) -> None:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))


def test_the_triage_row_says_each_kind_of_difference_apart(tmp_path: Path) -> None:
    texts = dict(zip("abcde", "vwxyz", strict=True))
    _rows(
        tmp_path / "base.jsonl", [{"id": k, "prompt": f"p{k}", "text": t} for k, t in texts.items()]
    )
    _rows(
        tmp_path / "patch.jsonl",
        [
            {"id": "a", "prompt": "pa", "error": "HTTP 500"},
            {"id": "b", "prompt": "pb", "text": "changed"},
            {"id": "c", "prompt": "pc", "text": "x"},
        ],
    )
    made = run_k3diff(
        "responses", "base.jsonl", "patch.jsonl", "--key", "id", "--allow-unpaired",
        "--format", "json", "-o", "cmp.json", cwd=tmp_path,
    )  # fmt: skip
    assert made.exit_code == 1, made.stderr
    statuses = [r["status"] for r in json.loads((tmp_path / "cmp.json").read_text())["records"]]
    assert statuses == ["error", "text-differs", "match", "only-base", "only-base"]
    patch_texts = {**texts, "b": "changed"}
    samples = [
        S(side, key, (texts if side == "base" else patch_texts)[key])
        for key in texts
        for side in ("base", "patch")
        for _ in range(3)
    ]
    write_samples(tmp_path / "run" / "samples.jsonl", samples)
    triage = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--format", "json", "-o", "t.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert triage.exit_code == 1, triage.stderr
    bundle = run_k3diff(
        "report", "cmp.json", "run/samples.jsonl", "t.json", "--out", "b", cwd=tmp_path
    )
    assert bundle.exit_code == 1, bundle.stderr
    summary = json.loads((tmp_path / "b" / "summary.json").read_text())
    (row,) = [r for r in summary["matrix"] if r["evidence"] == "nondeterminism follow-up"]
    records = json.loads((tmp_path / "t.json").read_text())["records"]
    categories = sorted(r["category"] for r in records if r["comparison_status"] != "match")
    assert categories == ["deterministic-divergence"] + ["inconclusive"] * 3
    assert (
        "text differs on 1 of 5 records, a request failed on 1 (a), 2 in one capture only "
        "(d, e): 3 inconclusive, 1 deterministic divergence (1 regression candidate)"
        in row["finding"]
    ), row["finding"]
