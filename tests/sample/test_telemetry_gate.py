"""`k3diff telemetry --fail-on acceptance-drop` on TensorRT-LLM's per-request `/perf_metrics`
(each record a unit) and SGLang's `meta_info` (each sample a unit), from real loopback servers
(`fault_server.py`) answering with records built from the engines' published schemas
(`engine_schemas.py`); p-values recomputed by enumerating every split (`gate_support`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import engine_schemas
import jsonschema
import pytest
from cli_support import run_k3diff
from telemetry.gate_support import exact_p, holm

from k3diff.documents.catalog import load_schema

from .support import sample_fault_pair


def _run(
    fault_server: Any, tmp_path: Path, faults: tuple[Any, Any], repeats: int, *flags: str
) -> Path:
    return sample_fault_pair(fault_server, tmp_path, faults, repeats, *flags) / "samples.jsonl"


def _gate(log: Path, *flags: str) -> tuple[int, dict[str, Any], str]:
    text = run_k3diff("telemetry", log, "--fail-on", "acceptance-drop", *flags)
    result = run_k3diff(
        "telemetry", log, "--fail-on", "acceptance-drop", *flags, "--format", "json"
    )
    assert result.exit_code == text.exit_code and result.exit_code in (0, 1), result.stderr
    doc = json.loads(result.stdout)
    jsonschema.validate(doc, load_schema("telemetry"), cls=jsonschema.Draft202012Validator)
    return result.exit_code, doc, text.stdout


def _trtllm(accepted: int) -> dict[str, Any]:
    return {"perf_record": engine_schemas.aggregated_record(spec=(accepted, 40))}


@pytest.mark.parametrize(
    ("repeats", "found"), [(4, "acceptance-drop"), (2, "acceptance-undecided")]
)
def test_trtllm_requests_are_the_units(
    fault_server: Any, tmp_path: Path, repeats: int, found: str
) -> None:
    """No positions: one test, pooled. 4 requests a side: the observed split is the most
    extreme of C(8, 4) = 70, p = 1/70 <= 0.05; 2 a side: at least 1/6, held undecided."""
    log = _run(fault_server, tmp_path, (_trtllm(30), _trtllm(10)), repeats, "--perf-metrics")
    code, doc, text = _gate(log)
    assert code == 1, text
    gate = doc["acceptance_gate"]
    (test,) = gate["tests"]
    assert test["position"] is None and test["exact"]
    assert test["units"] == {"base": repeats, "patch": repeats}
    expected = exact_p([(30, 40)] * repeats, [(10, 40)] * repeats)
    assert test["p"] == pytest.approx(float(expected)) and test["p_adjusted"] == test["p"]
    assert [f["name"] for f in gate["findings"]] == [found]
    assert found in text.splitlines()[-1]


def test_sglang_samples_are_the_units_and_holm_spans_the_positions(
    fault_server: Any, tmp_path: Path
) -> None:
    base_meta = engine_schemas.sglang_meta_info([3, 2, 4, 1], draft_per_step=3)
    patch_meta = engine_schemas.sglang_meta_info([5, 4, 1, 0], draft_per_step=3)
    faults = ({"meta_info": base_meta}, {"meta_info": patch_meta})
    log = _run(fault_server, tmp_path, faults, 4)
    # Pooled and positions 1-3: Holm over 4 tests of 8 units; none can go below 4/70 > 0.05.
    code, doc, text = _gate(log)
    gate = doc["acceptance_gate"]
    assert code == 1 and [f["name"] for f in gate["findings"]] == ["acceptance-undecided"]
    assert gate["smallest_p_adjusted"] == pytest.approx(4 / 70)
    # At alpha 0.1 the same units decide: p's from every split, Holm written out.
    code, doc, text = _gate(log, "--alpha", "0.1")
    gate = doc["acceptance_gate"]
    histograms = ([3, 2, 4, 1], [5, 4, 1, 0])
    pvalues = []
    for test in gate["tests"]:
        units = []
        for meta, histogram in zip((base_meta, patch_meta), histograms, strict=True):
            if test["position"] is None:
                unit = (meta["spec_accept_token_num"], meta["spec_draft_token_num"])
            else:
                unit = (sum(histogram[test["position"] :]), sum(histogram))
            units.append([unit] * 4)
        pvalues.append(float(exact_p(*units)))
        assert test["p"] == pytest.approx(pvalues[-1])
    assert [t["position"] for t in gate["tests"]] == [None, 1, 2, 3]
    adjusted = holm(pvalues)
    assert [t["p_adjusted"] for t in gate["tests"]] == pytest.approx(adjusted)
    drops = [f["position"] for f in gate["findings"] if f["name"] == "acceptance-drop"]
    assert drops == [
        t["position"] for t, a in zip(gate["tests"], adjusted, strict=True) if a <= 0.1
    ]
    assert code == (1 if drops else 0) and drops, text


def test_a_run_without_speculation_says_so_not_too_few_units(
    fault_server: Any, tmp_path: Path
) -> None:
    """A server that reports no speculation (transformers serve, stop 59): the gate is held
    undecided (exit 1), and the verdict says there was nothing to compare. It said "too few
    units", which reads as "take more samples": more would never decide it."""
    log = _run(fault_server, tmp_path, ({}, {}), 4)
    code, doc, text = _gate(log)
    assert code == 1 and [f["name"] for f in doc["acceptance_gate"]["findings"]] == [
        "acceptance-undecided"
    ]
    last = text.splitlines()[-1]
    assert "too few units" not in last, last
    assert (
        "could not decide: nothing to compare (base: no speculation counts reported; patch: no "
        "speculation counts reported)" in last
    ), last
