"""A comparison's records are checked against their own digests: a record edited to read as a
match while its texts' digests differ is refused by `k3diff report`."""

from __future__ import annotations

import json
from pathlib import Path

from cli_support import run_k3diff
from triage.helpers import compare_texts


def test_a_record_edited_into_a_match_is_refused(tmp_path: Path) -> None:
    compare_texts(tmp_path, {"q0": ("same", "same"), "q1": ("base text", "patch text")})
    lines = (tmp_path / "cmp.json").read_text().splitlines()
    document = json.loads("\n".join(lines))
    q1 = next(r for r in document["records"] if r["key"] == "q1")
    assert q1["base"]["text_xxh3"] != q1["patch"]["text_xxh3"]
    q1.update(status="match", text_match=True, normalized_match=False, divergence=None)
    summary = document["summary"]
    summary.update(differing=0, exact_match=2)
    summary["by_status"] = {"match": 2}
    document["verdict"] = {**document["verdict"], "ok": True, "exit_code": 0}
    (tmp_path / "edited.json").write_text(json.dumps(document))
    result = run_k3diff("report", "edited.json", "--out", "b", cwd=tmp_path)
    assert result.exit_code == 2, result.stdout
    assert "record 'q1' says its texts are equal but their digests differ" in result.stderr
    assert run_k3diff("report", "cmp.json", "--out", "b0", cwd=tmp_path).exit_code == 1
