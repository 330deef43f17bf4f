"""A mode's pooled MMD test blames only records whose own sides differ: a record whose base and
patch gave the very same texts (MMD² = 0) added nothing to the pooled statistic, so a pooled
rejection brought by other records never makes it a `distribution-shift` regression candidate
(in triage's verdict and in the bundle's re-reading of it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_support import run_k3diff

from triage.helpers import S, compare_texts, write_samples

SHIFTED = ("p1", "p2")
N = 12


def _run(tmp_path: Path) -> tuple[int, dict[str, Any]]:
    """p1, p2: reworded at temperature 1 (each rejects alone); p3: 'same' on both sides, always."""
    base = {key: [f"The answer is {i % 3}. {key}" for i in range(N)] for key in SHIFTED}
    patch = {key: [f"ANSWER={i % 3} !! {key}" for i in range(N)] for key in SHIFTED}
    base["p3"] = patch["p3"] = ["same"] * N
    cmp = compare_texts(tmp_path, {key: (base[key][0], patch[key][0]) for key in base})
    samples = [
        S(side, key, text)
        for key in base
        for side, texts in (("base", base[key]), ("patch", patch[key]))
        for text in texts
    ]
    log = write_samples(tmp_path / "run" / "samples.jsonl", samples, params={"temperature": 1})
    made = run_k3diff(
        "triage", str(cmp), str(log), "--format", "json", "-o", "t.json", cwd=tmp_path
    )
    return made.exit_code, json.loads((tmp_path / "t.json").read_text())


def test_a_record_whose_sides_agree_is_not_blamed_for_the_pooled_shift(tmp_path: Path) -> None:
    code, document = _run(tmp_path)
    assert code == 1
    records = {r["key"]: r for r in document["records"]}
    for key in SHIFTED:  # every patch output is new: the novelty test blames them first
        assert records[key]["category"] == "patch-outside-base"
    same = records["p3"]
    test = same["modes"][0]["distribution"]
    # The pooled test over the three records rejects (two of them moved completely) ...
    assert test["pooled_records"] == 3 and test["pooled_p_adjusted"] <= 0.05
    # ... but p3's own texts are one and the same on both sides: MMD² = 0, p = 1.
    assert test["statistic"] == 0 and test["p"] == 1
    assert same["category"] == "match"
    assert "another record's shift: this record's MMD² is 0" in same["reason"]
    assert document["summary"].get("distribution-shift", 0) == 0


def test_the_bundle_reads_the_pooled_rejection_the_same_way(tmp_path: Path) -> None:
    _run(tmp_path)
    made = run_k3diff(
        "report", "cmp.json", "run/samples.jsonl", "t.json", "--out", "b", cwd=tmp_path
    )
    assert made.exit_code == 1, made.stderr
    summary = json.loads((tmp_path / "b" / "summary.json").read_text())
    rows = {row["evidence"]: row for row in summary["matrix"]}
    assert "2 shifted (p1, p2)" in rows["nondeterminism follow-up"]["finding"]
