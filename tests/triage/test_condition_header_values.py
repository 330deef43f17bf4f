"""review78c: hunt78 refused a header whose `stream` or `endpoint` was deleted, but triage's
condition check reads only a bool `stream` and a string `endpoint`: one set to another type
(`"stream": "false"`, `"endpoint": 0`) was present, so not refused, and skipped its check as a
deleted one did; and one flipped to the capture's (`"stream": false` of a run whose recorded
command gave `--stream`, `"endpoint": "chat"` of one that gave `--endpoint completions`) cleared
samples of another request. Each passed, exit 0, where the log as written is exit 2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff

from .test_conditions import GREEDY, _capture, _sample, _triage

FAULT = {"output": "cached", "ignore_salt": True}
"""Each server answers "echo:p0" first, "echo:p0 (warm)" after: two outputs a side."""


def _edited(log: Path, name: str, value: Any) -> Path:
    lines = log.read_text().splitlines()
    header = json.loads(lines[0])
    header["run"][name] = value
    edited = log.with_name("edited.jsonl")
    edited.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    return edited


def _refused(tmp_path: Path, log: Path, name: str, value: Any, said: str) -> None:
    assert _triage(tmp_path, log).exit_code == 2  # the log as written: another request
    refused = _triage(tmp_path, _edited(log, name, value))
    assert refused.exit_code == 2, refused.stdout
    assert said in refused.stderr
    assert refused.stderr.count("\n") == 1


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("false", "header 'run.stream' is \"false\", not true or false: the log was edited"),
        (0, "header 'run.stream' is 0, not true or false"),
        (False, "header 'run.stream' is false, but its command ran --stream: the log was edited"),
    ],
)
def test_a_header_whose_stream_was_edited_is_refused(
    fault_server: Any, tmp_path: Path, value: Any, said: str
) -> None:
    _capture(tmp_path, {"base": "echo:p0", "patch": "echo:p0 (warm)"}, {**GREEDY, "fault": FAULT})
    log = _sample(fault_server, tmp_path, tmp_path / "base.jsonl", "--stream")
    _refused(tmp_path, log, "stream", value, said)


def _chat(text: str) -> dict[str, Any]:
    """A /v1/chat/completions response: its capture's route is chat."""
    choice = {
        "index": 0,
        "message": {"role": "assistant", "content": text},
        "finish_reason": "stop",
    }
    return {"id": "r", "object": "chat.completion", "created": 1, "model": "m", "choices": [choice]}


@pytest.mark.parametrize(
    ("value", "args", "said"),
    [
        (0, (), "header 'run.endpoint' is 0, not one of completions, chat"),
        (
            "chat",
            ("--endpoint", "completions"),
            "header 'run.endpoint' is \"chat\", but its command ran --endpoint completions",
        ),
    ],
)
def test_a_header_whose_endpoint_was_edited_is_refused(
    fault_server: Any, tmp_path: Path, value: Any, args: tuple[str, ...], said: str
) -> None:
    request = {"prompt": "p0", **GREEDY, "fault": FAULT}
    for side, text in {"base": "echo:p0", "patch": "echo:p0 (warm)"}.items():
        line = {"custom_id": "k0", "request": request, "response": _chat(text)}
        (tmp_path / f"{side}.jsonl").write_text(json.dumps(line) + "\n")
    compared = run_k3diff(
        "responses", "base.jsonl", "patch.jsonl", "--format", "json", "-o", "cmp.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert compared.exit_code == 1, compared.stderr
    log = _sample(fault_server, tmp_path, tmp_path / "base.jsonl", *args)  # completions route
    _refused(tmp_path, log, "endpoint", value, said)
