"""hunt78: triage compares the samples' route and stream, which only the log's header records
(`run.endpoint`, `run.stream`), with the captured request. A header whose `stream` was deleted
skipped the check without a word: streamed samples cleared a mismatch of whole answers (a
server's stream can differ from its whole answer), exit 0, where the header as written is exit 2.
Every `k3diff sample` has written both fields, so a header that states its `log_format` and
lacks one was edited: refused, exit 2, as the other fields it must carry."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .test_conditions import GREEDY, _capture, _sample, _triage

FAULT = {"output": "cached", "ignore_salt": True}
"""Each server answers "echo:p0" first, "echo:p0 (warm)" after: two outputs a side."""


def _without(log: Path, name: str) -> Path:
    lines = log.read_text().splitlines()
    header = json.loads(lines[0])
    del header["run"][name]
    edited = log.with_name("edited.jsonl")
    edited.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    return edited


@pytest.mark.parametrize("name", ["stream", "endpoint"])
def test_a_header_without_its_stream_or_endpoint_is_refused(
    fault_server: Any, tmp_path: Path, name: str
) -> None:
    _capture(tmp_path, {"base": "echo:p0", "patch": "echo:p0 (warm)"}, {**GREEDY, "fault": FAULT})
    log = _sample(fault_server, tmp_path, tmp_path / "base.jsonl", "--stream")
    assert _triage(tmp_path, log).exit_code == 2  # streamed samples of a whole capture
    refused = _triage(tmp_path, _without(log, name))
    assert refused.exit_code == 2, refused.stdout
    assert f"header 'run.{name}' missing" in refused.stderr
    assert refused.stderr.count("\n") == 1
