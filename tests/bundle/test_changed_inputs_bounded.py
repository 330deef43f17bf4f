"""Many inputs changed since one document (review67b): each was a line of its own with the
command that writes the document anew, and that command names every input, so the refusal grew
as the square of the inputs (a 0.9 MB logs document recording 3,000 files not given: 316 MB of
error, 1.9 GB of memory). A document's first ten are named; the rest are counted on one line,
and the head still counts them all."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from cli_support import run_k3diff

LOGS = 30
SAID = 10


def test_a_documents_many_changed_inputs_are_counted_past_the_first_ten(tmp_path: Path) -> None:
    (tmp_path / "base.log").write_text("INFO engine started\n")
    patches = [f"p{n:02d}.log" for n in range(LOGS)]
    for name in patches:
        (tmp_path / name).write_text("INFO engine started\n")
    args = ["logs", "--base", "base.log", *(w for n in patches for w in ("--patch", n))]
    made = run_k3diff(*args, "--format", "json", "-o", "d.json", cwd=tmp_path)
    assert made.exit_code == 0, made.stderr
    for name in patches:
        (tmp_path / name).write_text("INFO engine started\nINFO later\n")

    given = ["d.json", "base.log", *patches]
    result = run_k3diff("report", *given, "--out", "o", cwd=tmp_path)
    assert result.exit_code == 2, result.stderr
    assert not (tmp_path / "o").exists()
    head, *lines = result.stderr.splitlines()
    assert head.startswith(f"k3diff: error: {LOGS} inputs changed since the documents "), head
    assert len(lines) == SAID + 1, result.stderr
    named = [line for line in lines if ": changed since d.json recorded it as " in line]
    assert len(named) == SAID, lines
    assert lines[-1] == (
        f"  ({SAID + 1}) d.json: {LOGS - SAID} more of its inputs changed since it was "
        "written, not named here; the command above brings it up to date"
    ), lines[-1]
    # The command named above writes the document anew, and report then takes it all.
    command = re.search(r"run `k3diff (.+)` again to bring d\.json up to date$", named[-1])
    assert command is not None, named[-1]
    assert run_k3diff(*shlex.split(command.group(1)), cwd=tmp_path).exit_code == 0
    assert run_k3diff("report", *given, "--out", "o", cwd=tmp_path).exit_code == 0
