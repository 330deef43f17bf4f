"""stop 62: a run past the acceptance gate's caps is gated on blocks of consecutive units
(`k3diff.telemetry.blocks`), where `--fail-on acceptance-drop` was refused ("gate a smaller
run"); the document records the blocks, their size and the units before blocking, and
`report` runs the same gate again from them (a forged size, unit count or p is refused). The
caps are lowered here (the module's, as `report` reads them in-process) so that newuser59's
20 windows a side are past them."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff, run_telemetry

from .test_gate_forged import _broken, _refused, _report, servers

__all__ = ["servers"]

BLOCKS = sys.modules["k3diff.telemetry.blocks"]


def _side(doc: dict[str, Any], side: str) -> dict[str, Any]:
    return next(u for u in doc["acceptance_units"] if u["side"] == side)


@pytest.fixture
def past_the_caps(monkeypatch: pytest.MonkeyPatch) -> None:
    # 20 windows a side at 4 positions: 200 units over the gate's comparisons; blocks of 2
    # (10 a side, 100) fit.
    monkeypatch.setattr(BLOCKS, "GATE_MAX_WORK", 100)


@pytest.mark.usefixtures("past_the_caps")
def test_a_run_past_the_caps_is_gated_on_blocks_and_report_reproduces_it(
    servers: Any, tmp_path: Path
) -> None:
    doc = _broken(servers, tmp_path, "--fail-on", "acceptance-drop")
    gate = doc["acceptance_gate"]
    assert gate["block"] == 2
    for side in ("base", "patch"):
        units = _side(doc, side)
        assert (units["block"], units["units"]) == (2, [20, 20])
        assert len(units["tokens"]) == len(units["positions"]) == 10
    assert {(t["units"]["base"], t["units"]["patch"]) for t in gate["tests"]} == {(10, 10)}
    (drop,) = (f for f in gate["findings"] if f["position"] == 3)
    assert drop["name"] == "acceptance-drop"
    assert "in 10 blocks of 2 units" in drop["detail"], drop["detail"]
    # The statistic is the one of the units: the rates are the speculation totals'.
    pooled = gate["tests"][0]
    spec = {s["side"]: s for s in doc["speculation"]}
    assert pooled["position"] is None
    assert sum(a for a, _ in _side(doc, "base")["tokens"]) == spec["base"]["accepted"]
    result = _report(tmp_path, doc)
    assert result.exit_code == 1, result.stderr
    assert "acceptance-drop: position 3:" in (tmp_path / "bundle" / "REPORT.md").read_text()


@pytest.mark.usefixtures("past_the_caps")
def test_the_gate_past_the_caps_is_imposed_at_report_time(servers: Any, tmp_path: Path) -> None:
    doc = _broken(servers, tmp_path)
    assert doc["acceptance_gate"] is None and _side(doc, "patch")["block"] == 2
    imposed = _report(tmp_path, doc, "--fail-on", "acceptance-drop")
    assert imposed.exit_code == 1, imposed.stderr
    assert "blocks of 2 units" in (tmp_path / "bundle" / "REPORT.md").read_text()


@pytest.mark.usefixtures("past_the_caps")
def test_a_forged_unit_count_is_refused(servers: Any, tmp_path: Path) -> None:
    doc = _broken(servers, tmp_path, "--fail-on", "acceptance-drop")
    _side(doc, "patch")["units"] = [40, 20]
    line = _refused(_report(tmp_path, doc))
    assert "patch: 40 token and 20 position units in blocks of 2 are 20 and 10 blocks" in line


def _merged(pairs: list[Any]) -> list[Any]:
    """Blocks of 2 merged pairwise (into blocks of 4)."""
    merged = []
    for first, second in zip(pairs[::2], pairs[1::2], strict=True):
        if isinstance(first[1], list):
            length = max(len(first[1]), len(second[1]))
            padded = [a + [0] * (length - len(a)) for a in (first[1], second[1])]
            merged.append([first[0] + second[0], [x + y for x, y in zip(*padded, strict=True)]])
        else:
            merged.append([first[0] + second[0], first[1] + second[1]])
    return merged


@pytest.mark.usefixtures("past_the_caps")
def test_a_forged_block_size_is_refused(servers: Any, tmp_path: Path) -> None:
    # Blocks of 4 (5 a side: fewer units, less power) fit too, but the rule takes the smallest
    # that fits; the counts still add up.
    doc = _broken(servers, tmp_path)
    for side in doc["acceptance_units"]:
        side["block"] = 4
        side["tokens"], side["positions"] = _merged(side["tokens"]), _merged(side["positions"])
    line = _refused(_report(tmp_path, doc, "--fail-on", "acceptance-drop"))
    assert "blocks of 4 units, but the units it states need 2" in line, line


@pytest.mark.usefixtures("past_the_caps")
def test_blocks_of_a_run_within_the_caps_are_refused(
    servers: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = _broken(servers, tmp_path, "--fail-on", "acceptance-drop")
    monkeypatch.setattr(BLOCKS, "GATE_MAX_WORK", 200)
    line = _refused(_report(tmp_path, doc))
    assert "blocks of 2 units, but the units it states fit the caps unblocked" in line, line


@pytest.mark.usefixtures("past_the_caps")
def test_a_forged_p_past_the_caps_is_refused(servers: Any, tmp_path: Path) -> None:
    doc = _broken(servers, tmp_path, "--fail-on", "acceptance-drop")
    gate = doc["acceptance_gate"]
    for test in gate["tests"]:
        test["p"], test["p_adjusted"] = 0.9, 1.0
    gate["findings"], doc["verdict"] = [], {"ok": True, "exit_code": 0}
    line = _refused(_report(tmp_path, doc))
    assert "acceptance_gate.tests[0].p is 0.9 but the gate run again on acceptance_units" in line


@pytest.mark.usefixtures("past_the_caps")
def test_a_gate_of_units_over_blocks_is_refused(servers: Any, tmp_path: Path) -> None:
    doc = _broken(servers, tmp_path, "--fail-on", "acceptance-drop")
    del doc["acceptance_gate"]["block"]
    line = _refused(_report(tmp_path, doc))
    assert "acceptance_gate tests units, but the gate run again on acceptance_units" in line


def test_past_the_unit_cap_the_gate_runs_on_blocks(
    servers: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(BLOCKS, "GATE_MAX_UNITS", 5)
    monkeypatch.setattr(sys.modules["k3diff.documents.telemetryunits"], "GATE_MAX_UNITS", 5)
    doc = _broken(servers, tmp_path, "--fail-on", "acceptance-drop")
    assert doc["acceptance_gate"]["block"] == 4
    assert [len(_side(doc, "base")["tokens"])] == [5]
    log = tmp_path / "run" / "samples.jsonl"
    result = run_k3diff("telemetry", log, "--fail-on", "acceptance-drop")
    assert result.exit_code == 1, result.stderr
    assert "blocks of 4 units" in result.stdout


@pytest.mark.usefixtures("past_the_caps")
def test_a_passing_gate_on_blocks_says_blocks_and_its_n(servers: Any, tmp_path: Path) -> None:
    # newuser62b: past the caps, a gate that found no drop said "these units could have shown
    # one" and the bundle "permutation tests over units", naming neither the blocks nor n.
    from .test_acceptance_gate import BASE_RATES, _sample

    log = _sample(tmp_path, servers(BASE_RATES, BASE_RATES), repeats=10)
    code, doc, _ = run_telemetry(log, "--fail-on", "acceptance-drop")
    assert code == 0 and doc["acceptance_gate"]["block"] == 2
    text = run_k3diff("telemetry", log, "--fail-on", "acceptance-drop")
    assert "these blocks of 2 units could have shown one down to a Holm p of" in text.stdout
    result = _report(tmp_path, doc)
    assert result.exit_code == 0, result.stderr
    report = (tmp_path / "bundle" / "REPORT.md").read_text()
    assert (
        "Holm over 5 permutation tests (pooled and 4 draft positions) over blocks of 2 "
        "consecutive units (vLLM windows); pooled, 10 base and 10 patch blocks" in report
    )
