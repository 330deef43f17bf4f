"""`k3diff telemetry --fail-on acceptance-drop`: newuser59's patch that broke the drafter at
draft position 3 passed CI (`Verdict: OK`). The gate tests per unit (a vLLM window), not per
token: a one-sided permutation test of the side labels, Holm across pooled and per-position
comparisons. Servers are real processes on loopback (`fake_vllm.py`: a `prometheus_client`
registry with vLLM's counter names), sampled by `k3diff sample`; p-values are recomputed here
by enumerating every split (`gate_support`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff, run_telemetry
from hypothesis import given, settings
from hypothesis import strategies as st
from server_support import loopback_script

from k3diff.telemetry.accounting import Accounts, SideCounts
from k3diff.telemetry.engines import SOURCE_VLLM
from k3diff.telemetry.gate import acceptance_gate

from .gate_support import exact_p, holm, units_of

FAKE = Path(__file__).with_name("fake_vllm.py")
BASE_RATES = "0.8,0.65,0.5,0.35"
BROKEN_RATES = "0.8,0.65,0.15,0.35"
"""newuser59's patch: position 3's conditional acceptance drops from 0.5 to 0.15."""


@pytest.fixture
def servers() -> Iterator[Any]:
    """Gives `start(base_rates, patch_rates)`: two fake vLLM servers, stopped by pid."""
    with ExitStack() as stack:

        def start(base: str, patch: str) -> tuple[str, str]:
            return (
                stack.enter_context(loopback_script(FAKE, base, "1")),
                stack.enter_context(loopback_script(FAKE, patch, "2")),
            )

        yield start


def _sample(tmp_path: Path, urls: tuple[str, str], repeats: int) -> Path:
    prompts = tmp_path / "prompts.jsonl"
    prompts.write_text(
        '{"id": "p1", "prompt": "The capital of France is"}\n'
        '{"id": "p2", "prompt": "Two plus two is"}\n'
    )
    out = tmp_path / "run"
    result = run_k3diff(
        "sample", "--base", urls[0], "--patch", urls[1], "--prompts", prompts,
        "--repeats", str(repeats), "--param", "temperature=0", "--out", out,
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    return out / "samples.jsonl"


def test_a_broken_drafter_fails_the_gate(servers: Any, tmp_path: Path) -> None:
    log = _sample(tmp_path, servers(BASE_RATES, BROKEN_RATES), repeats=10)
    # The screen alone (and --expect) cannot fail the run: newuser59's `Verdict: OK`.
    code, doc, text = run_telemetry(log, "--expect", "speculation", "--expect", "draft-lengths=1-4")
    assert code == 0 and doc["acceptance_gate"] is None and doc["fail_on"] == []
    assert "acceptance gate" not in text
    code, doc, text = run_telemetry(
        log, "--fail-on", "acceptance-drop", "--expect", "speculation",
        "--expect", "draft-lengths=1-4",
    )  # fmt: skip
    assert code == 1, text
    gate = doc["acceptance_gate"]
    lines = [json.loads(line) for line in log.read_text().splitlines()[1:]]
    assert [t["position"] for t in gate["tests"]] == [None, 1, 2, 3, 4]
    for test in gate["tests"]:
        base, patch = (
            units_of(lines, "base", test["position"]),
            units_of(lines, "patch", test["position"]),
        )
        assert (
            test["units"] == {"base": len(base), "patch": len(patch)} == {"base": 20, "patch": 20}
        )
        assert test["base"] == [sum(u[0] for u in base), sum(u[1] for u in base)]
        assert test["patch"] == [sum(u[0] for u in patch), sum(u[1] for u in patch)]
        # C(40, 20) splits: Monte Carlo, the observed counted, so never below 1 / (R + 1).
        assert not test["exact"] and test["p_min"] == 1 / (gate["resamples"] + 1)
        assert test["p"] >= test["p_min"]
    assert [t["p_adjusted"] for t in gate["tests"]] == pytest.approx(
        holm([t["p"] for t in gate["tests"]])
    )
    drops = {f["position"] for f in gate["findings"] if f["name"] == "acceptance-drop"}
    assert 3 in drops and 1 not in drops
    assert text.splitlines()[-1].startswith("Verdict: FAIL (exit 1): acceptance-drop")
    assert "position 3" in text.splitlines()[-1]
    three = next(f for f in gate["findings"] if f["position"] == 3)["detail"]
    assert "in 20 units" in three and "Holm" in three and "alpha 0.05" in three
    # The same data, read per token, is still there as a screen, unchanged.
    assert "Fisher p" in text and "a screen, not a per-request test" in text
    # The bundle re-derives the gate's findings: dropping them is refused.
    (tmp_path / "t.json").write_text(json.dumps(doc))
    bundle = run_k3diff("report", tmp_path / "t.json", "--out", tmp_path / "b")
    assert bundle.exit_code == 1, bundle.stderr
    report = (tmp_path / "b" / "REPORT.md").read_text()
    assert "acceptance-drop: position 3:" in report
    gate["findings"], doc["verdict"] = [], {"ok": True, "exit_code": 0}
    (tmp_path / "forged.json").write_text(json.dumps(doc))
    forged = run_k3diff("report", tmp_path / "forged.json", "--out", tmp_path / "b2")
    assert forged.exit_code == 2
    assert "acceptance gate lists no finding, but its tests" in forged.stderr


def test_p_values_are_the_exact_permutation_ones(servers: Any, tmp_path: Path) -> None:
    """6 windows a side: C(12, 6) = 924 splits, enumerated by the tool and here."""
    log = _sample(tmp_path, servers(BASE_RATES, BROKEN_RATES), repeats=3)
    code, doc, _ = run_telemetry(log, "--fail-on", "acceptance-drop")
    gate = doc["acceptance_gate"]
    lines = [json.loads(line) for line in log.read_text().splitlines()[1:]]
    pvalues = []
    for test in gate["tests"]:
        base, patch = (
            units_of(lines, "base", test["position"]),
            units_of(lines, "patch", test["position"]),
        )
        assert (len(base), len(patch)) == (6, 6) and test["exact"]
        assert test["p_min"] == pytest.approx(1 / 924)
        expected = float(exact_p(base, patch))
        assert test["p"] == pytest.approx(expected, rel=1e-9)
        pvalues.append(expected)
    adjusted = holm(pvalues)
    assert [t["p_adjusted"] for t in gate["tests"]] == pytest.approx(adjusted, rel=1e-9)
    drops = sorted((f["position"] or 0) for f in gate["findings"] if f["name"] == "acceptance-drop")
    assert drops == sorted(
        (t["position"] or 0) for t, a in zip(gate["tests"], adjusted, strict=True) if a <= 0.05
    )
    assert code == (1 if drops else 0)
    # A forged Holm p is refused too.
    gate["tests"][0]["p_adjusted"] = 1.0
    (tmp_path / "forged.json").write_text(json.dumps(doc))
    forged = run_k3diff("report", tmp_path / "forged.json", "--out", tmp_path / "b")
    assert forged.exit_code == 2 and "not Holm's of the tests' p's" in forged.stderr


def test_too_few_windows_hold_the_gate_undecided(servers: Any, tmp_path: Path) -> None:
    """2 windows a side: no split is rarer than 1 in 6, so no drop could be shown: held."""
    log = _sample(tmp_path, servers(BASE_RATES, BASE_RATES), repeats=1)
    code, doc, text = run_telemetry(log, "--fail-on", "acceptance-drop")
    assert code == 1
    gate = doc["acceptance_gate"]
    assert [f["name"] for f in gate["findings"]] == ["acceptance-undecided"]
    assert gate["smallest_p_adjusted"] == pytest.approx(5 / 6)
    detail = gate["findings"][0]["detail"]
    assert "2 base and 2 patch units" in detail and "0.167" in detail
    assert "no drop could have been detected" in detail
    assert "acceptance-undecided" in text.splitlines()[-1]
    # Without the gate, the same run passes as before.
    assert run_telemetry(log)[0] == 0
    # Dropping the held finding is refused.
    gate["findings"], doc["verdict"] = [], {"ok": True, "exit_code": 0}
    (tmp_path / "forged.json").write_text(json.dumps(doc))
    forged = run_k3diff("report", tmp_path / "forged.json", "--out", tmp_path / "b")
    assert forged.exit_code == 2 and "give acceptance-undecided" in forged.stderr


def test_unchanged_acceptance_passes_with_what_it_could_detect(
    servers: Any, tmp_path: Path
) -> None:
    log = _sample(tmp_path, servers(BASE_RATES, BASE_RATES), repeats=4)
    code, doc, text = run_telemetry(log, "--fail-on", "acceptance-drop")
    gate = doc["acceptance_gate"]
    assert code == 0 and gate["findings"] == [], text
    assert gate["smallest_p_adjusted"] == pytest.approx(5 / 12870)
    assert "these units could have shown one down to a Holm p of" in text
    assert text.splitlines()[-1].startswith("Verdict: OK (exit 0): no acceptance drop at alpha")


side_units = st.lists(
    st.tuples(st.integers(0, 6), st.integers(1, 6)).map(lambda u: (min(u), u[1])),
    min_size=1,
    max_size=5,
)


@settings(max_examples=40, deadline=None)
@given(base=side_units, patch=side_units, alpha=st.sampled_from([0.01, 0.05, 0.2]))
def test_the_gate_never_claims_more_than_its_units_allow(
    base: list[tuple[int, int]], patch: list[tuple[int, int]], alpha: float
) -> None:
    accounts = Accounts()
    for side, units in (("base", base), ("patch", patch)):
        counts = SideCounts()
        for accepted, drafted in units:
            counts.add("serial", accepted, drafted)
            counts.add_positions(drafted, (accepted,))
        accounts.speculation[side] = {SOURCE_VLLM: counts}
    gate = acceptance_gate(accounts.units(), alpha)
    if min(len(base), len(patch)) < 2:  # scipy's permutation test needs 2 units a side
        assert gate.tests == () and [f.name for f in gate.findings] == ["acceptance-undecided"]
        assert "a permutation test needs 2 a side" in gate.findings[0].detail
        return
    assert [t.position for t in gate.tests] == [None, 1]
    for test in gate.tests:
        assert test.exact and test.p >= test.p_min * (1 - 1e-12)
        assert test.p == pytest.approx(float(exact_p(base, patch)), rel=1e-9)
    least = 2 * min(t.p_min for t in gate.tests)
    assert gate.smallest_p_adjusted == pytest.approx(least)
    names = [f.name for f in gate.findings]
    if "acceptance-drop" in names:
        assert least <= alpha  # a drop is only claimed where the units could show one
        assert all(
            t.p_adjusted <= alpha
            for t in gate.tests
            if t.position in {f.position for f in gate.findings}
        )
    else:
        assert names == (["acceptance-undecided"] if least > alpha else [])
