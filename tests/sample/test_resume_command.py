"""A run that stops where `--resume` gets past names the command that resumes it: the run's own
command line with `--resume`, to paste (more80: the line said only "(--resume continues)").
Pasted as printed, it takes the samples the log lacks, and the summary counts every sample of
the run, those kept and those taken now."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import pytest

from k3diff.errors import OutputError
from k3diff.sample.log import SampleLog

from .support import headline, read_samples, sample, write_prompts


def test_the_stop_names_the_resume_command_and_its_run_counts_every_sample(
    fault_server: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = fault_server()
    prompts = write_prompts(tmp_path / "p q.jsonl", [{"key": "k0", "prompt": "p0"}])
    out = tmp_path / "out"
    written: list[bytes] = []
    real = SampleLog._write

    def full_after_three(log: SampleLog, data: bytes) -> None:
        if len(written) == 3:  # three samples (the header is written otherwise)
            raise OutputError(f"{log.path}: cannot append: No space left on device")
        written.append(data)
        real(log, data)

    monkeypatch.setattr(SampleLog, "_write", full_after_three)
    args = ("--base", server.url, "--prompts", str(prompts), "--repeats", "5", "--out", str(out))
    stopped = sample(*args, "--param", "max_tokens=8")
    assert stopped.exit_code == 2, stopped.stdout
    [line] = stopped.stderr.splitlines()
    said, command = line.split(" (--resume continues: ")
    assert said.endswith(f"; stopped, 3 samples kept in {out}/samples.jsonl"), line
    assert command.endswith(")"), line
    words = shlex.split(command[:-1])
    assert words == ["k3diff", "sample", *args, "--param", "max_tokens=8", "--resume"], words
    monkeypatch.undo()

    resumed = sample(*words[2:])  # as pasted
    assert resumed.exit_code == 0, resumed.stderr
    assert len(read_samples(out)[1]) == 5
    said = headline(resumed.stdout)
    assert said.startswith(
        f"OK: 5 of 5 planned samples taken ({out}/samples.jsonl, 2 taken now), none failed"
    ), said
    last = resumed.stdout.rstrip("\n").splitlines()[-1]
    assert last == "result: every planned sample taken, none failed (exit 0)", resumed.stdout
