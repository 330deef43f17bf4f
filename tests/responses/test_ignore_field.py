"""`--ignore-field PATH`: a compared field left out of the comparison, said in every output and
in what reads the comparison; what decides a record cannot be ignored.

`transformers serve` answers with the model's directory in `model`, so two servers started from
different directories differ in every record's fields though they say the same."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff
from triage.helpers import S, completion, write_samples

from .fixtures import chat, write_jsonl

NOTE = "fields ignored (--ignore-field model): not compared"


def _captures(tmp_path: Path, text: str = "answer") -> None:
    for side, model in (("base", "/srv/a/model"), ("patch", "/srv/b/model")):
        rows = []
        for n in range(3):
            row = chat(f"c{n}", f"{text} {n}" if side == "base" or n else f"other {n}")
            row.update(model=model, key=f"k{n}")
            rows.append(row)
        write_jsonl(tmp_path / f"{side}.jsonl", rows)


def test_a_differing_model_path_fails_without_the_option(tmp_path: Path) -> None:
    _captures(tmp_path)
    result = run_k3diff("responses", "base.jsonl", "patch.jsonl", cwd=tmp_path)
    assert result.exit_code == 1
    assert "fields-differ" in result.stdout and "model" in result.stdout


def test_ignoring_model_is_said_in_the_header_the_verdict_json_and_markdown(
    tmp_path: Path,
) -> None:
    _captures(tmp_path)
    args = ("responses", "base.jsonl", "patch.jsonl", "--ignore-field", "model")
    text = run_k3diff(*args, cwd=tmp_path)
    header, verdict = text.stdout.splitlines()[2], text.stdout.splitlines()[-1]
    assert NOTE in header and NOTE in verdict, text.stdout
    assert "text-differs" in text.stdout and "fields-differ" not in text.stdout
    assert text.exit_code == 1  # k0's text differs: ignoring a field hides nothing else
    markdown = run_k3diff(*args, "--format", "markdown", cwd=tmp_path)
    assert markdown.stdout.count(NOTE) == 2
    document = json.loads(run_k3diff(*args, "--format", "json", cwd=tmp_path).stdout)
    assert document["ignore_fields"] == ["model"]
    assert all(
        change["path"] != "model" for r in document["records"] for change in r["field_changes"]
    )


def test_identical_texts_pass_with_the_model_ignored(tmp_path: Path) -> None:
    _captures(tmp_path)
    rows = [json.loads(line) for line in (tmp_path / "base.jsonl").read_text().splitlines()]
    for row in rows:
        row["model"] = "/srv/b/model"
    patch = tmp_path / "patch.jsonl"
    write_jsonl(patch, [dict(row, model="/srv/c/model") for row in rows])
    write_jsonl(tmp_path / "base.jsonl", rows)
    result = run_k3diff(
        "responses", "base.jsonl", "patch.jsonl", "--ignore-field", "model", cwd=tmp_path
    )
    assert result.exit_code == 0, result.stdout
    assert result.stdout.rstrip().endswith(f"no paired record differs; {NOTE} (exit 0)")


@pytest.mark.parametrize(
    ("path", "named"),
    [
        ("choice.message.content", "content"),
        ("choices", "choices"),
        ("finish_reason", "finish_reason"),
        ("logprobs", "logprobs"),
        ("choice.token_ids", "token_ids"),
        ("outputs.0.text", "text"),
    ],
)
def test_what_decides_a_record_cannot_be_ignored(tmp_path: Path, path: str, named: str) -> None:
    _captures(tmp_path)
    result = run_k3diff(
        "responses", "base.jsonl", "patch.jsonl", "--ignore-field", path, cwd=tmp_path
    )
    assert result.exit_code == 2
    assert result.stderr.startswith(f"k3diff: error: --ignore-field {path}: "), result.stderr
    assert named in result.stderr


def test_the_text_field_the_user_named_cannot_be_ignored(tmp_path: Path) -> None:
    rows = [{"key": "k", "out": {"answer": "x"}}]
    write_jsonl(tmp_path / "base.jsonl", rows)
    write_jsonl(tmp_path / "patch.jsonl", rows)
    result = run_k3diff(
        "responses", "base.jsonl", "patch.jsonl", "--text-field", "out.answer",
        "--ignore-field", "out", cwd=tmp_path,
    )  # fmt: skip
    assert result.exit_code == 2
    assert "--ignore-field out: it holds out.answer" in result.stderr


def _triage_inputs(tmp_path: Path) -> None:
    for side, model in (("base", "/srv/a/model"), ("patch", "/srv/b/model")):
        rows = []
        for n in range(3):
            row = completion(f"k{n}", f"answer {n}" if side == "base" or n else "other 0")
            rows.append(dict(row, model=model, key=f"k{n}"))
        write_jsonl(tmp_path / f"{side}.jsonl", rows)
    result = run_k3diff(
        "responses", "base.jsonl", "patch.jsonl", "--ignore-field", "model",
        "--format", "json", "-o", "cmp.json", cwd=tmp_path,
    )  # fmt: skip
    assert result.exit_code == 1, result.stderr
    samples = [
        S(side, f"k{n}", text)
        for n in range(3)
        for side, text in (("base", f"answer {n}"), ("patch", f"answer {n}" if n else "other 0"))
        for _ in range(3)
    ]
    # Each side sampled from the server that answered its capture.
    models = {"base": "/srv/a/model", "patch": "/srv/b/model"}
    write_samples(tmp_path / "run" / "samples.jsonl", samples, models=models)


def test_triage_and_report_accept_the_comparison_and_say_what_it_ignored(tmp_path: Path) -> None:
    _triage_inputs(tmp_path)
    said = "the comparison left fields out (--ignore-field model)"
    for fmt in ("text", "markdown", "json"):
        out = run_k3diff("triage", "cmp.json", "run/samples.jsonl", "--format", fmt, cwd=tmp_path)
        assert out.exit_code == 1, out.stderr
        assert said in out.stdout, fmt
    run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--format", "json", "-o", "t.json", cwd=tmp_path
    )
    bundle = run_k3diff(
        "report", "cmp.json", "run/samples.jsonl", "t.json", "--out", "b", cwd=tmp_path
    )
    assert bundle.exit_code == 1, bundle.stderr
    assert (
        "The comparison left fields out (--ignore-field model)"
        in (tmp_path / "b" / "REPORT.md").read_text()
    )


def test_a_comparison_listing_a_change_of_an_ignored_field_is_refused(tmp_path: Path) -> None:
    _captures(tmp_path)
    run_k3diff(
        "responses", "base.jsonl", "patch.jsonl", "--format", "json", "-o", "cmp.json",
        cwd=tmp_path,
    )  # fmt: skip
    document = json.loads((tmp_path / "cmp.json").read_text())
    document["ignore_fields"] = ["model"]  # claims a field left out that its records list
    (tmp_path / "cmp.json").write_text(json.dumps(document))
    write_samples(tmp_path / "run" / "samples.jsonl", [S("base", "k1", "answer 1")])
    for command in (("triage", "cmp.json", "run/samples.jsonl"), ("report", "cmp.json")):
        result = run_k3diff(
            *command, *(("--out", "b") if command[0] == "report" else ()), cwd=tmp_path
        )
        assert result.exit_code == 2
        assert "lists a change of model, which the run left out (--ignore-field model)" in (
            result.stderr
        ), result.stderr


def _tool_call(key: str, function: str) -> dict[str, Any]:
    """A chat answer that is a tool call: no content, the output is the call itself."""
    call = {"id": "call_1", "type": "function", "function": {"name": function, "arguments": "{}"}}
    row = chat("c", "", finish="tool_calls")
    row["choices"][0]["message"].update(content=None, tool_calls=[call])
    row["key"] = key
    return row


@pytest.mark.parametrize(
    "path",
    [
        "choice.message.tool_calls",
        "choice.message.tool_calls.0",
        "choice.message.tool_calls.0.function",
    ],
)
def test_a_tool_call_cannot_be_ignored(tmp_path: Path, path: str) -> None:
    # The call is the answer (content null): ignoring it would pass a patch calling another tool.
    write_jsonl(tmp_path / "base.jsonl", [_tool_call("k", "get_weather")])
    write_jsonl(tmp_path / "patch.jsonl", [_tool_call("k", "delete_files")])
    result = run_k3diff(
        "responses", "base.jsonl", "patch.jsonl", "--ignore-field", path, cwd=tmp_path
    )
    assert result.exit_code == 2, result.stdout
    assert "tool_calls" in result.stderr, result.stderr


@pytest.mark.parametrize(
    ("record", "path", "named"),
    [
        # vLLM offline: the compared rest of outputs[0] is `output`, holding stop_reason.
        (
            {"key": "k", "prompt": "p", "outputs": [{"text": "a", "stop_reason": 7}]},
            "output",
            "stop_reason",
        ),
        # TensorRT-LLM: the per-token log-probabilities are compared as fields.
        (
            {"key": "k", "text": ["a"], "output_ids": [[1]], "log_probs": [[-0.5]]},
            "log_probs",
            "log_probs",
        ),
        (
            {"key": "k", "text": ["a"], "output_ids": [[1]], "cum_log_probs": [-0.5]},
            "cum_log_probs",
            "cum_log_probs",
        ),
        # SGLang: meta_info keeps finish_reason's other fields (the stop it matched).
        (
            {
                "key": "k",
                "text": "a",
                "meta_info": {"finish_reason": {"type": "stop", "matched": 7}},
            },
            "meta_info",
            "finish_reason",
        ),
    ],
)
def test_a_field_holding_what_decides_a_record_cannot_be_ignored_whole(
    tmp_path: Path, record: dict[str, Any], path: str, named: str
) -> None:
    write_jsonl(tmp_path / "base.jsonl", [record])
    write_jsonl(tmp_path / "patch.jsonl", [record])
    result = run_k3diff(
        "responses", "base.jsonl", "patch.jsonl", "--ignore-field", path, cwd=tmp_path
    )
    assert result.exit_code == 2, result.stdout
    assert result.stderr.startswith(f"k3diff: error: --ignore-field {path}: "), result.stderr
    assert named in result.stderr


def test_a_comparison_claiming_it_ignored_what_decides_a_record_is_refused(
    tmp_path: Path,
) -> None:
    # No run leaves a tool call out: a document saying so was written by hand.
    write_jsonl(tmp_path / "base.jsonl", [_tool_call("k", "get_weather")])
    write_jsonl(tmp_path / "patch.jsonl", [_tool_call("k", "get_weather")])
    run_k3diff(
        "responses", "base.jsonl", "patch.jsonl", "--format", "json", "-o", "cmp.json",
        cwd=tmp_path,
    )  # fmt: skip
    document = json.loads((tmp_path / "cmp.json").read_text())
    assert document["verdict"]["exit_code"] == 0
    document["ignore_fields"] = ["choice.message.tool_calls"]
    (tmp_path / "cmp.json").write_text(json.dumps(document))
    result = run_k3diff("report", "cmp.json", "--out", "b", cwd=tmp_path)
    assert result.exit_code == 2, result.stderr
    assert "ignore_fields lists choice.message.tool_calls, which no run leaves out" in (
        result.stderr
    ), result.stderr


def test_a_field_whose_name_holds_a_dot_beside_an_ignored_one_is_no_disagreement(
    tmp_path: Path,
) -> None:
    # `x` ignored, the field named "x.y" compared: its change reads "x.y", as x's y would.
    rows = [completion("c", "hi") | {"key": "k", "x": n, "x.y": n} for n in (1, 2)]
    write_jsonl(tmp_path / "base.jsonl", rows[:1])
    write_jsonl(tmp_path / "patch.jsonl", rows[1:])
    made = run_k3diff(
        "responses", "base.jsonl", "patch.jsonl", "--ignore-field", "x", "--format", "json",
        "-o", "cmp.json", cwd=tmp_path,
    )  # fmt: skip
    assert made.exit_code == 1, made.stderr
    document = json.loads((tmp_path / "cmp.json").read_text())
    assert [c["path"] for r in document["records"] for c in r["field_changes"]] == ["x.y"]
    result = run_k3diff("report", "cmp.json", "--out", "b", cwd=tmp_path)
    assert result.exit_code == 1, result.stderr
