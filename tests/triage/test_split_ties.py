"""Split lines when no output is modal (found by the new-user trial): with every output
distinct, "19 other outputs leave the modal one (1 sample)" named an arbitrary output modal and
was read as a shift from it. Where the most common outputs tie, triage (text, Markdown) and the
bundle say so, and that the others are measured from the first sampled; the JSON is unchanged."""

from __future__ import annotations

import json
from pathlib import Path

from cli_support import run_k3diff

from .helpers import compare_texts, side, write_samples


def _run(tmp_path: Path, base: list[str], patch: list[str]) -> tuple[str, str, Path]:
    cmp = compare_texts(tmp_path, {"q": (base[0], patch[0])})
    log = write_samples(
        tmp_path / "run" / "samples.jsonl", side("q", "base", base) + side("q", "patch", patch)
    )
    text = run_k3diff("triage", cmp, log)
    markdown = run_k3diff("triage", cmp, log, "--format", "markdown")
    made = run_k3diff("triage", cmp, log, "--format", "json", "-o", tmp_path / "triage.json")
    assert text.exit_code == markdown.exit_code == made.exit_code, text.stderr
    return text.stdout, markdown.stdout, tmp_path / "triage.json"


def test_no_output_repeats_is_said_not_a_modal_one(tmp_path: Path) -> None:
    base = ["A red fox", "A red cat", "B blue", "A red fog"]
    text, markdown, triage = _run(tmp_path, base, ["A red fox"] * 4)
    said = (
        "base serial: no output repeats (4 outputs, 1 sample each); measured from the first "
        "sampled, the 3 other outputs split off at character 0 (logprob margin unknown, 1 sample), "
        "character 6 (logprob margin unknown, 1 sample), character 8 (logprob margin unknown, 1 sample)"
    )
    assert f"q: split {said}" in text
    assert said in markdown
    assert "modal one" not in text + markdown
    tree = json.loads(triage.read_text())["records"][0]["modes"][0]["splits"]["base"]
    assert tree["modal_samples"] == 1 and len(tree["branches"]) == 3  # JSON as before
    bundle = tmp_path / "bundle"
    made = run_k3diff("report", tmp_path / "cmp.json", triage, "--out", bundle)
    assert made.exit_code in (0, 1), made.stderr
    report = (bundle / "REPORT.md").read_text()
    assert (
        "the base gave 3 other outputs on 1 record besides its first sampled one (no output was "
        "more common than another); margins where they parted from it unknown"
    ) in report
    assert "modal output" not in report


def test_a_tie_of_repeated_outputs_is_said(tmp_path: Path) -> None:
    base = ["A red fox", "A red cat", "A red fox", "A red cat", "B"]
    text, _, _ = _run(tmp_path, base, ["A red fox"] * 5)
    assert (
        "base serial: no output is modal (2 outputs tie at 2 samples each); measured from the "
        "first sampled of them, the 2 other outputs split off at character 0 (logprob margin unknown, "
        "1 sample), character 6 (logprob margin unknown, 2 samples)"
    ) in text


def test_a_modal_output_is_worded_as_before(tmp_path: Path) -> None:
    base = ["A red fox", "A red cat", "A red fox"]
    text, _, _ = _run(tmp_path, base, ["A red fox"] * 3)
    assert (
        "base serial: 1 other output leaves the modal one (2 samples) at character 6 "
        "(logprob margin unknown, 1 sample)"
    ) in text
