"""Records whose requests sampled (temperature above 0) are said to be one draw a side beside
every verdict: text, Markdown, JSON `sampled` and the bundle's records row (hunt75: two servers
answering `temperature: 0.7` alike passed with nothing said of it; the exit code is unchanged)."""

from __future__ import annotations

import json
from pathlib import Path

from cli_support import run_k3diff

SAID = (
    "2 of 3 paired records sampled (temperature 0.7, 1 with a seed): each side's answer is one "
    "draw, so a match there proves little and a difference may be sampling noise; sample them "
    "repeatedly (k3diff sample, then k3diff triage)"
)


def _captures(folder: Path, temperature: float) -> None:
    lines = [
        {"key": "a", "prompt": "p", "text": "x", "temperature": temperature},
        {"key": "b", "prompt": "q", "text": "y", "temperature": 0},
        {"key": "c", "prompt": "r", "text": "z", "temperature": temperature, "seed": 1},
    ]
    text = "".join(json.dumps(line) + "\n" for line in lines)
    (folder / "base.jsonl").write_text(text)
    (folder / "patch.jsonl").write_text(text)


def test_a_sampled_match_is_said_to_prove_little(tmp_path: Path) -> None:
    _captures(tmp_path, 0.7)
    args = ("responses", "base.jsonl", "patch.jsonl")
    text = run_k3diff(*args, cwd=tmp_path)
    assert text.exit_code == 0, text.stderr
    assert text.stdout.rstrip().endswith(f"result: no paired record differs; {SAID} (exit 0)")
    markdown = run_k3diff(*args, "--format", "markdown", cwd=tmp_path)
    assert f"; {SAID} (exit 0)**" in markdown.stdout
    written = run_k3diff(*args, "--format", "json", "-o", "cmp.json", cwd=tmp_path)
    assert written.exit_code == 0, written.stderr
    document = json.loads((tmp_path / "cmp.json").read_text())
    assert document["sampled"] == {"records": 2, "paired": 3, "seeded": 1, "temperatures": [0.7]}
    bundle = run_k3diff("report", "cmp.json", "--out", "bundle", cwd=tmp_path)
    assert bundle.exit_code == 0, bundle.stderr
    assert f"- {SAID}\n" in (tmp_path / "bundle" / "REPORT.md").read_text()


def test_greedy_requests_say_nothing(tmp_path: Path) -> None:
    _captures(tmp_path, 0)
    run = run_k3diff("responses", "base.jsonl", "patch.jsonl", "--format", "json", cwd=tmp_path)
    assert run.exit_code == 0, run.stderr
    assert "sampled" not in json.loads(run.stdout)


def test_an_impossible_note_is_refused(tmp_path: Path) -> None:
    _captures(tmp_path, 0.7)
    run_k3diff(
        "responses", "base.jsonl", "patch.jsonl", "--format", "json", "-o", "c.json", cwd=tmp_path
    )
    document = json.loads((tmp_path / "c.json").read_text())
    document["sampled"]["records"] = 4
    (tmp_path / "c.json").write_text(json.dumps(document))
    refused = run_k3diff("report", "c.json", "--out", "bundle", cwd=tmp_path)
    assert refused.exit_code == 2
    assert refused.stderr == (
        "k3diff: error: c.json: field 'sampled.records' must count 1 to 'paired' records, of "
        "which 'seeded' some\n"
    )
