"""Two inputs of the same bytes given to `report` (newuser64). A patch that answers as the base
did writes a capture byte for byte the base's, and two servers can log the same lines; a side of
several logs can hold two copies. `report` tied its inputs by SHA-256, one file per digest: the
second copy was tied to nothing and refused as a document it is not (`p.jsonl:1: not a
k3diff.samples/1 log`, exit 2), and a side of two same-bytes logs was run again on the first one
twice, so the bundle was refused as not following from its logs. Each copy is now an input of
its own, the one given under the name the document records where there is one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_support import run_k3diff

CAPTURE = "".join(
    json.dumps(
        {
            "custom_id": f"q{i}",
            "request": {"body": {"model": "m", "prompt": f"question {i}", "max_tokens": 8}},
            "response": {"body": {"choices": [{"index": 0, "text": f" answer {i}"}]}},
        }
    )
    + "\n"
    for i in range(4)
)
LOG = """\
INFO 05-12 10:00:00 [api_server.py:1043] Starting vLLM API server 0 on http://127.0.0.1:8000
INFO:     Started server process [4242]
INFO:     Application startup complete.
INFO:     127.0.0.1:51234 - "POST /v1/completions HTTP/1.1" 200 OK
"""


def _inputs(tmp_path: Path, out: str) -> list[str]:
    summary: dict[str, Any] = json.loads((tmp_path / out / "summary.json").read_text())
    return [i["name"] for i in summary["inputs"]]


def test_a_patch_capture_byte_for_byte_the_base_is_an_input_of_its_own(tmp_path: Path) -> None:
    (tmp_path / "base.jsonl").write_text(CAPTURE)
    (tmp_path / "patch.jsonl").write_text(CAPTURE)
    compared = run_k3diff(
        "responses", "base.jsonl", "patch.jsonl", "--format", "json", "-o", "cmp.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert compared.exit_code == 0, compared.stderr
    made = run_k3diff("report", "cmp.json", "base.jsonl", "patch.jsonl", "--out", "b", cwd=tmp_path)
    assert made.exit_code == 0, made.stderr
    assert _inputs(tmp_path, "b") == ["cmp.json", "base.jsonl", "patch.jsonl"]


def test_logs_of_the_same_bytes_are_each_read_once(tmp_path: Path) -> None:
    """Both sides' logs the same bytes, and a base of two same-bytes files (an engine's log and
    a copy kept under another name): each run again on the files it read."""
    for name in ("base.log", "patch.log", "copy.log"):
        (tmp_path / name).write_text(LOG)
    scanned = run_k3diff(
        "logs", "base.log", "patch.log", "--format", "json", "-o", "one.json", cwd=tmp_path
    )
    assert scanned.exit_code == 0, scanned.stderr
    made = run_k3diff("report", "one.json", "base.log", "patch.log", "--out", "b1", cwd=tmp_path)
    assert made.exit_code == 0, made.stderr
    assert _inputs(tmp_path, "b1") == ["one.json", "base.log", "patch.log"]
    scanned = run_k3diff(
        "logs", "--base", "base.log", "--base", "copy.log", "--patch", "patch.log",
        "--format", "json", "-o", "two.json", cwd=tmp_path,
    )  # fmt: skip
    assert scanned.exit_code == 0, scanned.stderr
    made = run_k3diff(
        "report", "two.json", "base.log", "copy.log", "patch.log", "--out", "b2", cwd=tmp_path
    )
    assert made.exit_code == 0, made.stderr
    assert _inputs(tmp_path, "b2") == ["two.json", "base.log", "copy.log", "patch.log"]
    # One copy for the two files of the base is not the base: refused, naming the one missing.
    refused = run_k3diff("report", "two.json", "base.log", "patch.log", "--out", "b3", cwd=tmp_path)
    assert refused.exit_code == 2 and refused.stderr.count("\n") == 1, refused.stderr
    assert refused.stderr.startswith(
        "k3diff: error: copy.log: missing (two.json records it as a base log"
    ), refused.stderr
