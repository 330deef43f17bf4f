"""`report` runs the acceptance gate again from the units the document records (forge60).

Before, `telemetry --fail-on acceptance-drop` wrote the gate's tests and findings but not the
per-unit counts, so `report` checked the findings against the stated p-values and trusted
those: a document whose p's were raised (Holm and findings made consistent) passed with exit
0; and a document with `fail_on` and `acceptance_gate` removed read as a run made without the
gate. Now every telemetry document records `acceptance_units` (per side, each unit's accepted
and drafted tokens and its drafts per position), `report` runs the gate again from them and
refuses (exit 2, one line naming the field) a gate or units that disagree, and the reviewer
imposes the gate at report time with `report --fail-on acceptance-drop`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_support import run_k3diff, run_telemetry

from .test_acceptance_gate import BASE_RATES, BROKEN_RATES, _sample, servers

__all__ = ["servers"]


def _broken(servers: Any, tmp_path: Path, *gate: str) -> dict[str, Any]:
    """newuser59's broken drafter, 10 serial repeats of 2 prompts a side (20 windows)."""
    log = _sample(tmp_path, servers(BASE_RATES, BROKEN_RATES), repeats=10)
    code, doc, _ = run_telemetry(log, *gate)
    assert code == (1 if gate else 0)
    return doc


def _report(tmp_path: Path, doc: dict[str, Any], *args: str) -> Any:
    (tmp_path / "t.json").write_text(json.dumps(doc))
    return run_k3diff("report", "t.json", "--out", "bundle", *args, cwd=tmp_path)


def _refused(result: Any) -> str:
    assert result.exit_code == 2, result.stdout + result.stderr
    (line,) = result.stderr.strip().splitlines()
    return str(line)


def test_raised_p_values_made_consistent_are_refused(servers: Any, tmp_path: Path) -> None:
    doc = _broken(servers, tmp_path, "--fail-on", "acceptance-drop")
    gate = doc["acceptance_gate"]
    assert {u["side"] for u in doc["acceptance_units"]} == {"base", "patch"}
    # The forger raises every p (no lower than the least its units allow), Holm-adjusts them
    # as report checks (0.9 times 5 tests, capped at 1), drops the findings, writes a pass.
    for test in gate["tests"]:
        test["p"], test["p_adjusted"] = 0.9, 1.0
    gate["findings"], doc["verdict"] = [], {"ok": True, "exit_code": 0}
    line = _refused(_report(tmp_path, doc))
    assert "acceptance_gate.tests[0].p is 0.9 but the gate run again on acceptance_units" in line


def test_the_honest_gate_is_run_again_and_fails(servers: Any, tmp_path: Path) -> None:
    doc = _broken(servers, tmp_path, "--fail-on", "acceptance-drop")
    result = _report(tmp_path, doc)
    assert result.exit_code == 1, result.stderr
    assert "acceptance-drop: position 3:" in (tmp_path / "bundle" / "REPORT.md").read_text()


def test_a_gate_without_its_units_is_refused(servers: Any, tmp_path: Path) -> None:
    doc = _broken(servers, tmp_path, "--fail-on", "acceptance-drop")
    del doc["acceptance_units"]
    line = _refused(_report(tmp_path, doc))
    assert "acceptance_gate is present but acceptance_units is missing or null" in line


def test_units_edited_to_pass_disagree_with_the_counts(servers: Any, tmp_path: Path) -> None:
    doc = _broken(servers, tmp_path, "--fail-on", "acceptance-drop")
    patch = next(u for u in doc["acceptance_units"] if u["side"] == "patch")
    patch["tokens"] = [[drafted, drafted] for _, drafted in patch["tokens"]]
    line = _refused(_report(tmp_path, doc))
    assert "acceptance_units.patch adds up to" in line and "but speculation says" in line


def test_fail_on_removed_is_failed_when_the_reviewer_asks(servers: Any, tmp_path: Path) -> None:
    doc = _broken(servers, tmp_path, "--fail-on", "acceptance-drop")
    doc["fail_on"], doc["acceptance_gate"] = [], None
    doc["verdict"] = {"ok": True, "exit_code": 0}
    # Read as a run made without the gate: the reviewer did not ask for it.
    assert _report(tmp_path, doc).exit_code == 0
    imposed = _report(tmp_path, doc, "--fail-on", "acceptance-drop")
    assert imposed.exit_code == 1, imposed.stderr
    report = (tmp_path / "bundle" / "REPORT.md").read_text()
    assert "acceptance gate imposed at report time" in report
    assert "acceptance-drop: position 3:" in report


def test_a_run_without_the_gate_is_gated_at_report_time(servers: Any, tmp_path: Path) -> None:
    doc = _broken(servers, tmp_path)
    assert doc["fail_on"] == [] and doc["acceptance_gate"] is None
    assert _report(tmp_path, doc).exit_code == 0
    assert _report(tmp_path, doc, "--fail-on", "acceptance-drop").exit_code == 1


def test_units_removed_too_cannot_pass_the_imposed_gate(servers: Any, tmp_path: Path) -> None:
    doc = _broken(servers, tmp_path, "--fail-on", "acceptance-drop")
    doc["fail_on"], doc["acceptance_gate"] = [], None
    doc["verdict"] = {"ok": True, "exit_code": 0}
    del doc["acceptance_units"]
    line = _refused(_report(tmp_path, doc, "--fail-on", "acceptance-drop"))
    assert line.startswith("k3diff: error: t.json: field 'acceptance_units' is missing or null")
    assert "re-run k3diff telemetry on the logs with --fail-on acceptance-drop" in line


def test_the_imposed_gate_needs_a_telemetry_document(tmp_path: Path) -> None:
    for side in ("base", "patch"):
        (tmp_path / f"{side}.jsonl").write_text(json.dumps({"id": "a", "text": "x"}) + "\n")
    compared = run_k3diff(
        "responses", "base.jsonl", "patch.jsonl", "--format", "json", "-o", "c.json", cwd=tmp_path
    )
    assert compared.exit_code == 0, compared.stderr
    result = run_k3diff(
        "report", "c.json", "--out", "bundle", "--fail-on", "acceptance-drop", cwd=tmp_path
    )
    line = _refused(result)
    assert "--fail-on acceptance-drop: no k3diff.telemetry/1 document among the inputs" in line


def test_position_units_edited_disagree_with_the_positions(servers: Any, tmp_path: Path) -> None:
    # The forger restores position 3 on the patch's units (every draft that reached 2 reaches
    # 3): the gate run again would pass it, but the units no longer add up to `positions`.
    doc = _broken(servers, tmp_path, "--fail-on", "acceptance-drop")
    patch = next(u for u in doc["acceptance_units"] if u["side"] == "patch")
    for _, at_least in patch["positions"]:
        at_least[2] = at_least[1]
    line = _refused(_report(tmp_path, doc))
    assert "acceptance_units.patch positions add up to other counts than positions" in line


def test_out_of_range_units_are_refused(servers: Any, tmp_path: Path) -> None:
    doc = _broken(servers, tmp_path)
    doc["acceptance_units"][0]["tokens"][0] = [1, 2**60]
    line = _refused(_report(tmp_path, doc))
    assert "field 'acceptance_units[0].tokens' must hold lists of 2 integers" in line, line
