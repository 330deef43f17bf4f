"""After a triage that more samples would decide, the text says the command that takes them
(found by the new-user trial: "about 7 more samples a side", but `--resume --repeats 32` was
refused and `--pool-runs` was named nowhere): the run triaged grows in place with `k3diff
sample --resume` and a larger `--repeats` (`tests/sample/test_resume_more.py`)."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cli_support import HOSTILE, pasted, run_k3diff

from .helpers import S, compare_texts, side, write_samples


def _triage(
    tmp_path: Path, base: list[str], patch: list[str], *args: str
) -> tuple[str, str, dict[str, Any]]:
    cmp = compare_texts(tmp_path, {"k": (base[0], patch[-1])})
    log = write_samples(
        tmp_path / "run" / "samples.jsonl", side("k", "base", base) + side("k", "patch", patch)
    )
    text = run_k3diff("triage", "cmp.json", "run/samples.jsonl", *args, cwd=tmp_path)
    markdown = run_k3diff("triage", cmp, log, "--format", "markdown", *args)
    result = run_k3diff("triage", cmp, log, "--format", "json", *args)
    return text.stdout, markdown.stdout, json.loads(result.stdout)


def test_a_hold_names_the_command_that_takes_the_samples(tmp_path: Path) -> None:
    text, markdown, doc = _triage(tmp_path, ["a", "a", "a"], ["a", "b", "a"])
    record = doc["records"][0]
    assert record["category"] == "inconclusive" and doc["verdict"]["exit_code"] == 1
    more = record["more_samples"]
    command = f"k3diff sample --base http://127.0.0.1:1 --out run --resume --repeats {3 + more}"
    lines = text.splitlines()
    assert lines[-1].startswith("result: ")
    assert lines[-2] == (
        f"next: to take the {more} more samples a side the inconclusive records ask for, grow "
        f"the run: {command} (only --repeats may grow; the samples logged are kept), then run "
        "this triage again"
    )
    assert "--resume --repeats" in markdown and "its options, as before" not in markdown


def test_a_pass_or_a_decided_record_names_no_next_step(tmp_path: Path) -> None:
    text, markdown, doc = _triage(tmp_path, ["a", "b", "a"], ["b", "b", "b"])
    assert doc["records"][0]["category"] == "base-nondeterminism"
    assert "next:" not in text and "--resume" not in markdown


def _logged(tmp_path: Path, command: list[str] | None) -> str:
    """The triage's `next:` line for a log whose header records `command` (None: no command,
    as a log written before headers recorded one)."""
    _triage(tmp_path, ["a", "a", "a"], ["a", "b", "a"])
    log = tmp_path / "run" / "samples.jsonl"
    header, *rest = log.read_text().splitlines(keepends=True)
    fields = json.loads(header)
    if command is None:
        del fields["run"]["command"]
    else:
        fields["run"]["command"] = command
    log.write_text(json.dumps(fields) + "\n" + "".join(rest))
    text = run_k3diff("triage", "cmp.json", "run/samples.jsonl", cwd=tmp_path).stdout
    (line,) = [line for line in text.splitlines() if line.startswith("next: ")]
    return line


def test_the_next_step_is_the_logged_command_runnable_as_printed(tmp_path: Path) -> None:
    """newuser60b: `<its options, as before>` had to be rebuilt by hand. The log's header
    records the command (its `--header` values hidden): printed shell-quoted with the log's own
    directory as `--out`, its `--repeats` and `--resume` replaced, the hidden values named."""
    logged = [
        "k3diff", "sample", "--base", "http://h:1", "--prompts", "my prompts.jsonl",
        "--header", "Authorization:***", "--out=elsewhere", "--repeats=3", "--resume",
    ]  # fmt: skip
    line = _logged(tmp_path, logged)
    assert "grow the run: k3diff sample --base http://h:1 --prompts 'my prompts.jsonl' " in line
    assert "--header 'Authorization:***' --out run --resume --repeats 11 (each --header" in line
    assert "elsewhere" not in line and "--repeats=3" not in line and "Bearer" not in line
    assert "<its options" in _logged(tmp_path, None)


@pytest.mark.skipif(shutil.which("bash") is None, reason="the command is pasted into bash")
def test_the_next_step_pastes_as_the_logged_command_whatever_its_values(tmp_path: Path) -> None:
    """shell65: the line is one line of text, which shows a tab or a newline as an escape and
    an ESC as `\\x1b`, so a `--param` or a prompts file whose name held one was printed quoted,
    then changed on its way out, and the pasted command sent other values. Pasted into bash as
    printed, it is the logged command, each value as it was."""
    logged = [
        "k3diff", "sample", "--base", "http://h:1", "--prompts", f"{HOSTILE}.jsonl",
        "--param", f"stop={HOSTILE}", "--out", "run", "--repeats", "3",
    ]  # fmt: skip
    line = _logged(tmp_path, logged)
    found = re.search(r"grow the run: (.+) \(only --repeats may grow", line)
    assert found is not None, line
    assert pasted(found.group(1)) == [*logged[:-4], "--out", "run", "--resume", "--repeats", "11"]


@pytest.mark.skipif(shutil.which("bash") is None, reason="the command is pasted into bash")
def test_a_run_without_a_logged_command_is_named_as_given(tmp_path: Path) -> None:
    """A log that records no command gets `<its options, as before>`, then the run's directory
    as `--out`: printed as it was, between spaces, so a directory holding a space or a tab
    named another (shell65). Pasted into bash, `--out` is the directory triaged."""
    _logged(tmp_path, None)
    (tmp_path / "run").rename(tmp_path / HOSTILE)
    text = run_k3diff("triage", "cmp.json", f"{HOSTILE}/samples.jsonl", cwd=tmp_path).stdout
    found = re.search(r"<its options, as before> --out (.+) --resume --repeats 11 \(", text)
    assert found is not None, text
    assert pasted(found.group(1)) == [HOSTILE]


def test_a_sweep_names_a_new_run_from_its_logged_command(tmp_path: Path) -> None:
    """A sweep's repeats cannot grow: the logged command with `--out NEW_DIR` and the samples
    asked for, no `--resume`."""
    _triage(tmp_path, ["a", "a", "a"], ["a", "b", "a"])
    log = tmp_path / "run" / "samples.jsonl"
    header, *rest = log.read_text().splitlines(keepends=True)
    fields = json.loads(header)
    fields["run"]["levels"] = [1, 4]
    fields["run"]["command"] = ["k3diff", "sample", "--base", "u", "--levels", "1,4", "--out", "r"]
    log.write_text(json.dumps(fields) + "\n" + "".join(rest))
    text = run_k3diff("triage", "cmp.json", "run/samples.jsonl", cwd=tmp_path).stdout
    assert (
        "(this run's repeats cannot grow): k3diff sample --base u --levels 1,4 --out NEW_DIR "
        in text
    )
    assert "--resume" not in text


def _launched(tmp_path: Path, launcher: list[str], path: str) -> str:
    """The `next:` line of the triage run as a new user would: through `launcher` (a console
    script or `python -m k3diff`) in a subprocess, with PATH set to `path`."""
    _triage(tmp_path, ["a", "a", "a"], ["a", "b", "a"])
    env = {**os.environ, "PATH": path, "COLUMNS": "100"}
    args = [*launcher, "triage", "cmp.json", "run/samples.jsonl"]
    proc = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, env=env, check=False)
    assert proc.returncode == 1, proc.stderr
    (line,) = [line for line in proc.stdout.splitlines() if line.startswith("next: ")]
    return line


def _console_script(tmp_path: Path, venv: str = "my venv") -> Path:
    """A console script like pip's `.venv/bin/k3diff`, under `tmp_path/VENV/bin`."""
    script = tmp_path / venv / "bin" / "k3diff"
    script.parent.mkdir(parents=True)
    script.write_text(
        f"#!{sys.executable}\nimport sys\nfrom k3diff.cli import main\nsys.exit(main())\n"
    )
    script.chmod(0o755)
    return script


def test_the_next_step_names_the_k3diff_the_user_ran(tmp_path: Path) -> None:
    """newuser61: README runs `.venv/bin/k3diff` without activating the venv, and the pasted
    `next:` line, bare `k3diff sample ...`, failed with exit 127. Where `k3diff` on PATH is not
    the program running, the line names the program as it was run, shell-quoted."""
    script = _console_script(tmp_path)
    empty = tmp_path / "empty"
    empty.mkdir()
    grow = "grow the run: "
    line = _launched(tmp_path, ["my venv/bin/k3diff"], str(empty))
    assert f"{grow}'my venv/bin/k3diff' sample --base http://127.0.0.1:1 --out run " in line
    line = _launched(tmp_path, [sys.executable, "-m", "k3diff"], str(empty))
    assert f"{grow}{shlex.quote(sys.executable)} -m k3diff sample --base " in line
    # The same program on PATH: bare `k3diff`, as the user would type it.
    line = _launched(tmp_path, [str(script)], str(script.parent))
    assert f"{grow}k3diff sample --base " in line


def test_a_side_whose_every_request_was_refused_gets_no_command_that_repeats_them(
    tmp_path: Path,
) -> None:
    """newuser64b: the patch server refused each request for the request's own condition (HTTP
    400, logged with each failed sample); `--resume` sends the same requests, so the next step
    says what failed, in the text and in the bundle's next steps built from it."""
    cmp = compare_texts(tmp_path, {"k": ("a", "b")})
    refused = "HTTP 400: stream is not supported by this server"
    failed = [S("patch", "k", None, status=400, error=refused)] * 3
    log = write_samples(tmp_path / "run" / "samples.jsonl", side("k", "base", ["a"] * 3) + failed)
    text = run_k3diff("triage", cmp, log).stdout
    (line,) = [line for line in text.splitlines() if line.startswith("next: ")]
    assert f"every patch request the run logged was refused ({refused})" in line
    assert "--resume" not in line and "grow the run" not in line
    triage = tmp_path / "triage.json"
    assert run_k3diff("triage", cmp, log, "--format", "json", "-o", triage).exit_code == 1
    bundle = run_k3diff("report", cmp, log, triage, "--out", tmp_path / "bundle")
    assert bundle.exit_code == 1, bundle.stderr
    steps = json.loads((tmp_path / "bundle" / "summary.json").read_text())["next_steps"]
    (step,) = [s["step"] for s in steps if s["source"].endswith("triage.json")]
    assert f"every patch request the run logged was refused ({refused})" in step
    assert "--resume" not in step
    # A connection refused (no answer) is one more requests can get past: the run grows.
    gone = [S("patch", "k", None)] * 3
    write_samples(log, side("k", "base", ["a"] * 3) + gone)
    assert "grow the run:" in run_k3diff("triage", cmp, log).stdout


def test_a_side_whose_every_answer_was_unusable_gets_no_command_that_repeats_them(
    tmp_path: Path,
) -> None:
    """newuser64c: the patch server answered each request (HTTP 200) with an answer k3diff
    could not use (its model named as an object); the same requests get the same answers, so
    the next step says what failed instead of growing the run."""
    cmp = compare_texts(tmp_path, {"k": ("a", "b")})
    unusable = 'the answer names its model as {"name": "ckpt-8"}, not as a name'
    failed = [S("patch", "k", None, status=200, error=unusable)] * 3
    log = write_samples(tmp_path / "run" / "samples.jsonl", side("k", "base", ["a"] * 3) + failed)
    (line,) = [
        line
        for line in run_k3diff("triage", cmp, log).stdout.splitlines()
        if line.startswith("next: ")
    ]
    assert "every patch request the run logged was answered unusably (the answer names" in line
    assert "--resume" not in line and "grow the run" not in line
    # One usable answer among them: more requests can succeed, and the run grows.
    write_samples(log, side("k", "base", ["a"] * 3) + failed[:2] + side("k", "patch", ["b"]))
    assert "grow the run:" in run_k3diff("triage", cmp, log).stdout


@pytest.mark.skipif(shutil.which("bash") is None, reason="the command is pasted into bash")
def test_the_k3diff_the_user_ran_pastes_as_run_whatever_its_path(tmp_path: Path) -> None:
    """shell65: a venv whose path held two spaces, a tab or an ESC was named quoted, then
    changed on its way out (`\\t`, `\\x1b`), and the pasted line ran no k3diff (exit 127).
    Pasted into bash as printed, the line starts with the program as it was run."""
    venv = HOSTILE
    script = _console_script(tmp_path, venv)
    empty = tmp_path / "empty"
    empty.mkdir()
    line = _launched(tmp_path, [f"{venv}/bin/k3diff"], str(empty))
    found = re.search(r"grow the run: (.+) \(only --repeats may grow", line)
    assert found is not None, line
    words = pasted(found.group(1))
    assert words[:3] == [f"{venv}/bin/k3diff", "sample", "--base"], line
    assert Path(tmp_path, words[0]).samefile(script)


def _stopped_part_way(tmp_path: Path, planned: int) -> tuple[str, int]:
    """The `next:` line for the 3-a-side run of `_triage`, its header planning `planned`
    repeats and its last line the stop of a Ctrl-C (resumable), and the samples it asks for."""
    _, _, doc = _triage(tmp_path, ["a", "a", "a"], ["a", "b", "a"])
    log = tmp_path / "run" / "samples.jsonl"
    header, *rest = log.read_text().splitlines(keepends=True)
    fields = json.loads(header)
    fields["run"]["repeats"] = planned
    fields["run"]["command"][-1] = str(planned)
    stop = {
        "schema": "k3diff.samples/1",
        "stopped": "2025-01-01T00:01:00Z",
        "reason": "interrupted",
        "resumable": True,
        "message": "aborted (Ctrl-C)",
    }
    log.write_text(json.dumps(fields) + "\n" + "".join(rest) + json.dumps(stop) + "\n")
    text = run_k3diff("triage", "cmp.json", "run/samples.jsonl", cwd=tmp_path).stdout
    (line,) = [line for line in text.splitlines() if line.startswith("next: ")]
    return line, doc["records"][0]["more_samples"]


def test_a_run_stopped_part_way_is_finished_not_grown_past_what_is_asked(tmp_path: Path) -> None:
    """newuser65: a run of --repeats 100 stopped by Ctrl-C after 48 of its 1,600 samples was
    told `--resume --repeats 160` for records asking for 60 more a side, where the 100 repeats
    it planned, taken to the end, already hold them; the bundle's step said the same. A resume
    takes each record to the larger of the run's repeats and its repeats logged (3 here) plus
    those it asks for."""
    line, more = _stopped_part_way(tmp_path, planned=40)
    assert 3 + more < 40
    assert (
        "finish the run (it stopped part-way; its 40 repeats, taken to the end, hold them): "
        "k3diff sample --base http://127.0.0.1:1 --out run --resume --repeats 40 (" in line
    )
    made = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--format", "json", "-o", "t.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert made.exit_code == 1, made.stderr
    bundle = run_k3diff(
        "report", "cmp.json", "run/samples.jsonl", "t.json", "--out", "b", cwd=tmp_path
    )
    assert bundle.exit_code == 1, bundle.stderr
    summary = json.loads((tmp_path / "b" / "summary.json").read_text())
    (step,) = [s["step"] for s in summary["next_steps"] if s["source"] == "t.json"]
    assert "finish the run" in step and "--out RUN_DIR --resume --repeats 40 (" in step


def test_the_bundle_says_a_run_stopped_part_way(tmp_path: Path) -> None:
    """newuser65: the bundle's sampling row read `6 samples of 1 record ...` for a run stopped
    by Ctrl-C after its first repeats, as if it were taken whole; it now says the run stopped,
    and a qualification says why and when (the stop line's reason and message)."""
    _stopped_part_way(tmp_path, planned=40)
    bundle = run_k3diff("report", "cmp.json", "run/samples.jsonl", "--out", "b", cwd=tmp_path)
    assert bundle.exit_code in (0, 1), bundle.stderr
    summary = json.loads((tmp_path / "b" / "summary.json").read_text())
    (row,) = [row for row in summary["matrix"] if row["evidence"] == "sampling"]
    assert "; 0 failed; the run stopped part-way (interrupted); samples given" in row["finding"]
    assert (
        "run/samples.jsonl: the run stopped part-way at 2025-01-01T00:01:00Z (interrupted: "
        "aborted (Ctrl-C)): it holds the samples taken before, not every sample it planned"
    ) in summary["qualifications"]
    html = (tmp_path / "b" / "report.html").read_text()
    assert "the run stopped part-way (interrupted)" in html


def test_a_run_stopped_short_of_what_is_asked_grows_from_what_it_logged(tmp_path: Path) -> None:
    """Planned fewer repeats than a record needs: grown to its repeats logged plus the samples
    it asks for, not the plan's repeats plus them."""
    line, more = _stopped_part_way(tmp_path, planned=5)
    assert 3 + more > 5
    assert (
        "grow the run: k3diff sample --base http://127.0.0.1:1 --out run --resume "
        f"--repeats {3 + more} (" in line
    )


def test_a_url_whose_password_the_log_hides_is_said_to_be_given_again(tmp_path: Path) -> None:
    """review71c: the log records `--patch http://user:pw@host` as `http://***@host`; the next
    step's command, run as printed, would send `***` as the password. Its line says to give
    it again, as it does a hidden `--header` value (before: no word of it)."""
    _logged(tmp_path, ["k3diff", "sample", "--base", "http://127.0.0.1:1", "--patch",
                       "http://***@127.0.0.1:2", "--repeats", "3"])  # fmt: skip
    text = run_k3diff("triage", "cmp.json", "run/samples.jsonl", cwd=tmp_path).stdout
    (line,) = [line for line in text.splitlines() if line.startswith("next: ")]
    assert "--patch 'http://***@127.0.0.1:2'" in line
    assert "(each URL user:password the log hides as *** given again)" in line


def test_a_run_whose_server_stopped_answering_says_to_start_it_first(tmp_path: Path) -> None:
    """newuser80: a run stopped because the patch server was killed (`no-answer`, resumable)
    was told only to grow the run; that resume stops again at once until the server answers.
    The step now says so first, and still names the command (the bundle's step too)."""
    _, _, doc = _triage(tmp_path, ["a", "a", "a"], ["a", "b", "a"])
    log = tmp_path / "run" / "samples.jsonl"
    message = (
        "http://127.0.0.1:1/v1/completions: 5 requests in a row got no answer (the last: "
        "connection error: ConnectError: All connection attempts failed), each after --retries "
        "3: the server is down or unreachable"
    )
    stop = {
        "schema": "k3diff.samples/1",
        "stopped": "2025-01-01T00:01:00Z",
        "reason": "no-answer",
        "resumable": True,
        "message": message,
        "side": "patch",
    }
    log.write_text(log.read_text() + json.dumps(stop) + "\n")
    text = run_k3diff("triage", "cmp.json", "run/samples.jsonl", cwd=tmp_path).stdout
    (line,) = [line for line in text.splitlines() if line.startswith("next: ")]
    more = doc["records"][0]["more_samples"]
    assert line.startswith(
        f"next: the run stopped part-way: the patch server stopped answering ({message}): make "
        "that server answer first (its own log says why), since the same requests fail until "
        f"it does; then, to take the {more} more samples a side the inconclusive records ask "
        "for, grow the run: k3diff sample --base http://127.0.0.1:1 --out run --resume "
        f"--repeats {3 + more} ("
    ), line
    made = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--format", "json", "-o", "t.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert made.exit_code == 1, made.stderr
    bundle = run_k3diff(
        "report", "cmp.json", "run/samples.jsonl", "t.json", "--out", "b", cwd=tmp_path
    )
    assert bundle.exit_code == 1, bundle.stderr
    summary = json.loads((tmp_path / "b" / "summary.json").read_text())
    (step,) = [s["step"] for s in summary["next_steps"] if s["source"] == "t.json"]
    assert step.startswith("the run stopped part-way: the patch server stopped answering ("), step
    assert "--out RUN_DIR --resume --repeats" in step


def test_a_run_interrupted_by_ctrl_c_names_no_server_to_start(tmp_path: Path) -> None:
    """Only a server that stopped answering is named: a Ctrl-C leaves the step as it was."""
    line, _ = _stopped_part_way(tmp_path, planned=40)
    assert "stopped answering" not in line and "answer first" not in line
