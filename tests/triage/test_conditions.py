"""A sample counts only for the request it repeats: samples of another prompt, or whose route,
stream or sampling fields differ from the captured request, never clear a record. Triage
refuses them (exit 2 naming the field and both values); `--allow-condition-mismatch` shows them
but keeps their records inconclusive and failing; `report`, which runs triage again, never
passes them; a capture without its requests is a qualification on every verdict."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_support import CliResult, run_k3diff
from sample.support import sample, write_prompts

from k3diff.responses.recordview import CapturedCondition, RecordSide, ResponsesRecord
from k3diff.sample.lines import SampleLine
from k3diff.triage.mismatches import differences
from k3diff.triage.samples import Sample

from .helpers import S, besides_counters, completion, write_samples

GREEDY = {"temperature": 0, "max_tokens": 8}


def _capture(tmp_path: Path, texts: dict[str, str], request: dict[str, Any]) -> Path:
    """Captures that record their requests (wrapped request/response lines) and their
    comparison: key k0, prompt p0, the given texts per side."""
    for side, text in texts.items():
        line = {
            "custom_id": "k0",
            "request": {"prompt": "p0", **request},
            "response": completion("r", text),
        }
        (tmp_path / f"{side}.jsonl").write_text(json.dumps(line) + "\n")
    result = run_k3diff(
        "responses", "base.jsonl", "patch.jsonl", "--format", "json", "-o", "cmp.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert result.exit_code in (0, 1), result.stderr
    return tmp_path / "cmp.json"


def _sample(fault_server: Any, tmp_path: Path, prompts: Path, *args: str) -> Path:
    base, patch = fault_server(), fault_server()
    out = tmp_path / f"out{len(list(tmp_path.glob('out*')))}"
    result = sample(
        "--base", base.url, "--patch", patch.url, "--prompts", prompts, "--repeats", "3",
        "--mode", "serial", "--control", "off", "--out", out, *args,
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    return out / "samples.jsonl"


def _triage(tmp_path: Path, log: Path, *args: str) -> CliResult:
    return run_k3diff("triage", "cmp.json", str(log), "--format", "json", *args, cwd=tmp_path)


def _report(tmp_path: Path, log: Path, *args: str) -> CliResult:
    triaged = run_k3diff(
        "triage", "cmp.json", str(log), "--format", "json", "-o", "triage.json", *args,
        cwd=tmp_path,
    )  # fmt: skip
    assert triaged.exit_code in (1, 2), triaged.stderr
    inputs = ["cmp.json", str(log)] + (["triage.json"] if triaged.exit_code == 1 else [])
    return run_k3diff("report", *inputs, "--out", "bundle", cwd=tmp_path)


def test_a_greedy_regression_sampled_at_temperature_1_is_refused_never_both_nondeterministic(
    fault_server: Any, tmp_path: Path
) -> None:
    """Captured at temperature 0, the patch's greedy output differs; samples at temperature 1
    (both sides give a new text every time) would say both-nondeterministic, exit 0."""
    _capture(
        tmp_path,
        {"base": "echo:p0", "patch": "echo:p0 changed"},
        {**GREEDY, "fault": {"output": "rand"}},
    )
    log = _sample(
        fault_server,
        tmp_path,
        tmp_path / "base.jsonl",
        "--param",
        "temperature=1",
        "--param",
        "seed=7",
    )
    refused = _triage(tmp_path, log)
    assert refused.exit_code == 2
    assert "key 'k0' (base): the samples' seed is 7 but the captured request's" in refused.stderr
    assert "is unset (and 3 more differences)" in refused.stderr  # both fields, both sides
    assert "--allow-condition-mismatch" in refused.stderr
    shown = _triage(tmp_path, log, "--allow-condition-mismatch")
    assert shown.exit_code == 1, shown.stderr
    record = json.loads(shown.stdout)["records"][0]
    assert record["category"] == "inconclusive"
    assert "samples-of-another-condition" in record["flags"]
    assert record["reason"].startswith(
        "samples of another condition (seed: captured unset, sampled 7"
    )
    assert "temperature: captured 0, sampled 1" in record["reason"]
    report = _report(tmp_path, log, "--allow-condition-mismatch")
    assert report.exit_code != 0, report.stdout


@pytest.mark.parametrize(
    ("param", "field", "values"),
    [
        ("seed=7", "seed", ("unset", "7")),
        ("max_tokens=5", "max_tokens", ("8", "5")),
        ("top_p=0.5", "top_p", ("unset", "0.5")),
    ],
)
def test_a_sampling_field_that_differs_is_named_with_both_values(
    fault_server: Any, tmp_path: Path, param: str, field: str, values: tuple[str, str]
) -> None:
    _capture(tmp_path, {"base": "echo:p0", "patch": "echo:p0"}, GREEDY)
    log = _sample(fault_server, tmp_path, tmp_path / "base.jsonl", "--param", param)
    refused = _triage(tmp_path, log)
    assert refused.exit_code == 2
    captured, sampled = values
    assert f"the samples' {field} is {sampled} but the captured request's" in refused.stderr
    assert refused.stderr.rstrip().count("\n") == 0  # one line
    assert f"is {captured};" in refused.stderr or f"is {captured} (" in refused.stderr


def test_streamed_samples_never_clear_a_whole_capture(fault_server: Any, tmp_path: Path) -> None:
    """A server's stream can differ from its whole answer (llama-cpp-python drops partial UTF-8
    characters when it streams): streams that agree say nothing of whole answers that differ."""
    _capture(tmp_path, {"base": "echo:p0", "patch": "echo:p0\ufffd"}, GREEDY)
    log = _sample(fault_server, tmp_path, tmp_path / "base.jsonl", "--stream")
    refused = _triage(tmp_path, log)
    assert refused.exit_code == 2
    assert "the samples' stream is true but the captured request's" in refused.stderr
    assert "is false" in refused.stderr
    shown = _triage(tmp_path, log, "--allow-condition-mismatch")
    assert shown.exit_code == 1
    record = json.loads(shown.stdout)["records"][0]
    assert record["category"] == "inconclusive"  # the streams agree: it would have been a match
    assert "stream: captured false, sampled true" in record["reason"]
    text = run_k3diff(
        "triage", "cmp.json", str(log), "--allow-condition-mismatch", cwd=tmp_path
    ).stdout  # fmt: skip
    # The one inconclusive record is the one that fails: no "others" that do not.
    assert (
        "INCONCLUSIVE: 1 of 1 records could not be decided (see reasons); it fails the run" in text
    )
    assert "the others" not in text
    assert _report(tmp_path, log, "--allow-condition-mismatch").exit_code != 0


def test_the_same_request_is_checked_and_counts(fault_server: Any, tmp_path: Path) -> None:
    _capture(tmp_path, {"base": "echo:p0", "patch": "echo:p0 changed"}, GREEDY)
    log = _sample(fault_server, tmp_path, tmp_path / "base.jsonl")
    result = _triage(tmp_path, log)
    document = json.loads(result.stdout)
    # The samples are of the captured request (checked, so no qualification and no
    # other-condition flag), and both servers echo; but the patch's captured output is one no
    # sample and no base output ever gave, so the samples do not explain it: held, not cleared.
    assert besides_counters(document["qualifications"]) == []
    flags = document["records"][0]["flags"]
    assert "condition-unchecked" not in flags and "samples-of-another-condition" not in flags
    assert document["records"][0]["category"] == "inconclusive"
    assert "capture-unexplained" in flags
    assert result.exit_code == 1, result.stderr


def test_samples_of_another_prompt_under_the_same_key_are_refused(
    fault_server: Any, tmp_path: Path
) -> None:
    _capture(tmp_path, {"base": "echo:p0", "patch": "echo:p0"}, GREEDY)
    prompts = write_prompts(
        tmp_path / "other.jsonl", [{"key": "k0", "prompt": "another prompt", **GREEDY}]
    )
    log = _sample(fault_server, tmp_path, prompts)
    refused = _triage(tmp_path, log)
    assert refused.exit_code == 2
    assert "key 'k0'" in refused.stderr
    assert "repeat prompt 'another prompt'" in refused.stderr and "is prompt 'p0'" in refused.stderr
    # --allow-condition-mismatch is about conditions, never about which prompt a sample repeats
    assert _triage(tmp_path, log, "--allow-condition-mismatch").exit_code == 2


def test_a_capture_without_its_requests_is_a_qualification_on_every_verdict(
    fault_server: Any, tmp_path: Path
) -> None:
    rows = [completion("k0", "echo:p0")]
    for side in ("base", "patch"):
        (tmp_path / f"{side}.jsonl").write_text(json.dumps(rows[0]) + "\n")
    compared = run_k3diff(
        "responses", "base.jsonl", "patch.jsonl", "--format", "json", "-o", "cmp.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert compared.exit_code == 0, compared.stderr
    prompts = write_prompts(tmp_path / "p.jsonl", [{"key": "k0", "prompt": "p0"}])
    log = _sample(fault_server, tmp_path, prompts, "--param", "temperature=1", "--stream")
    result = _triage(tmp_path, log)
    document = json.loads(result.stdout)
    assert besides_counters(document["qualifications"]) == [
        "the captures do not record their requests (1 record): the samples' condition "
        "(temperature 1, streamed, completions route) could not be checked against them"
    ]
    assert "condition-unchecked" in document["records"][0]["flags"]
    text = run_k3diff("triage", "cmp.json", str(log), cwd=tmp_path)
    assert "unchecked: the captures do not record their requests" in text.stdout
    written = run_k3diff(
        "triage", "cmp.json", str(log), "-o", "triage.json", "--format", "json", cwd=tmp_path
    )
    assert written.exit_code == 0, written.stderr
    report = run_k3diff(
        "report", "cmp.json", str(log), "triage.json", "--out", "bundle", cwd=tmp_path
    )
    assert (
        "The captures do not record their requests"
        in (tmp_path / "bundle" / "REPORT.md").read_text()
    ), report.stderr


def _serial(params: dict[str, Any]) -> Sample:
    """A successful serial sample of key k that sent `params`."""
    line = SampleLine(
        side="base", key="k", mode="serial", repeat=0, request_sha256="r", status=200,
        text="a", text_xxh3="a", token_ids_xxh3=None, finish_reason="stop", usage=None,
        latency_s=0.1, fingerprint=None, error=None, attempts=1, request_params=params,
    )  # fmt: skip
    return Sample(line, order=(0, 0))


def test_the_route_is_part_of_the_condition() -> None:
    captured = CapturedCondition("chat", False, {"temperature": 0}, True)
    record = ResponsesRecord("k", "match", base=RecordSide("a", None, captured))
    one = _serial({"temperature": 0})
    found = differences(record, captured, one, "completions", False, "log")
    assert [(m.field, m.captured, m.sampled) for m in found] == [
        ("route", '"chat"', '"completions"')
    ]
    same = differences(record, captured, one, "chat", False, "log")
    assert same == []
    boolean = _serial({"temperature": False})
    assert [m.field for m in differences(record, captured, boolean, "chat", False, "log")] == [
        "temperature"
    ]


def _unlogged(log: Path) -> Path:
    """The log as written before samples logged their request (no `request_params`,
    `prompt_xxh3` or `prompt_preview`): only its header names what was added to each request."""
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    for row in rows[1:]:
        for name in ("request_params", "prompt_xxh3", "prompt_preview"):
            row.pop(name, None)
    old = log.with_name("old.jsonl")
    old.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return old


def test_samples_without_request_fields_are_checked_by_their_headers_params(
    fault_server: Any, tmp_path: Path
) -> None:
    """A log whose lines do not carry `request_params` was refused nothing: its temperature-1
    samples cleared a greedy regression (both-nondeterministic, exit 0) and triage said the
    captures, which do record their requests, did not."""
    _capture(
        tmp_path,
        {"base": "echo:p0", "patch": "echo:p0 changed"},
        {**GREEDY, "fault": {"output": "rand"}},
    )
    hot = _unlogged(
        _sample(fault_server, tmp_path, tmp_path / "base.jsonl", "--param", "temperature=1")
    )
    refused = _triage(tmp_path, hot)
    assert refused.exit_code == 2, refused.stdout
    assert "the samples' temperature is 1 but the captured request's" in refused.stderr
    assert "is 0" in refused.stderr
    shown = _triage(tmp_path, hot, "--allow-condition-mismatch")
    assert shown.exit_code == 1
    assert json.loads(shown.stdout)["records"][0]["category"] != "both-nondeterministic"

    same = _unlogged(_sample(fault_server, tmp_path, tmp_path / "base.jsonl"))
    checked = _triage(tmp_path, same)
    assert checked.exit_code in (0, 1), checked.stderr  # the same condition: not refused
    (qualification,) = besides_counters(json.loads(checked.stdout)["qualifications"])
    assert qualification.startswith("the samples do not log their request fields (1 record)")
    assert "captures do not record" not in qualification


def test_a_capture_with_its_prompt_names_what_it_lacks(tmp_path: Path) -> None:
    """The new-user trial: captures holding `prompt` (and text) but no route or sampling fields
    read "the captures do not record their requests"; they record a part, and the rest is named."""
    rows = [{"id": "k0", "prompt": "p0", "text": "a"}]
    for side in ("base", "patch"):
        (tmp_path / f"{side}.jsonl").write_text(json.dumps(rows[0]) + "\n")
    compared = run_k3diff(
        "responses", "base.jsonl", "patch.jsonl", "--key", "id", "--format", "json",
        "-o", "cmp.json", cwd=tmp_path,
    )  # fmt: skip
    assert compared.exit_code == 0, compared.stderr
    samples = [S(which, "k0", "a") for which in ("base", "patch") for _ in range(3)]
    log = write_samples(tmp_path / "run" / "samples.jsonl", samples)
    result = _triage(tmp_path, log)
    assert besides_counters(json.loads(result.stdout)["qualifications"]) == [
        "the captures record their prompts but not their route, stream or sampling fields "
        "(1 record): the samples' condition (temperature 0, whole answers, completions route) "
        "could not be checked against them; the samples do not log their prompts (1 record): "
        "that they repeat the captured prompts could not be checked",
        "the captures do not name the model that answered them (1 record): that the samples "
        "were answered by the captured model could not be checked",
    ]


@pytest.mark.parametrize(
    ("field", "captured", "sampled", "named"),
    [
        ("stream", "true", "false", "with --stream"),
        ("stream", "false", "true", "without --stream"),
        ("route", '"chat"', '"completions"', "--endpoint chat"),
    ],
)
def test_the_refusal_names_the_option_a_mismatch_of_transport_needs(
    field: str, captured: str, sampled: str, named: str
) -> None:
    # Found by the new-user trial: a capture of streamed requests, sampled as the refusal said
    # (`k3diff sample --prompts CAPTURE`), was refused again: `sample` sets `stream` from
    # --stream (and the route from --endpoint), never from the capture, so the remedy names them.
    from types import SimpleNamespace

    from k3diff.triage.mismatches import Mismatch, refusal

    found = Mismatch("k0", "base", field, captured, sampled, "run/samples.jsonl")
    comparison: Any = SimpleNamespace(name="cmp.json")
    message = refusal(comparison, {"k0": [found]})
    assert f"k3diff sample --prompts CAPTURE {named}" in message, message
    assert message.count("\n") == 0
