"""Logs edited around the one-server check (review73e).

Two edits the readers did not catch: a header rewritten to an older `log_format` while keeping
a `server_identity` claiming `two-servers` (sample records the check from format 3 on, so no
older header carries one), read as checked; and a resume marker without `server_identity` (a
resume by k3diff before samples73, or one whose check was deleted), which left a `two-servers`
header clearing the samples the resume took, unchecked.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_support import run_k3diff

from .test_one_server_counted import _forwarder, _sample

LOG = "run/samples.jsonl"


def _lines(tmp_path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (tmp_path / LOG).read_text().splitlines()]


def _write(tmp_path: Path, lines: list[dict[str, Any]]) -> None:
    (tmp_path / LOG).write_text("".join(json.dumps(line) + "\n" for line in lines))


def test_a_two_servers_check_in_an_older_format_header_is_refused(
    tmp_path: Path, fault_server: Any
) -> None:
    """One server through a forwarder (`one-server`, held), its header rewritten to
    `log_format` 2 with its check edited to `two-servers`. Failed on main at 34d5a9d9 (triage
    exit 0, nothing said: read as checked); now exit 2, one line naming line 1."""
    server = fault_server("--metrics", "vllm")
    with _forwarder(server.url) as patch:
        _sample(tmp_path, server.url, patch)
    lines = _lines(tmp_path)
    run = lines[0]["run"]
    assert run["server_identity"]["result"] == "one-server"
    run["log_format"] = 2
    run["server_identity"] = {"result": "two-servers", "why": "edited", "sent": 3}
    _write(tmp_path, lines)
    for command in (["triage", "cmp.json", LOG], ["report", "cmp.json", LOG, "--out", "b"]):
        result = run_k3diff(*command, cwd=tmp_path)
        assert result.exit_code == 2, result.stdout + result.stderr
        (line,) = result.stderr.splitlines()
        assert (
            f"{LOG}:1: header 'run.server_identity' says two-servers in a header of log_format 2: "
            in line
        ), line
        assert "records the check from log_format 3 on, so the header was edited" in line


def test_a_resume_marker_recording_no_check_leaves_the_run_unchecked(
    tmp_path: Path, fault_server: Any
) -> None:
    """Two servers (`two-servers`) resumed, the resume marker without its `server_identity`
    (as k3diff before samples73 wrote it, or deleted). Failed on main at 34d5a9d9 (triage and
    report said nothing: the header's `two-servers` cleared the resumed samples); now both
    state the run unchecked, naming the resume; the exit code is unchanged (0)."""
    base, patch = fault_server("--metrics", "vllm"), fault_server("--metrics", "vllm")
    _sample(tmp_path, base.url, patch.url)
    _sample(tmp_path, base.url, patch.url, "--resume")
    lines = _lines(tmp_path)
    assert lines[0]["run"]["server_identity"]["result"] == "two-servers"
    (marker,) = [line for line in lines[1:] if "resumed" in line]
    assert marker.pop("server_identity")["result"] == "two-servers"
    _write(tmp_path, lines)
    result = run_k3diff("triage", "cmp.json", LOG, "--format", "json", "-o", "t.json", cwd=tmp_path)
    assert result.exit_code == 0, result.stdout
    (said,) = [
        q
        for q in json.loads((tmp_path / "t.json").read_text())["qualifications"]
        if "two addresses" in q
    ]
    assert (
        f"was not checked by the servers' counters: found by the resume of {marker['resumed']} "
        "(the log's header said two-servers): its resume marker records no such check" in said
    ), said
    for given in (["cmp.json", LOG, "t.json"], [LOG]):
        report = run_k3diff("report", *given, "--out", f"b{len(given)}", cwd=tmp_path)
        assert report.exit_code == 0, report.stdout + report.stderr
        summary = " ".join((tmp_path / f"b{len(given)}" / "REPORT.md").read_text().split())
        assert "its resume marker records no such check" in summary
