"""A sample counts only for the model that answered its capture: a base server restarted on
another checkpoint (or an alias that now resolves elsewhere) answers as another model, and its
samples must never explain a patch's regression away. Each answer names its model, `sample`
logs it, `responses` keeps each side's, and `triage` refuses samples answered as another model
than their side's capture (exit 2 naming the log, the key and both models), shows them without
clearing anything under `--allow-condition-mismatch`, and says when the model could not be
checked; `report`, which runs triage again, says so too."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_support import CliResult, run_k3diff
from sample.support import sample, write_prompts

from .helpers import besides_counters, completion, without_added_after

GREEDY = {"temperature": 0, "max_tokens": 8}


def _capture(
    tmp_path: Path,
    texts: dict[str, str],
    request: dict[str, Any],
    models: dict[str, str | None],
) -> None:
    """Captures that record their requests, answered as `models` per side (None: the answer
    names no model), and their comparison `cmp.json`: key k0, prompt p0."""
    for side, text in texts.items():
        response = completion("r", text)
        if models[side] is None:
            del response["model"]
        else:
            response["model"] = models[side]
        line = {"custom_id": "k0", "request": {"prompt": "p0", **request}, "response": response}
        (tmp_path / f"{side}.jsonl").write_text(json.dumps(line) + "\n")
    result = run_k3diff(
        "responses", "base.jsonl", "patch.jsonl", "--format", "json", "-o", "cmp.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert result.exit_code in (0, 1), result.stderr


def _sample(
    fault_server: Any,
    tmp_path: Path,
    models: tuple[str, str],
    *args: str,
    prompts: Path | None = None,
    code: int = 0,
) -> Path:
    """Sample the capture's own requests (serially, 3 a side) from two servers that answer as
    `models` (base, patch); `sample` exits `code`."""
    base, patch = (fault_server("--model", model) for model in models)
    out = tmp_path / f"out{len(list(tmp_path.glob('out*')))}"
    result = sample(
        "--base", base.url, "--patch", patch.url, "--prompts", prompts or tmp_path / "base.jsonl",
        "--repeats", "3", "--mode", "serial", "--control", "off", "--out", out, *args,
    )  # fmt: skip
    assert result.exit_code == code, result.stderr
    return out / "samples.jsonl"


def _triage(tmp_path: Path, log: Path, *args: str) -> CliResult:
    return run_k3diff("triage", "cmp.json", str(log), "--format", "json", *args, cwd=tmp_path)


def _bundle(tmp_path: Path, log: Path, *args: str) -> tuple[CliResult, str]:
    triaged = run_k3diff(
        "triage", "cmp.json", str(log), "--format", "json", "-o", "triage.json", *args,
        cwd=tmp_path,
    )  # fmt: skip
    assert triaged.exit_code in (0, 1), triaged.stderr
    result = run_k3diff(
        "report", "cmp.json", str(log), "triage.json", "--out", "bundle", cwd=tmp_path
    )  # fmt: skip
    return result, (tmp_path / "bundle" / "REPORT.md").read_text()


def _lines(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines()[1:]]


def test_a_base_restarted_on_another_model_never_explains_the_patch_away(
    fault_server: Any, tmp_path: Path
) -> None:
    """The base captured as m-a gave what the patch gives; sampled again, the base server
    answers as m-b with a new text every time: counted, its spread would cover the patch's
    regression as base nondeterminism."""
    _capture(
        tmp_path,
        {"base": "echo:p0", "patch": "echo:p0 changed"},
        {**GREEDY, "fault": {"output": "rand"}},
        {"base": "m-a", "patch": "m-a"},
    )
    log = _sample(fault_server, tmp_path, ("m-b", "m-a"))
    assert {(s["side"], s["model"]) for s in _lines(log)} == {("base", "m-b"), ("patch", "m-a")}
    refused = _triage(tmp_path, log)
    assert refused.exit_code == 2
    assert refused.stderr.rstrip().count("\n") == 0, refused.stderr  # one line
    assert str(log) in refused.stderr and "key 'k0' (base)" in refused.stderr
    assert 'answered as model "m-b"' in refused.stderr
    assert 'the capture\'s model in cmp.json is "m-a"' in refused.stderr
    assert "--allow-condition-mismatch" in refused.stderr
    shown = _triage(tmp_path, log, "--allow-condition-mismatch")
    assert shown.exit_code == 1, shown.stderr
    record = json.loads(shown.stdout)["records"][0]
    assert record["category"] == "inconclusive", record
    assert "samples-of-another-condition" in record["flags"]
    assert 'model: captured "m-a", sampled "m-b"' in record["reason"]


def test_samples_answered_as_the_captured_model_count(fault_server: Any, tmp_path: Path) -> None:
    _capture(
        tmp_path,
        {"base": "echo:p0", "patch": "echo:p0"},
        GREEDY,
        {"base": "m-a", "patch": "m-a"},
    )
    log = _sample(fault_server, tmp_path, ("m-a", "m-a"))
    result = _triage(tmp_path, log)
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    assert besides_counters(document["qualifications"]) == []
    assert document["records"][0]["category"] == "match"
    assert document["records"][0]["flags"] == []
    report, markdown = _bundle(tmp_path, log)
    assert report.exit_code == 0, report.stderr
    row = next(line for line in markdown.splitlines() if "nondeterminism follow-up" in line)
    assert "samples checked against each capture's request and model" in row


def test_a_stream_whose_chunks_name_two_models_is_recorded_and_never_counts(
    fault_server: Any, tmp_path: Path
) -> None:
    _capture(
        tmp_path,
        {"base": "echo:p0", "patch": "echo:p0"},
        {**GREEDY, "stream": True, "fault": {"model": ["m-a", "m-b"]}},
        {"base": "m-a", "patch": "m-a"},
    )
    # `sample` fails the run (exit 1, MIXED MODELS) as triage refuses its log (exit 2).
    log = _sample(fault_server, tmp_path, ("m-a", "m-a"), "--stream", code=1)
    for line in _lines(log):
        assert line["stream_models"] == ["m-a", "m-b"] and "model" not in line, line
    refused = _triage(tmp_path, log)
    assert refused.exit_code == 2
    assert 'answered as model a stream whose chunks named "m-a", "m-b"' in refused.stderr
    shown = _triage(tmp_path, log, "--allow-condition-mismatch")
    record = json.loads(shown.stdout)["records"][0]
    assert record["category"] == "inconclusive" and shown.exit_code == 1, record
    assert 'sampled a stream whose chunks named "m-a", "m-b"' in record["reason"]


def test_a_capture_that_names_no_model_is_a_qualification_on_the_verdict_and_the_bundle(
    fault_server: Any, tmp_path: Path
) -> None:
    _capture(
        tmp_path,
        {"base": "echo:p0", "patch": "echo:p0"},
        GREEDY,
        {"base": None, "patch": None},
    )
    log = _sample(fault_server, tmp_path, ("m-a", "m-a"))
    result = _triage(tmp_path, log)
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    said = (
        "the captures do not name the model that answered them (1 record): that the samples "
        "were answered by the captured model could not be checked"
    )
    assert besides_counters(document["qualifications"]) == [said]
    assert "condition-unchecked" in document["records"][0]["flags"]
    report, markdown = _bundle(tmp_path, log)
    assert report.exit_code == 0, report.stderr
    assert said[0].upper() + said[1:] in markdown
    row = next(line for line in markdown.splitlines() if "nondeterminism follow-up" in line)
    assert "request or model unchecked on 1 of 1 records (see qualifications)" in row


def test_sides_answered_as_two_models_clear_nothing_unless_the_comparison_ignores_model(
    fault_server: Any, tmp_path: Path
) -> None:
    """Each side as its own capture, the base as m-a, the patch as m-b: the base's spread is
    the spread of another model, and excuses nothing of the patch's."""
    _capture(
        tmp_path,
        {"base": "echo:p0", "patch": "echo:p0 changed"},
        {**GREEDY, "fault": {"output": "rand"}},
        {"base": "m-a", "patch": "m-b"},
    )
    log = _sample(fault_server, tmp_path, ("m-a", "m-b"))
    result = _triage(tmp_path, log)
    assert result.exit_code == 1, result.stderr
    record = json.loads(result.stdout)["records"][0]
    assert record["category"] == "inconclusive", record
    assert "samples-of-another-condition" in record["flags"]
    assert record["reason"].startswith(
        "the base's and the patch's samples were answered as other models "
        '(model: base "m-a", patch "m-b"): they clear nothing (one model under two names? '
        "compare the captures again with `k3diff responses BASE PATCH --ignore-field model --ignore-field request.model`); "
    ), record
    compared = run_k3diff(
        "responses", "base.jsonl", "patch.jsonl", "--format", "json", "-o", "cmp.json",
        "--ignore-field", "model", cwd=tmp_path,
    )  # fmt: skip
    assert compared.exit_code == 1, compared.stderr
    ignored = json.loads(_triage(tmp_path, log).stdout)["records"][0]
    assert "samples-of-another-condition" not in ignored["flags"], ignored


def test_the_comparison_keeps_each_sides_model(tmp_path: Path) -> None:
    _capture(
        tmp_path,
        {"base": "echo:p0", "patch": "echo:p0"},
        GREEDY,
        {"base": "m-a", "patch": "m-b"},
    )
    record = json.loads((tmp_path / "cmp.json").read_text())["records"][0]
    assert (record["base"]["model"], record["patch"]["model"]) == ("m-a", "m-b")
    assert record["status"] == "fields-differ"
    assert {"path": "model", "change": "changed", "base": "m-a", "patch": "m-b"} in record[
        "field_changes"
    ]


def test_samples_of_a_model_that_disagree_with_each_other_never_count(
    fault_server: Any, tmp_path: Path
) -> None:
    """No capture names a model, but the base's samples were answered as two (an alias that
    resolved elsewhere mid-run): they are not samples of one condition."""
    _capture(
        tmp_path,
        {"base": "echo:p0", "patch": "echo:p0"},
        GREEDY,
        {"base": None, "patch": None},
    )
    prompts = write_prompts(tmp_path / "p.jsonl", [{"key": "k0", "prompt": "p0", **GREEDY}])
    first = _sample(fault_server, tmp_path, ("m-a", "m-a"), prompts=prompts)
    second = _sample(fault_server, tmp_path, ("m-b", "m-a"), prompts=prompts)
    refused = run_k3diff(
        "triage", "cmp.json", str(first), str(second), "--pool-runs", cwd=tmp_path
    )  # fmt: skip
    assert refused.exit_code == 2, refused.stdout
    assert 'answered as model one of "m-a", "m-b"' in refused.stderr
    assert "names none" in refused.stderr


def test_a_triage_without_its_model_check_never_hides_what_the_check_found(
    fault_server: Any, tmp_path: Path
) -> None:
    """`model_check` absent reads as a triage written before the check: `report` runs it again
    without the check. Deleted from a document whose check said something, the run again
    differs (refused); deleted with what it said, the bundle says the model was not checked."""
    _capture(
        tmp_path,
        {"base": "echo:p0", "patch": "echo:p0"},
        GREEDY,
        {"base": None, "patch": None},
    )
    log = _sample(fault_server, tmp_path, ("m-a", "m-a"))
    made = _triage(tmp_path, log)
    document = json.loads(made.stdout)
    assert document["model_check"] is True
    del document["model_check"], document["gaugeless"]  # as written before either
    without_added_after(document, "gaugeless")
    (tmp_path / "forged.json").write_text(json.dumps(document))
    refused = run_k3diff(
        "report", "cmp.json", str(log), "forged.json", "--out", "b1", cwd=tmp_path
    )  # fmt: skip
    assert refused.exit_code == 2, refused.stdout
    assert "forged.json: does not follow from the evidence given with it" in refused.stderr
    document["qualifications"] = [
        q for q in document["qualifications"] if q not in besides_counters([q])
    ]  # the model check's cleared, the one-server check's kept
    document["records"][0]["flags"] = []
    (tmp_path / "forged.json").write_text(json.dumps(document))
    shown = run_k3diff(
        "report", "cmp.json", str(log), "forged.json", "--out", "b2", cwd=tmp_path
    )  # fmt: skip
    assert shown.exit_code == 0, shown.stderr
    markdown = (tmp_path / "b2" / "REPORT.md").read_text()
    assert "the samples' model not checked (a triage written before the check)" in markdown
    assert "forged.json was written before triage held samples to the model" in markdown
