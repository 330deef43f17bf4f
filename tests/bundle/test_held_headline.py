"""The bundle's headline says why a held record fails (newuser59b): a sampled run held no-power
read "FAIL: text differs on 3 records" while its detail line said no-power. A run that fails
on held records (no regression candidate) leads with the hold, its cause and what would decide
it; the comparison's differing records follow."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_support import run_k3diff
from triage.helpers import S, compare_texts, write_samples


def _bundle(
    where: Path, samples: list[S], params: dict[str, Any], captured: tuple[str, str]
) -> str:
    compare_texts(where, {"q": captured})
    write_samples(where / "run" / "samples.jsonl", samples, params=params)
    triage = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--format", "json", "-o", "t.json", cwd=where
    )
    assert triage.exit_code == 1, triage.stderr
    result = run_k3diff(
        "report", "cmp.json", "run/samples.jsonl", "t.json", "--out", "b", cwd=where
    )
    assert result.exit_code == 1, result.stderr
    first: str = json.loads((where / "b" / "summary.json").read_text())["bottom_line"][0]
    assert first == (where / "b" / "REPORT.md").read_text().split("**")[1]
    return first


def _more(more: int) -> str:
    return f"{more:,} more sample{'s' if more != 1 else ''}"


def test_a_no_power_hold_leads_the_headline(tmp_path: Path) -> None:
    answers = {"base": ["The answer is 3.", "It is 5.", "Five."], "patch": ["8", "Eight.", "8!"]}
    samples = [S(side, "q", text) for side, texts in answers.items() for text in texts]
    first = _bundle(tmp_path, samples, {"temperature": 1}, ("The answer is 1.", "9"))
    more = json.loads((tmp_path / "t.json").read_text())["records"][0]["more_samples"]
    assert first.startswith(
        f"FAIL: 1 record held: no power at --shift 35 % (q; {_more(more)} a side "
        "would decide it); text differs on 1 record: q; "
    ), first


def test_a_novel_undecided_hold_leads_the_headline(tmp_path: Path) -> None:
    samples = [S("base", "q", t) for t in "ABA"] + [S("patch", "q", "C") for _ in range(3)]
    first = _bundle(tmp_path, samples, {"temperature": 0}, ("A", "C"))
    more = json.loads((tmp_path / "t.json").read_text())["records"][0]["more_samples"]
    assert first.startswith(
        "FAIL: 1 record held: a patch output the base never gave, undecided at this n "
        f"(q; {_more(more)} a side would decide it); text differs on 1 record: q; "
    ), first
