"""`k3diff logs`: what a reviewer greps server logs for, found, matched across runs, judged.

Every case writes real log files in the layouts the engines print (vLLM's `LEVEL MM-DD
HH:MM:SS [file:line]` prefix on every line of a traceback, TensorRT-LLM's `[TRT-LLM] [E]`,
uvicorn's start lines) and runs the CLI as a user would.
"""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import pytest
from cli_support import run_k3diff

from .logs_support import OOM, TRACEBACK, clean, run_json, write


def test_clean_logs_pass_and_warnings_are_counted_not_failing(tmp_path: Path) -> None:
    base = write(tmp_path / "base.log", clean())
    patch = write(tmp_path / "patch.log", clean(pid=777, port=8001, rid="99aa01"))
    result = run_k3diff("logs", base, patch)
    assert result.exit_code == 0, result.stdout
    assert "Verdict: OK (exit 0): no error finding on the patch" in result.stdout
    _code, doc = run_json(base, patch)
    rules = {r["name"]: r for r in doc["rules"]}
    assert rules["engine-warning"]["base"] == 1 and rules["engine-warning"]["patch"] == 1
    # Different pids, ports and request ids: the same message, so nothing is new.
    assert doc["summary"]["new_on_patch"] == 0
    assert doc["patch"]["lines"] == 6 and doc["base"]["files"] == 1


def test_injected_traceback_cuda_error_and_oom_fail_naming_them(tmp_path: Path) -> None:
    base = write(tmp_path / "base" / "server.log", clean())
    patch = write(
        tmp_path / "patch" / "server.log",
        clean(pid=9) + TRACEBACK.format(minute="07", line=42) + OOM.format(pid=9, mib=20),
    )
    result = run_k3diff("logs", base, patch)
    assert result.exit_code == 1
    last = result.stdout.splitlines()[-1]
    assert last.startswith("Verdict: FAIL (exit 1): ")
    for rule in ("cuda-error", "out-of-memory"):
        assert rule in last
    _code, doc = run_json(base, patch)
    new = {(f["rule"], f["message"]) for f in doc["findings"] if f["side"] == "patch" and f["new"]}
    # The crash is one finding of the rule that names its exception, whose message is the
    # exception line (the vLLM prefix that is on every line of it removed) marked as a
    # traceback's, located at that line (polish63: at its first line, with a second finding
    # for the exception line), its Traceback line and the line announcing it kept beside it.
    assert sorted(rule for rule, _ in new) == ["cuda-error", "out-of-memory"]
    assert (
        "cuda-error",
        "RuntimeError: CUDA error: an illegal memory access was encountered (in a traceback)",
    ) in new
    crash = next(f for f in doc["findings"] if f["rule"] == "cuda-error")
    assert crash["count"] == 1 and crash["examples"][0]["line"] == 11
    assert crash["examples"][0]["file"] == str(patch)
    assert crash["examples"][0]["text"].endswith("RuntimeError: CUDA error: an illegal memory "
                                                 "access was encountered")  # fmt: skip
    assert [(c["role"], c["line"]) for c in crash["examples"][0]["context"]] == [
        ("announced by", 7),
        ("traceback", 8),
    ]
    assert crash["examples"][0]["context"][0]["text"].endswith(
        "EngineCore encountered a fatal error."
    )
    oom = next(f for f in doc["findings"] if f["rule"] == "out-of-memory")
    assert oom["count"] == 1 and oom["examples"][0]["line"] == 12
    # The lines inside the traceback are part of it, not five engine-error findings, and so is
    # the error line that announces it ("EngineCore encountered a fatal error.").
    assert sum(f["count"] for f in doc["findings"] if f["rule"] == "engine-error") == 0


def test_same_errors_on_both_sides_pass_with_both_counted(tmp_path: Path) -> None:
    # Timestamps, pids, line numbers of the logger call and allocation sizes differ: still the
    # same messages, so nothing is new on the patch and the run passes.
    base = write(
        tmp_path / "b.log",
        clean() + TRACEBACK.format(minute="01", line=42) + OOM.format(pid=11, mib=20),
    )
    patch = write(
        tmp_path / "p.log",
        clean(pid=99, port=9001, rid="ffee11")
        + TRACEBACK.format(minute="59", line=57)
        + OOM.format(pid=12345, mib=4096),
    )
    result = run_k3diff("logs", base, patch)
    assert result.exit_code == 0, result.stdout
    assert "also occur on the base" in result.stdout.splitlines()[-1]
    _code, doc = run_json(base, patch)
    rules = {r["name"]: r for r in doc["rules"]}
    for rule in ("cuda-error", "out-of-memory"):
        assert rules[rule]["base"] == 1 and rules[rule]["patch"] == 1, rule
        assert rules[rule]["new_on_patch"] == 0
    assert rules["traceback"]["base"] == rules["traceback"]["patch"] == 0  # named by cuda-error
    # --strict fails on any error finding, on either side.
    strict = run_k3diff("logs", base, patch, "--strict")
    assert strict.exit_code == 1
    assert "--strict" in strict.stdout.splitlines()[-1]


def test_errors_only_on_the_base_do_not_fail_and_are_listed(tmp_path: Path) -> None:
    base = write(
        tmp_path / "b.log",
        clean()
        + "[TRT-LLM] [E] Assertion failed: mTokens > 0\n"
        + "[TRT-LLM] [E] Failed to load engine\n",
    )
    patch = write(tmp_path / "p.log", clean())
    result = run_k3diff("logs", base, patch)
    assert result.exit_code == 0
    assert "Only on the base:" in result.stdout
    # First match wins: the specific rule (assertion) before the engine's generic error prefix.
    assert "assertion (error, ×1)" in result.stdout
    assert "trtllm-error (error, ×1): [TRT-LLM] [E] Failed to load engine" in result.stdout


def test_directories_gzip_and_restarts(tmp_path: Path) -> None:
    base_dir, patch_dir = tmp_path / "base", tmp_path / "patch"
    for case in ("case1", "case2"):
        write(base_dir / case / "server.log", clean())
    write(patch_dir / "case1" / "server.log", clean())
    # case2's patch server died and came back: two start announcements in one file.
    restarted = clean() + "Segmentation fault (core dumped)\n" + clean(pid=5)
    (patch_dir / "case2").mkdir(parents=True)
    with gzip.open(patch_dir / "case2" / "server.log.gz", "wt") as out:
        out.write(restarted)
    code, doc = run_json(base_dir, patch_dir)
    assert code == 1
    assert doc["patch"]["files"] == 2 and doc["base"]["files"] == 2
    gz = next(f for f in doc["files"] if f["path"].endswith(".gz"))
    assert gz["compressed"] is True and gz["server_starts"] == 2
    assert gz["lines"] == restarted.count("\n")
    new = {f["rule"] for f in doc["findings"] if f["side"] == "patch" and f["new"]}
    assert {"restart", "crash"} <= new
    ignored = run_k3diff(
        "logs", base_dir, patch_dir, "--ignore-rule", "restart", "--ignore-rule", "crash"
    )
    assert ignored.exit_code == 0, ignored.stdout


def test_user_rules_come_first_and_warn_rules_never_fail(tmp_path: Path) -> None:
    base = write(tmp_path / "b.log", clean())
    patch = write(tmp_path / "p.log", clean() + "KV cache evicted 17 blocks\nspec decode off\n")
    assert run_k3diff("logs", base, patch).exit_code == 0
    evict = run_k3diff("logs", base, patch, "--rule", r"kv-evict=evicted \d+ blocks")
    assert evict.exit_code == 1 and "kv-evict" in evict.stdout.splitlines()[-1]
    code, doc = run_json(base, patch, "--warn-rule", "spec=spec decode off")
    assert code == 0
    spec = next(r for r in doc["rules"] if r["name"] == "spec")
    assert spec == {**spec, "severity": "warning", "builtin": False, "patch": 1}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--rule", "nope"), "is not NAME=REGEX"),
        (("--rule", "x=("), "invalid regular expression"),
        (("--rule", "traceback=x"), "is a built-in rule"),
        (("--ignore-rule", "no-such"), "--ignore-rule no-such: no such rule"),
    ],
)
def test_bad_rules_are_usage_errors(tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    log = write(tmp_path / "a.log", clean())
    result = run_k3diff("logs", log, log, *args)
    assert result.exit_code == 2
    assert message in result.stderr and "Traceback" not in result.stderr


def test_unreadable_empty_fifo_and_empty_directory_are_errors(tmp_path: Path) -> None:
    good = write(tmp_path / "good.log", clean())
    empty = write(tmp_path / "empty.log", "")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    (tmp_path / "nothing").mkdir()
    cases = {
        tmp_path / "missing.log": ": no such file",
        empty: "no log line to scan on the patch side",
        fifo: "not a regular file or directory",
        tmp_path / "nothing": "holds no log file",
    }
    for patch, message in cases.items():
        result = run_k3diff("logs", good, patch)
        assert result.exit_code == 2, (patch, result.stdout)
        assert message in result.stderr, result.stderr
        assert len(result.stderr.strip().splitlines()) == 1


def test_hostile_lines_are_escaped_and_long_lines_capped(tmp_path: Path) -> None:
    base = write(tmp_path / "b.log", clean())
    forged = "ERROR boom\x1b[2K\rVerdict: OK (exit 0): nothing fails\n"
    long = "WARNING " + "x" * (3 << 20) + "\n"
    patch = write(tmp_path / "p.log", clean() + forged + long)
    result = run_k3diff("logs", base, patch)
    assert result.exit_code == 1
    assert "\x1b" not in result.stdout and "\r" not in result.stdout
    assert [line for line in result.stdout.splitlines() if line.startswith("Verdict:")] == [
        result.stdout.splitlines()[-1]
    ]
    _code, doc = run_json(base, patch)
    longest = next(f for f in doc["files"] if f["side"] == "patch")
    assert longest["long_lines"] == 1
    assert all(len(e["text"]) <= 300 for f in doc["findings"] for e in f["examples"])


def test_markdown_report(tmp_path: Path) -> None:
    base = write(tmp_path / "b.log", clean())
    patch = write(tmp_path / "p.log", clean() + TRACEBACK.format(minute="02", line=1))
    result = run_k3diff("logs", base, patch, "--format", "markdown")
    assert result.exit_code == 1
    assert result.stdout.startswith("# Server logs")
    assert "## New on the patch" in result.stdout
    assert "| cuda-error | error | 1 |" in result.stdout
    assert "p.log:11 (traceback from line 8) |" in result.stdout


def test_the_bundle_reads_the_logs_document_and_recounts_it(tmp_path: Path) -> None:
    base = write(tmp_path / "b.log", clean())
    patch = write(tmp_path / "p.log", clean() + TRACEBACK.format(minute="02", line=1))
    assert (
        run_k3diff("logs", base, patch, "--format", "json", "-o", tmp_path / "logs.json").exit_code
        == 1
    )
    result = run_k3diff("report", tmp_path / "logs.json", "--out", tmp_path / "bundle")
    assert result.exit_code == 1, result.stderr
    summary = json.loads((tmp_path / "bundle" / "summary.json").read_text())
    row = next(r for r in summary["matrix"] if r["evidence"] == "runtime logs")
    assert row["status"] == "FAIL" and "1 error finding new on the patch" in row["finding"]
    # A hand-edited verdict is refused: the document disagrees with its own findings.
    doc = json.loads((tmp_path / "logs.json").read_text())
    doc["verdict"] = {"ok": True, "exit_code": 0, "strict": False, "failures": []}
    (tmp_path / "edited.json").write_text(json.dumps(doc))
    edited = run_k3diff("report", tmp_path / "edited.json", "--out", tmp_path / "bundle2")
    assert edited.exit_code == 2
    assert "edited.json: the document disagrees with itself" in edited.stderr
    assert "verdict says ok but 1 error finding fails it" in edited.stderr
    # Without a logs document the row is listed as missing, never implied.
    again = write(tmp_path / "again.log", base.read_text())  # logs refuses one file on both sides
    clean_run = run_k3diff("logs", base, again, "--format", "json", "-o", tmp_path / "clean.json")
    assert clean_run.exit_code == 0
    run_k3diff("report", tmp_path / "clean.json", "--out", tmp_path / "bundle3")
    summary = json.loads((tmp_path / "bundle3" / "summary.json").read_text())
    statuses = {r["evidence"]: r["status"] for r in summary["matrix"]}
    assert statuses["runtime logs"] == "pass" and statuses["telemetry/coverage"] == "missing"


def test_binary_files_are_not_read_as_logs(tmp_path: Path) -> None:
    """A wheel or core dump given as a log is refused; one inside a log directory is skipped
    and listed, never scanned as text."""
    good = write(tmp_path / "good.log", clean())
    binary = tmp_path / "pkg.whl"
    binary.write_bytes(b"PK\x03\x04" + b"\x00" * 64 + b"ERROR not a log line\n")
    result = run_k3diff("logs", good, binary)
    assert result.exit_code == 2
    assert "pkg.whl: binary content" in result.stderr
    directory = tmp_path / "patch"
    write(directory / "server.log", clean())
    (directory / "core").write_bytes(b"\x7fELF\x00\x00 Segmentation fault\n")
    _code, doc = run_json(good, directory)
    assert doc["patch"]["files"] == 1
    assert doc["patch"]["skipped"] == [f"{directory / 'core'} (binary)"]
    assert not any(f["rule"] == "crash" for f in doc["findings"])


def test_markdown_escapes_html_in_log_lines(tmp_path: Path) -> None:
    """A log line is input: raw HTML in it never reaches a rendered report as markup (inside a
    code span CommonMark shows it as text; anywhere else it is escaped)."""
    base = write(tmp_path / "b.log", clean())
    patch = write(tmp_path / "p.log", clean() + "ERROR <script>alert(1)</script> | x\n")
    result = run_k3diff("logs", base, patch, "--format", "markdown")
    assert result.exit_code == 1
    for line in result.stdout.splitlines():
        at = line.find("<script>")
        while at >= 0:
            assert line[:at].count("`") % 2 == 1, line  # inside a code span
            at = line.find("<script>", at + 1)
    assert "<script>" in result.stdout  # the message is shown, as text


def test_a_traceback_and_the_error_lines_that_announce_it_are_one_finding(tmp_path: Path) -> None:
    # uvicorn logs "ERROR:    Exception in ASGI application" and then the traceback; vLLM puts
    # its "ERROR <time> [file:line]" prefix on every line, the exception line included.
    crash = (
        "ERROR:    Exception in ASGI application\n"
        "Traceback (most recent call last):\n"
        '  File "app.py", line 3, in handler\n'
        "    raise ValueError('bad')\n"
        "ValueError: bad\n"
        "ERROR 05-12 10:11:12 [core.py:42] Traceback (most recent call last):\n"
        'ERROR 05-12 10:11:12 [core.py:42]   File "core.py", line 9, in step\n'
        "ERROR 05-12 10:11:12 [core.py:42] KeyError: 'slot'\n"
        "ERROR:    a lone error line\n"
    )
    base = write(tmp_path / "base.log", clean())
    patch = write(tmp_path / "patch.log", clean(pid=9) + crash)
    _code, doc = run_json(base, patch)
    found = [
        (f["rule"], f["message"])
        for f in doc["findings"]
        if f["side"] == "patch" and f["rule"] != "engine-warning"
    ]
    assert sorted(rule for rule, _ in found) == ["engine-error", "traceback", "traceback"]
    assert ("traceback", "ValueError: bad") in found and ("traceback", "KeyError: 'slot'") in found


SGLANG_CRASH = """\
[2026-12-05 00:03:00 TP0] Scheduler hit an exception: Traceback (most recent call last):
  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2318, in run_scheduler_process
    scheduler.event_loop_overlap()
  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 812, in event_loop_overlap
    batch = self.get_next_batch_to_run()
IndexError: list index out of range

[2026-12-05 00:03:00] Received sigquit from a child process. It usually means the child failed.
"""
"""SGLang's scheduler dying, as `run_scheduler_process` logs it (`logger.error(f"Scheduler hit an
exception: {traceback}")`, no level word in SGLang's `[time TPn]` prefix) and as its launcher
then logs the SIGQUIT the scheduler sent it."""


def test_an_sglang_scheduler_crash_fails_the_patch(tmp_path: Path) -> None:
    sglang = (
        "[2026-12-05 00:00:31] The server is fired up and ready to roll!\n"
        "[2026-12-05 00:01:02 TP0] Decode batch. #running-req: 12, #token: 4031, token usage: "
        "0.41, cuda graph: True, gen throughput (token/s): 1234.56, #queue-req: 0, \n"
    )
    base = write(tmp_path / "base.log", sglang)
    patch = write(tmp_path / "patch.log", sglang + SGLANG_CRASH)
    result = run_k3diff("logs", base, patch)
    assert result.exit_code == 1, result.stdout
    _code, doc = run_json(base, patch)
    new = {(f["rule"], f["message"]) for f in doc["findings"] if f["side"] == "patch" and f["new"]}
    # The traceback announced mid-line is one finding, its exception line the message, located
    # at that line (polish63: at the line announcing it, which is kept beside it); the
    # launcher's line is the crash it caused.
    assert ("traceback", "IndexError: list index out of range") in new, new
    traceback = next(f for f in doc["findings"] if f["rule"] == "traceback")
    assert traceback["examples"][0]["line"] == 8
    assert traceback["examples"][0]["context"] == [
        {"role": "traceback", "line": 3, "text": SGLANG_CRASH.splitlines()[0]}
    ]
    assert any(rule == "crash" and "sigquit" in message for rule, message in new), new


def test_one_shared_error_line_reads_singular(tmp_path: Path) -> None:
    # One error line on each side, the same message: the verdict line agrees in number.
    base = write(tmp_path / "b.log", clean() + OOM.format(pid=11, mib=20))
    patch = write(tmp_path / "p.log", clean(pid=99, port=9001) + OOM.format(pid=12, mib=64))
    result = run_k3diff("logs", base, patch)
    assert result.exit_code == 0, result.stdout
    assert "the patch's 1 error match also occurs on the base" in result.stdout.splitlines()[-1]


def test_the_bundle_counts_one_shared_error_line_in_the_singular(tmp_path: Path) -> None:
    base = write(tmp_path / "b.log", clean() + OOM.format(pid=11, mib=20))
    patch = write(tmp_path / "p.log", clean(pid=99, port=9001) + OOM.format(pid=12, mib=64))
    logs = tmp_path / "logs.json"
    assert run_k3diff("logs", base, patch, "--format", "json", "-o", logs).exit_code == 0
    assert run_k3diff("report", logs, "--out", tmp_path / "bundle").exit_code == 0
    summary = json.loads((tmp_path / "bundle" / "summary.json").read_text())
    row = next(r for r in summary["matrix"] if r["evidence"] == "runtime logs")
    assert "(1 error match on the patch, 1 on the base, each traceback one match;" in row["finding"]
    report = (tmp_path / "bundle" / "REPORT.md").read_text()
    assert "the patch's error match also occurs on the base" in report


def test_the_bundle_row_claims_no_traceback_where_none_was_logged(tmp_path: Path) -> None:
    """newuser64: the row of two clean logs read '0 error matches on the patch, 0 on the base, a
    traceback matched once', a rule of counting read as a traceback found."""
    base = write(tmp_path / "b.log", clean())
    patch = write(tmp_path / "p.log", clean(pid=99, port=9001))
    logs = tmp_path / "logs.json"
    assert run_k3diff("logs", base, patch, "--format", "json", "-o", logs).exit_code == 0
    assert run_k3diff("report", logs, "--out", tmp_path / "bundle").exit_code == 0
    summary = json.loads((tmp_path / "bundle" / "summary.json").read_text())
    row = next(r for r in summary["matrix"] if r["evidence"] == "runtime logs")
    assert "traceback matched" not in row["finding"]
    assert (
        "(0 error matches on the patch, 0 on the base, each traceback one match;"
        in (row["finding"])
    )
