"""The α a telemetry document was judged at (alpha60, review60a): `telemetry --fail-on
acceptance-drop --alpha 0.001` hid a moderate drop (Holm p 0.016 at draft position 3) and
the bundle never said that the run used α = 0.001. Now the bundle names the α beside the
verdict, `report --fail-on acceptance-drop` imposes the gate at the house α (telemetry's
default) from the document's units, and an α outside (0, 1) is refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff, run_telemetry

from .test_acceptance_gate import BASE_RATES, _sample, servers

__all__ = ["servers"]

MODERATE_RATES = "0.8,0.65,0.4,0.35"
"""Position 3's conditional acceptance drops from 0.5 to 0.4: Holm p about 0.016 in 20
windows a side, a drop at 0.05, none at 0.001."""
NAMED = "t.json judged at α = 0.001 (default 0.05)"


def _moderate(servers: Any, tmp_path: Path, *args: str) -> dict[str, Any]:
    log = _sample(tmp_path, servers(BASE_RATES, MODERATE_RATES), repeats=10)
    code, doc, _ = run_telemetry(log, "--fail-on", "acceptance-drop", *args)
    (tmp_path / "t.json").write_text(json.dumps(doc))
    return {"code": code, "doc": doc}


def _report(tmp_path: Path, *args: str) -> Any:
    return run_k3diff("report", "t.json", "--out", "bundle", *args, cwd=tmp_path)


def _bundle(tmp_path: Path) -> tuple[dict[str, Any], str, str]:
    where = tmp_path / "bundle"
    summary = json.loads((where / "summary.json").read_text())
    return summary, (where / "REPORT.md").read_text(), (where / "report.html").read_text()


def test_a_run_at_alpha_0_001_is_named_beside_the_verdict(servers: Any, tmp_path: Path) -> None:
    run = _moderate(servers, tmp_path, "--alpha", "0.001")
    assert run["code"] == 0 and run["doc"]["alpha"] == 0.001  # the drop hidden
    result = _report(tmp_path)
    assert result.exit_code == 0, result.stderr
    summary, markdown, html = _bundle(tmp_path)
    # Right under the verdict line, not only in a table.
    assert summary["bottom_line"][1] == NAMED
    assert NAMED in summary["qualifications"]
    bottom = markdown.split("## Evidence matrix")[0]
    assert f"- {NAMED}" in bottom
    assert NAMED in html.split("Evidence matrix")[0]


def test_the_imposed_gate_runs_at_the_house_alpha(servers: Any, tmp_path: Path) -> None:
    _moderate(servers, tmp_path, "--alpha", "0.001")
    result = _report(tmp_path, "--fail-on", "acceptance-drop")
    assert result.exit_code == 1, result.stderr
    summary, markdown, _ = _bundle(tmp_path)
    assert summary["bottom_line"][0].startswith("FAIL: telemetry/coverage (t.json)")
    assert (
        f"{NAMED}; the acceptance gate imposed at report time ran at α = 0.05"
        in summary["bottom_line"]
    )
    assert "run from the units the document records at alpha 0.05 (the document's own " in markdown
    assert "acceptance-drop: position 3:" in markdown and "vs alpha 0.05" in markdown


def test_a_gate_at_the_default_alpha_is_used_as_it_is(servers: Any, tmp_path: Path) -> None:
    run = _moderate(servers, tmp_path)
    assert run["code"] == 1
    plain = _report(tmp_path)
    plain_summary, _, _ = _bundle(tmp_path)
    gated = _report(tmp_path, "--fail-on", "acceptance-drop")
    gated_summary, markdown, _ = _bundle(tmp_path)
    assert plain.exit_code == gated.exit_code == 1
    assert plain_summary["bottom_line"] == gated_summary["bottom_line"]
    assert "judged at α" not in markdown and "imposed at report time" not in markdown


@pytest.mark.parametrize("gated", [True, False])
@pytest.mark.parametrize("alpha", [0, 1, -0.05, 1.5, "NaN", "Infinity", "-Infinity"])
def test_an_alpha_outside_0_1_is_refused(
    servers: Any, tmp_path: Path, alpha: Any, gated: bool
) -> None:
    """With no gate nothing else in the document contradicts the edit: before, 1.5 was read
    as a level (intervals 'at -50 %')."""
    log = _sample(tmp_path, servers(BASE_RATES, MODERATE_RATES), repeats=10)
    _, doc, _ = run_telemetry(log, *(("--fail-on", "acceptance-drop") if gated else ()))
    doc["alpha"] = alpha
    (tmp_path / "t.json").write_text(json.dumps(doc))
    result = _report(tmp_path)
    assert result.exit_code == 2, result.stdout + result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert "t.json: field 'alpha' must be a number strictly between 0 and 1" in line, line


def test_extreme_alphas_are_refused_or_judged_undecided(servers: Any, tmp_path: Path) -> None:
    """small79 (after aa78's triage overflow at a tiny α): telemetry's `--alpha` at the edges
    of a float is either refused (exit 2, one line naming the option) or judged; a level no
    permutation of the units can reach is acceptance-undecided (exit 1), never a pass and never
    an internal error; the JSON document stays JSON (no Infinity/NaN)."""
    log = _sample(tmp_path, servers(BASE_RATES, MODERATE_RATES), repeats=10)
    for alpha in ("0", "1", "nan", "inf", "-0.1", "-inf", "1e400"):
        result = run_k3diff("telemetry", log, "--fail-on", "acceptance-drop", "--alpha", alpha)
        assert result.exit_code == 2, (alpha, result.stderr)
        assert result.stderr.count("\n") == 1 and "--alpha" in result.stderr, result.stderr
    for alpha in ("5e-324", "1e-320", "1e-308", "1e-17"):
        code, doc, text = run_telemetry(log, "--fail-on", "acceptance-drop", "--alpha", alpha)
        assert code == 1, (alpha, text)
        assert [f["name"] for f in doc["acceptance_gate"]["findings"]] == ["acceptance-undecided"]
        assert "Infinity" not in json.dumps(doc) and "NaN" not in json.dumps(doc)
