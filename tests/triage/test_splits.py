"""Where and why outputs split, on real runs against the scripted engines with logprobs: the
split tree of each unstable side (the position where each distinct output leaves the modal one,
how many samples took each branch) and the modal output's margin there, checked against values
computed here from the sample log; characters when the server sends no tokens."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from cli_support import run_k3diff

LOGPROBS = ("--param", "logprobs=2")
# Serially the base cycles through three answers; "cat"/"dog" (word 1) and "sat"/"ran" (word 2)
# are nearly tied in its logprobs.
FLAKY_BASE = {
    "p1": {
        "alone": ["The cat sat", "The dog sat", "The cat sat", "The cat ran"],
        "near_ties": [1, 2],
    }
}


def _samples(log: Path) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in log.read_text().splitlines()[1:]]
    return [line for line in lines if "schema" not in line]


def _expected_tree(log: Path, side: str) -> list[tuple[int, int, float | None]]:
    """(position, samples, margin) of each non-modal output, from the log alone: the first
    token at which its tokens differ from the modal output's, and the modal sample's own margin
    (its chosen logprob minus the runner-up's) there."""
    samples = [s for s in _samples(log) if s["side"] == side and s["error"] is None]
    counts = Counter(s["text"] for s in samples)
    modal_text = counts.most_common(1)[0][0]
    modal = next(s for s in samples if s["text"] == modal_text)["trace"]
    found = []
    for text, count in counts.items():
        if text == modal_text:
            continue
        other = next(s for s in samples if s["text"] == text)["trace"]
        position = next(
            i
            for i, (a, b) in enumerate(zip(modal["tokens"], other["tokens"], strict=False))
            if a != b
        )
        found.append((position, count, modal["margins"][position]))
    return sorted(found)


def test_near_tie_splits_of_the_base_are_placed_and_measured(scripted: Any) -> None:
    run = scripted(
        FLAKY_BASE,
        {"p1": {"alone": ["The cat sat"]}},
        repeats=8,
        modes=("serial",),
        sample_args=LOGPROBS,
        capture_params={"logprobs": 2},
        prompts={"p1": "Tell me about A"},
    )
    assert run.triage.exit_code == 0, run.text
    line = next(s for s in _samples(run.log) if s["side"] == "base")
    assert line["trace"]["tokens"] == ["The", " cat", " sat"] or line["trace"]["tokens"] == [
        "The",
        " dog",
        " sat",
    ]
    assert line["trace"]["positions"] == line["trace"]["kept"] == 3
    mode = run.mode("p1", "serial")
    tree = mode["splits"]["base"]
    assert tree["unit"] == "token"
    shown = [(b["position"], b["samples"], b["margin"]) for b in tree["branches"]]
    assert shown == _expected_tree(run.log, "base")
    assert [(p, n) for p, n, _ in shown] == [(1, 2), (2, 2)]  # " dog" at 1, " ran" at 2
    assert all(abs(m - 0.02) < 1e-9 for _, _, m in shown)  # the scripted near tie
    assert tree["modal_samples"] == 4
    assert "patch" not in mode["splits"]  # the patch gave one output
    flags = run.record("p1")["flags"]
    assert "near-tie-splits" in flags and "wide-margin-split" not in flags
    assert (
        "p1: split base serial: 2 other outputs leave the modal one (4 samples) at token 1 "
        "(logprob margin 0.02, 2 samples), token 2 (logprob margin 0.02, 2 samples)"
    ) in run.text


def test_a_patch_that_moves_a_wide_margin_token_is_flagged(scripted: Any) -> None:
    run = scripted(
        FLAKY_BASE,
        {"p1": {"alone": ["The cat sat", "The cow sat"]}},  # "cat" is 4 nats ahead of "cow"
        repeats=8,
        modes=("serial",),
        sample_args=LOGPROBS,
        capture_params={"logprobs": 2},
        prompts={"p1": "Tell me about A"},
    )
    record = run.record("p1")
    assert "wide-margin-split" in record["flags"]
    assert "near-tie-splits" in record["flags"]  # the base's own splits are still near ties
    tree = run.mode("p1", "serial")["splits"]["patch"]
    shown = [(b["position"], b["samples"], b["margin"]) for b in tree["branches"]]
    assert shown == _expected_tree(run.log, "patch") == [(1, 4, 4.0)]


def test_without_tokens_the_tree_counts_characters_and_says_so(scripted: Any) -> None:
    run = scripted(
        FLAKY_BASE,
        {"p1": {"alone": ["The cat sat"]}},
        repeats=8,
        modes=("serial",),
        prompts={"p1": "Tell me about A"},
    )
    assert all("trace" not in s for s in _samples(run.log))
    tree = run.mode("p1", "serial")["splits"]["base"]
    assert tree["unit"] == "character"
    # "The cat sat" against "The dog sat" (offset 4) and "The cat ran" (offset 8).
    assert [(b["position"], b["margin"]) for b in tree["branches"]] == [(4, None), (8, None)]
    flags = run.record("p1")["flags"]
    assert "near-tie-splits" not in flags and "wide-margin-split" not in flags
    assert "at character 4 (logprob margin unknown, 2 samples)" in run.text


def test_the_bundle_says_how_the_base_split_and_plots_it(scripted: Any) -> None:
    run = scripted(
        FLAKY_BASE,
        {"p1": {"alone": ["The cat sat", "The cow sat"]}},
        repeats=8,
        modes=("serial",),
        sample_args=LOGPROBS,
        capture_params={"logprobs": 2},
        prompts={"p1": "Tell me about A"},
    )
    where = run.log.parent.parent
    log = run.log.relative_to(where)
    made = run_k3diff("triage", "cmp.json", log, "--format", "json", "-o", "triage.json", cwd=where)
    assert made.exit_code in (0, 1), made.stderr
    report = run_k3diff("report", "cmp.json", log, "triage.json", "--out", "bundle", cwd=where)
    assert report.exit_code in (0, 1), report.stderr
    summary = json.loads((where / "bundle/summary.json").read_text())
    line = next(s for s in summary["bottom_line"] if "other outputs" in s)
    assert (
        "the base gave 2 other outputs on 1 record besides its most common one; all parted from "
        "it at near-ties (margin < 0.1); the patch gave 1 other output on 1 record besides its "
        "first sampled one (no output was more common than another), parting from it at a wide "
        "margin"  # the patch's two answers tie, 4 samples each
    ) in line
    assert 'id="plot-splits"' in (where / "bundle/report.html").read_text()
