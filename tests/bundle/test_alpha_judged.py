"""The α a triage document was judged at (alpha60): named in the bundle's bottom line when it
is not `triage --alpha`'s default, and an α outside (0, 1) refused, naming the file and the
field. The documents are written by `k3diff triage` on the evidence of `data/triage_3e8bbca`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff

from .helpers import current_header

EVIDENCE = Path(__file__).parent / "data" / "triage_3e8bbca" / "base_flaky"
INPUTS = ("cmp.json", "run/samples.jsonl", "t.json")


def _triage(tmp_path: Path, *args: str) -> Path:
    where = tmp_path / "evidence"
    shutil.copytree(EVIDENCE, where)
    current_header(where / "run" / "samples.jsonl")  # a log without it holds its records
    made = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", *args, "--format", "json", "-o", "t.json",
        cwd=where,
    )  # fmt: skip
    assert made.exit_code == 0, made.stderr
    return where


def _summary(where: Path) -> Any:
    return json.loads((where / "bundle" / "summary.json").read_text())


def test_a_triage_at_another_alpha_is_named_beside_the_verdict(tmp_path: Path) -> None:
    where = _triage(tmp_path, "--alpha", "0.01")
    result = run_k3diff("report", *INPUTS, "--out", "bundle", cwd=where)
    assert result.exit_code == 0, result.stderr
    named = "t.json judged at α = 0.01 (default 0.05)"
    summary = _summary(where)
    assert summary["bottom_line"][1] == named
    assert named in summary["qualifications"]
    markdown = (where / "bundle" / "REPORT.md").read_text()
    assert f"- {named}" in markdown.split("## Evidence matrix")[0]
    html = (where / "bundle" / "report.html").read_text()
    assert named in html.split("Evidence matrix")[0]


def test_a_triage_at_the_default_alpha_is_not_named(tmp_path: Path) -> None:
    where = _triage(tmp_path)
    assert run_k3diff("report", *INPUTS, "--out", "bundle", cwd=where).exit_code == 0
    assert not any("judged at α" in line for line in _summary(where)["bottom_line"])


@pytest.mark.parametrize("alpha", [0, 1, -0.01, 2, "NaN"])
def test_a_triage_alpha_outside_0_1_is_refused(tmp_path: Path, alpha: Any) -> None:
    where = _triage(tmp_path)
    document = json.loads((where / "t.json").read_text())
    document["alpha"] = alpha
    (where / "t.json").write_text(json.dumps(document))
    result = run_k3diff("report", *INPUTS, "--out", "bundle", cwd=where)
    assert result.exit_code == 2, result.stdout + result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert "t.json: field 'alpha' must be a number strictly between 0 and 1" in line, line
