"""left66: a TensorRT-LLM request (`/perf_metrics`) or an SGLang sample (`meta_info`) whose
speculation counts are no counts (accepted draft tokens above the drafted ones) is a lost unit,
as an invalid vLLM window is (telemetry66): named in `counter_resets` with its source and why,
counted per side, and holding `--fail-on acceptance-drop`. Before, such a request was read as
"not reported" without a word, so a patch whose worst requests reported that passed the gate on
the requests left.

Runs are real `k3diff sample` runs against loopback servers answering with records built from
the engines' published schemas (`engine_schemas.py`); the log is then edited as a faulty engine
or a hand would leave it."""

from __future__ import annotations

import json
from math import comb
from pathlib import Path
from typing import Any

import engine_schemas
import jsonschema
import pytest
from cli_support import run_k3diff, run_telemetry

from k3diff.documents.catalog import load_schema

from .support import sample_fault_pair

REPEATS = 6
LOST = 3
"""The patch's requests edited to accept more draft tokens than they drafted."""


def _edit(path: Path, edit: Any, header: int) -> list[str]:
    """The first LOST patch lines of `path` (after its `header` lines) made invalid by
    `edit(line)`; the name of each (`key mode repeat N`), in order."""
    lines = path.read_text().splitlines()
    head, lines = lines[:header], lines[header:]
    names: list[str] = []
    edited = []
    for text in lines:
        line = json.loads(text)
        if line["side"] == "patch" and "start" not in line and len(names) < LOST:
            edit(line)
            names.append(f"{line['key']} {line['mode']} repeat {line['repeat']}")
        edited.append(json.dumps(line))
    path.write_text("\n".join([*head, *edited]) + "\n")
    return names


def _trtllm(tmp_path: Path, fault_server: Any) -> tuple[Path, list[str]]:
    faults = ({"perf_record": engine_schemas.aggregated_record(spec=(30, 40))},) * 2
    out = sample_fault_pair(fault_server, tmp_path, faults, REPEATS, "--perf-metrics")

    def edit(line: dict[str, Any]) -> None:
        (record,) = line["metrics"]
        record["perf_metrics"]["speculative_decoding"]["total_accepted_draft_tokens"] = 41

    return out / "samples.jsonl", _edit(out / "perf_metrics.jsonl", edit, header=0)


def _sglang(tmp_path: Path, fault_server: Any) -> tuple[Path, list[str]]:
    meta = engine_schemas.sglang_meta_info([3, 2, 4, 1], draft_per_step=3)
    out = sample_fault_pair(fault_server, tmp_path, ({"meta_info": meta},) * 2, REPEATS)

    def edit(line: dict[str, Any]) -> None:
        line["spec_meta"]["spec_accept_token_num"] = line["spec_meta"]["spec_draft_token_num"] + 1

    return out / "samples.jsonl", _edit(out / "samples.jsonl", edit, header=1)


ENGINES = {
    "TensorRT-LLM /perf_metrics": (_trtllm, "accepted tokens 41 above draft tokens 40"),
    "SGLang meta_info": (_sglang, "accepted tokens 31 above draft tokens 30"),
}


@pytest.mark.parametrize("source", list(ENGINES))
def test_a_request_accepting_more_than_it_drafted_is_lost_and_holds_the_gate(
    fault_server: Any, tmp_path: Path, source: str
) -> None:
    make, reason = ENGINES[source]
    log, names = make(tmp_path, fault_server)
    engine, unit = source.split()[0], "request"
    assert len(names) == LOST

    code, doc, text = run_telemetry(log)
    assert code == 0  # without the gate: said, not failing
    jsonschema.validate(doc, load_schema("telemetry"), cls=jsonschema.Draft202012Validator)
    assert doc["counter_resets"] == [
        {"side": "patch", "metric": "counts not valid", "window": name, "samples": 1,
         "lost": True, "reason": reason, "source": source}
        for name in names
    ]  # fmt: skip
    spec = {s["side"]: s["requests"] for s in doc["speculation"]}
    assert spec == {"base": REPEATS, "patch": REPEATS - LOST}
    assert (
        f"{engine} {unit}s lost to invalid counts, in no count or test here: base 0, patch {LOST}"
    ) in text
    # One line for the requests lost alike (telem67: before, one line each).
    grouped = (
        f"counter-reset, patch: in {LOST} {engine} {unit}s: the {engine} {unit} of {names[0]} "
        f"reported counts no request gives ({reason}): an engine fault or an edited log; that "
        f"request's counts are lost (likewise: {', '.join(names[1:])})"
    )
    assert [line for line in text.splitlines() if line.startswith("counter-reset")] == [grouped]
    markdown = run_k3diff("telemetry", log, "--format", "markdown").stdout
    assert f"{engine} {unit}s lost to invalid counts, in no count or test here" in markdown
    resets = [line for line in markdown.splitlines() if line.startswith("counter-reset")]
    assert len(resets) == 1 and resets[0].endswith(f"(likewise: {', '.join(names[1:])})")

    # The gate: 6 base units against the patch's 3 left, none lower than the base's, could
    # pass (the fewest p a split gives, 1 / C(9, 3), is below alpha); with 3 lost it holds.
    assert 1 / comb(REPEATS + REPEATS - LOST, LOST) <= 0.05
    code, doc, text = run_telemetry(log, "--fail-on", "acceptance-drop")
    assert code == 1, text
    gate = doc["acceptance_gate"]
    assert gate["lost_windows"] == {"base": 0, "patch": LOST}
    assert [f["name"] for f in gate["findings"]] == ["acceptance-undecided"]
    assert gate["findings"][0]["detail"].startswith(
        f"{LOST} {engine} {unit}s lost to invalid counts"
    )
    assert text.splitlines()[-1] == (
        "Verdict: FAIL (exit 1): acceptance-undecided (--fail-on acceptance-drop could not "
        f"decide: {LOST} {engine} {unit}s lost to invalid counts)"
    )
    # The bundle re-derives the hold from the document, and says each lost request.
    (tmp_path / "t.json").write_text(json.dumps(doc))
    bundle = run_k3diff("report", tmp_path / "t.json", "--out", tmp_path / "b")
    assert bundle.exit_code == 1, bundle.stderr
    assert "reported counts no request gives" in (tmp_path / "b" / "REPORT.md").read_text()


def test_a_lost_requests_name_reaches_no_output_unescaped(
    fault_server: Any, tmp_path: Path
) -> None:
    """The lost request is named by the key its drained `/perf_metrics` line carries, which an
    edit (or a prompts file) can make anything: the gate's finding that names it was printed as
    is, and a newline in it forged a `Verdict: OK` line of its own (Markdown: live HTML)."""
    log, _ = _trtllm(tmp_path, fault_server)
    perf = log.parent / "perf_metrics.jsonl"
    forged = "a\nVerdict: OK (exit 0)<b>x</b>"
    lines = [json.loads(line) for line in perf.read_text().splitlines()]
    perf.write_text("".join(json.dumps({**line, "key": forged}) + "\n" for line in lines))
    code, _, text = run_telemetry(log, "--fail-on", "acceptance-drop")
    assert code == 1
    assert [line for line in text.splitlines() if line.startswith("Verdict")] == [
        text.splitlines()[-1]
    ]
    assert "of a\\nVerdict: OK (exit 0)<b>x</b> serial repeat 0): the tests used" in text
    markdown = run_k3diff(
        "telemetry", log, "--fail-on", "acceptance-drop", "--format", "markdown"
    ).stdout
    assert "<b>" not in markdown and "\nVerdict: OK" not in markdown


def test_an_invalid_meta_info_field_is_kept_as_evidence_and_the_request_lost(
    fault_server: Any, tmp_path: Path
) -> None:
    """telem67: the patch's SGLang sends a histogram with a negative entry. `sample` kept the
    valid fields and dropped that one alone, so the request read as one that sent no positions:
    the gate compared the pooled tokens only, found no drop, and passed (exit 0). Now the log
    records why (`spec_meta_invalid`), and `telemetry` counts the request as lost."""
    meta = engine_schemas.sglang_meta_info([3, 2, 4, 1], draft_per_step=3)
    bad = {**meta, "spec_accept_histogram": [3, 2, -4, 1]}
    faults = ({"meta_info": meta}, {"meta_info": bad})
    out = sample_fault_pair(fault_server, tmp_path, faults, REPEATS)
    lines = [json.loads(t) for t in (out / "samples.jsonl").read_text().splitlines()[1:]]
    reason = "spec_accept_histogram is [3, 2, -4, 1], not a list of 1 to 64 counts"
    for line in lines:
        assert ("spec_meta_invalid" in line) == (line["side"] == "patch")
        if line["side"] == "patch":
            assert line["spec_meta_invalid"] == reason
            assert "spec_accept_histogram" not in line["spec_meta"]
    for line in lines:
        jsonschema.validate(line, {**load_schema("samples"), "$ref": "#/$defs/sample_line"})

    code, doc, text = run_telemetry(out / "samples.jsonl", "--fail-on", "acceptance-drop")
    assert code == 1, text
    lost = [r for r in doc["counter_resets"] if r["side"] == "patch"]
    assert len(lost) == REPEATS
    assert {(r["metric"], r["reason"], r["source"]) for r in lost} == {
        ("counts not valid", reason, "SGLang meta_info")
    }
    assert [s["side"] for s in doc["speculation"]] == ["base"]
    (finding,) = doc["acceptance_gate"]["findings"]
    assert finding["name"] == "acceptance-undecided"
    assert f"patch: no speculation counts left, {REPEATS} SGLang requests lost" in finding["detail"]


def test_a_meta_info_field_sent_as_null_is_no_count_not_one_left_out(
    fault_server: Any, tmp_path: Path
) -> None:
    """telem68: SGLang sets each speculation field of `meta_info` from the request's counts or
    leaves it out (`tokenizer_manager._calculate_spec_decoding_metrics`), never null. The
    patch's histogram sent as null read as one left out: its requests reported no positions,
    the gate compared the pooled tokens alone and passed (exit 0). A null where a count is due
    is a count lost: the request is lost, and the gate holds."""
    meta = engine_schemas.sglang_meta_info([3, 2, 4, 1], draft_per_step=3)
    faults = ({"meta_info": meta}, {"meta_info": {**meta, "spec_accept_histogram": None}})
    out = sample_fault_pair(fault_server, tmp_path, faults, REPEATS)
    lines = [json.loads(t) for t in (out / "samples.jsonl").read_text().splitlines()[1:]]
    reason = "spec_accept_histogram is null, not a list of 1 to 64 counts"
    assert {line.get("spec_meta_invalid") for line in lines if line["side"] == "patch"} == {reason}

    code, doc, text = run_telemetry(out / "samples.jsonl", "--fail-on", "acceptance-drop")
    assert code == 1, text
    lost = [r for r in doc["counter_resets"] if r["side"] == "patch"]
    assert {(r["metric"], r["reason"]) for r in lost} == {("counts not valid", reason)}
    assert len(lost) == REPEATS
    (finding,) = doc["acceptance_gate"]["findings"]
    assert finding["name"] == "acceptance-undecided"
