"""A telemetry document is checked against its own counts: an expected axis a side did not
exercise must stay listed (`k3diff report` refuses one edited to drop it and pass)."""

from __future__ import annotations

import json
from pathlib import Path

from cli_support import run_k3diff
from triage.helpers import side, write_samples


def test_a_telemetry_edited_to_drop_its_coverage_debt_is_refused(tmp_path: Path) -> None:
    write_samples(tmp_path / "run/samples.jsonl", side("k", "base", ["a"] * 3) + side(
        "k", "patch", ["a"] * 3
    ))  # fmt: skip
    made = run_k3diff(
        "telemetry", "run/samples.jsonl", "--expect", "cache-reuse", "--format", "json",
        "-o", "tele.json", cwd=tmp_path,
    )  # fmt: skip
    assert made.exit_code == 1, made.stderr
    document = json.loads((tmp_path / "tele.json").read_text())
    assert {gap["side"] for gap in document["not_exercised"]} == {"base", "patch"}
    document["not_exercised"] = [g for g in document["not_exercised"] if g["side"] == "base"]
    (tmp_path / "one.json").write_text(json.dumps(document))
    document["not_exercised"] = []
    document["verdict"] = {**document["verdict"], "ok": True, "exit_code": 0}
    (tmp_path / "none.json").write_text(json.dumps(document))
    for name in ("one.json", "none.json"):
        result = run_k3diff("report", name, "--out", f"b-{name}", cwd=tmp_path)
        assert result.exit_code == 2, (name, result.stdout)
        assert "the patch side has 0 cache hits but cache-reuse is not listed" in result.stderr
    assert run_k3diff("report", "tele.json", "--out", "b", cwd=tmp_path).exit_code == 1
