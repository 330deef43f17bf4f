"""A log whose header records no one-server check is said unchecked (samples73).

A `log_format` 3 header must record `server_identity` (deleted, it is refused); a header of an
older format carries none, as `k3diff sample` made no such check before samples72. Before, such
a log read like a checked one: a run of one server reached at two addresses whose header was
rewritten to `log_format` 2 without its `server_identity` (or an honest older log of such a
run) passed triage (exit 0) and report with nothing said. Now triage and report state that
whether base and patch are one server was not checked, and that sampling again with this
version checks it; the exit code is unchanged.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff
from server_support import loopback_script

from .helpers import compare_texts

FORWARDER = Path(__file__).resolve().parents[1] / "sample" / "tcp_forwarder.py"
LOG = "run/samples.jsonl"
PROMPTS = [{"key": "a", "prompt": "a"}, {"key": "b", "prompt": "b"}]
SAID = (
    f"whether base and patch of {LOG} are one server reached at two addresses (a LAN address, "
    "a DNS alias, a forwarder) was not checked by the servers' counters: the log's header "
    "records no such check ({written}: k3diff sample records it from log_format 3 on); "
    "nothing to do where you know the two URLs reach two servers you started; else check that "
    "they do, or sample them again with this version, which records the check"
)


def _one_server_log(tmp_path: Path, fault_server: Any) -> None:
    """A run of one server, base directly and patch through a forwarder: `one-server`."""
    compare_texts(tmp_path, {"a": ("echo:a", "echo:a"), "b": ("echo:b", "echo:b")})
    (tmp_path / "p.jsonl").write_text("".join(json.dumps(r) + "\n" for r in PROMPTS))
    server = fault_server("--metrics", "vllm")
    with loopback_script(FORWARDER, "--to", server.url.rsplit(":", 1)[1]) as patch:
        result = run_k3diff(
            "sample", "--base", server.url, "--patch", patch, "--prompts", "p.jsonl",
            "--repeats", "3", "--control", "off", "--out", "run", cwd=tmp_path,
        )  # fmt: skip
    assert result.exit_code == 0, result.stderr


def _downgrade(tmp_path: Path, log_format: int | None) -> None:
    """The header rewritten as an older format's: `server_identity` gone, `log_format` set
    (or gone)."""
    lines = (tmp_path / LOG).read_text().splitlines()
    header = json.loads(lines[0])
    assert header["run"].pop("server_identity")["result"] == "one-server"
    header["run"].pop("log_format")
    if log_format is not None:
        header["run"]["log_format"] = log_format
    (tmp_path / LOG).write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")


@pytest.mark.parametrize("log_format", [2, None])
def test_a_log_without_the_check_is_said_unchecked_in_triage_and_report(
    tmp_path: Path, fault_server: Any, log_format: int | None
) -> None:
    """Failed on main at fb4ef845 (triage and report said nothing of the check: the header
    rewritten to log_format 2, or to none, read as an honest older log)."""
    _one_server_log(tmp_path, fault_server)
    _downgrade(tmp_path, log_format)
    written = "no log_format" if log_format is None else f"log_format {log_format}"
    said = SAID.format(written=written)
    # Exit unchanged: a qualification (a log without log_format is held for what it cannot
    # show it logged, as before).
    code = 0 if log_format == 2 else 1
    result = run_k3diff("triage", "cmp.json", LOG, "--format", "json", "-o", "t.json", cwd=tmp_path)
    assert result.exit_code == code, result.stdout
    document = json.loads((tmp_path / "t.json").read_text())
    assert said in document["qualifications"]
    text = run_k3diff("triage", "cmp.json", LOG, cwd=tmp_path)
    assert f"unchecked: {said}" in text.stdout
    report = run_k3diff("report", "cmp.json", LOG, "t.json", "--out", "b", cwd=tmp_path)
    assert report.exit_code == code, report.stdout + report.stderr
    summary = (tmp_path / "b" / "REPORT.md").read_text()
    assert "was not checked by the servers' counters: the log's header records no such" in (
        " ".join(summary.split())
    )
    alone = run_k3diff("report", LOG, "--out", "b2", cwd=tmp_path)  # no triage to say it
    assert alone.exit_code in (0, 1), alone.stderr
    summary = " ".join((tmp_path / "b2" / "REPORT.md").read_text().split())
    assert "was not checked by the servers' counters: the log's header records no such" in summary


def test_a_triage_naming_its_log_by_another_path_is_re_derived(
    tmp_path: Path, fault_server: Any
) -> None:
    """A run whose counters could not tell (`unchecked`: servers without `/metrics`) triaged
    with its log's absolute path and reported with a relative one. Failed on main at fb4ef845
    (report exit 2: the triage 'does not follow from the evidence', its qualification naming
    the log by the other path)."""
    compare_texts(tmp_path, {"a": ("echo:a", "echo:a"), "b": ("echo:b", "echo:b")})
    (tmp_path / "p.jsonl").write_text("".join(json.dumps(r) + "\n" for r in PROMPTS))
    base, patch = fault_server(), fault_server()
    sampled = run_k3diff(
        "sample", "--base", base.url, "--patch", patch.url, "--prompts", "p.jsonl",
        "--repeats", "3", "--control", "off", "--out", "run", cwd=tmp_path,
    )  # fmt: skip
    assert sampled.exit_code == 0, sampled.stderr
    absolute = tmp_path / LOG
    triaged = run_k3diff("triage", "cmp.json", absolute, "--format", "json", "-o", "t.json", cwd=tmp_path)  # fmt: skip
    assert triaged.exit_code == 0, triaged.stdout
    (said,) = [
        q
        for q in json.loads((tmp_path / "t.json").read_text())["qualifications"]
        if "two addresses" in q
    ]
    assert said.startswith(f"whether base and patch of {absolute} are one server"), said
    report = run_k3diff("report", "cmp.json", LOG, "t.json", "--out", "b", cwd=tmp_path)
    assert report.exit_code == 0, report.stderr
    (row,) = [
        line
        for line in (tmp_path / "b" / "REPORT.md").read_text().splitlines()
        if line.startswith("| t.json |")
    ]
    assert row.endswith("| yes |"), row  # re-derived from the comparison and log given
