"""A match at temperature > 0 (fix58 item 3): identical outputs clear a sampled record only where
each side gave the one output 2 or more times (degenerate outputs, which a patch that rewords
its answers never gives); one matching sample a side is held `no-power`, as is a patch on the
base's answers where the base varies; a capture pair alone (no samples) is the comparison's
match, which a rewording patch fails as unsampled."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import run_k3diff

from triage.helpers import S, compare_texts, write_samples

CASES: dict[str, tuple[str, str, list[str], list[str | None], int, str, bool]] = {
    # name: (base capture, patch capture, base samples, patch samples, exit, category, no-power)
    "one-a-side": ("A", "A", ["A"], ["A"], 1, "inconclusive", True),
    "two-a-side": ("A", "A", ["A", "A"], ["A", "A"], 0, "match", False),
    "three-a-side": ("A", "A", ["A"] * 3, ["A"] * 3, 0, "match", False),
    "base-varies": ("A", "A", ["A", "B", "C"], ["A", "A", "A"], 1, "inconclusive", True),
    "patch-once": ("A", "A", ["A", "A", "A"], ["A", None, None], 1, "inconclusive", True),
    "no-samples": ("A", "A", [], [], 0, "match", False),
    "reworded-one": ("A", "Z", ["A"], ["Z"], 1, "inconclusive", True),
    "reworded-two": ("A", "Z", ["A", "A"], ["Z", "Z"], 1, "deterministic-divergence", False),
    "reworded-none": ("A", "Z", [], [], 1, "inconclusive", False),
    # The patch's capture is another output than its two samples: it rewords, so the samples'
    # one output is no degenerate match (held capture-unexplained; was a match, exit 0).
    "capture-reworded": ("A", "Z", ["A", "A"], ["A", "A"], 1, "inconclusive", False),
}


@pytest.mark.parametrize("name", list(CASES))
def test_a_sampled_match_clears_only_on_two_or_more_outputs_a_side(
    tmp_path: Path, name: str
) -> None:
    base_capture, patch_capture, base, patch, code, category, held = CASES[name]
    cmp = compare_texts(tmp_path, {"q": (base_capture, patch_capture), "r": ("x", "x")})
    samples = [S("base", "q", t) for t in base] + [S("patch", "q", t) for t in patch]
    # r as many repeats as q: a side owes each record the run's repeats (samples71)
    repeats = max(len(base), len(patch)) or 3
    samples += [S(side, "r", "x") for side in ("base", "patch") for _ in range(repeats)]
    log = write_samples(tmp_path / "run" / "samples.jsonl", samples, params={"temperature": 1})
    result = run_k3diff("triage", str(cmp), str(log), "--format", "json", cwd=tmp_path)
    record = next(r for r in json.loads(result.stdout)["records"] if r["key"] == "q")
    assert (result.exit_code, record["category"], "no-power" in record["flags"]) == (
        code,
        category,
        held,
    ), record["reason"]


def test_one_sent_and_one_captured_a_side_is_a_match_under_capture_mode(tmp_path: Path) -> None:
    # Under --capture-mode serial the capture is one of the outputs: 2 identical a side.
    cmp = compare_texts(tmp_path, {"q": ("A", "A")})
    log = write_samples(
        tmp_path / "run" / "samples.jsonl",
        [S("base", "q", "A"), S("patch", "q", "A")],
        params={"temperature": 1},
    )
    result = run_k3diff(
        "triage", str(cmp), str(log), "--capture-mode", "serial", "--format", "json", cwd=tmp_path
    )
    document = json.loads(result.stdout)
    assert result.exit_code == 0, document["records"][0]["reason"]
    assert document["records"][0]["category"] == "match"
    (tmp_path / "t.json").write_text(result.stdout)
    out = run_k3diff("report", "t.json", "--out", "b", cwd=tmp_path)
    assert out.exit_code == 0, out.stdout + out.stderr
