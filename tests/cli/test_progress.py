"""Long work shows one progress line, weighted by bytes, with rate and ETA, on a terminal only.

The commands run as a user runs them: a child process whose stderr is a real pseudo-terminal
(`pty.openpty`), then the same run with stderr a pipe, which must show nothing of the progress
and write a byte-identical `-o` report.
"""

from __future__ import annotations

import io
import json
import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest
from wheelkit import make_wheel

from k3diff.cli.progress import TerminalProgress
from k3diff.progress import Tally

ROOT = Path(__file__).resolve().parents[2]
PERCENT = re.compile(r"(\d+)%")


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_line_says_bytes_percent_rate_and_eta() -> None:
    progress = TerminalProgress("wheels", stream=_Terminal())
    line = progress.line(256 << 20, 1 << 30, elapsed=2.0)
    assert line == "wheels: 256.0 MiB / 1.0 GiB   25%  128.0 MiB/s  ETA 0:06"


def test_counted_work_names_its_unit() -> None:
    progress = TerminalProgress("sample", unit="requests", stream=_Terminal())
    progress.note = "2 errors"
    line = progress.line(30, 120, elapsed=3.0)
    assert line == "sample: 30 / 120 requests   25%  10.0/s  ETA 0:09  2 errors"


def test_draws_on_a_terminal_and_erases_itself() -> None:
    stream = _Terminal()
    progress = TerminalProgress("audit", stream=stream, interval=0.0)
    progress(5, 10)
    progress(10, 10)
    progress.close()
    assert "audit: 10 B / 10 B  100%" in stream.getvalue()
    assert stream.getvalue().endswith("\r\x1b[K")


def test_silent_when_not_a_terminal() -> None:
    stream = io.StringIO()
    progress = TerminalProgress("audit", stream=stream, interval=0.0)
    progress(10, 10)
    progress.close()
    assert stream.getvalue() == ""


def test_a_share_moves_the_tally_while_one_entry_inflates() -> None:
    seen: list[tuple[int, int]] = []
    tally = Tally(1000, lambda done, total: seen.append((done, total)))
    share = tally.share(100, size=4000)  # 100 compressed bytes inflating to 4000
    for _ in range(4):
        share.produced(1000)
    share.finish()
    tally.add(900)
    assert seen == [(25, 1000), (50, 1000), (75, 1000), (100, 1000), (1000, 1000)]


def _run(args: list[str], cwd: Path, *, terminal: bool) -> tuple[int, str]:
    """Run `python -m k3diff ARGS`; stderr a pseudo-terminal or a pipe. Returns (rc, stderr)."""
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    command = [sys.executable, "-m", "k3diff", *args]
    if not terminal:
        done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, check=False)
        return done.returncode, done.stderr.decode()
    leader, follower = pty.openpty()
    child = subprocess.Popen(
        command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=follower, close_fds=True
    )
    os.close(follower)
    drawn = bytearray()
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the child closed its end
            break
        if not chunk:
            break
        drawn += chunk
    os.close(leader)
    return child.wait(timeout=120), drawn.decode(errors="replace")


def _check_progress(args: list[str], cwd: Path, label: str, report: Path) -> None:
    rc, drawn = _run([*args, "-o", str(report)], cwd, terminal=True)
    on_terminal = report.read_bytes()
    lines = [part for part in re.split(r"[\r\n]", drawn) if part.startswith(f"{label}: ")]
    assert lines, drawn
    percents = [int(m.group(1)) for line in lines if (m := PERCENT.search(line))]
    assert len(set(percents)) >= 2, lines  # it moved
    assert percents == sorted(percents), lines
    assert percents[-1] == 100, lines
    assert all("ETA" in line and re.search(r"[KMG]iB", line) for line in lines), lines
    assert any(re.search(r"[KMG]iB/s", line) for line in lines), lines
    report.unlink()
    piped_rc, piped = _run([*args, "-o", str(report)], cwd, terminal=False)
    assert piped_rc == rc
    assert "ETA" not in piped and "\r" not in piped and "\x1b" not in piped
    assert report.read_bytes() == on_terminal


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two wheels of 24 MiB of incompressible entries, a few of them changed."""
    root = tmp_path_factory.mktemp("progress-wheels")
    files = {f"pkg/blob{i:03d}.bin": os.urandom(512 << 10) for i in range(48)}
    base = make_wheel(root / "base", "pkg", "1.0", files)
    changed = {**files, **{f"pkg/blob{i:03d}.bin": os.urandom(512 << 10) for i in range(0, 48, 7)}}
    patch = make_wheel(root / "patch", "pkg", "1.0", changed)
    return base, patch


def test_wheels_shows_byte_weighted_progress(wheels: tuple[Path, Path], tmp_path: Path) -> None:
    base, patch = wheels
    args = ["wheels", str(base), str(patch), "--format", "json"]
    _check_progress(args, tmp_path, "wheels", tmp_path / "report.json")


def test_audit_shows_byte_weighted_progress(wheels: tuple[Path, Path], tmp_path: Path) -> None:
    base, patch = wheels
    args = ["audit", str(base), str(patch), "--format", "json"]
    _check_progress(args, tmp_path, "audit", tmp_path / "report.json")


def test_responses_shows_byte_weighted_progress(tmp_path: Path) -> None:
    for side, word in (("base", "same"), ("patch", "other")):
        with open(tmp_path / f"{side}.jsonl", "w", encoding="utf-8") as handle:
            for i in range(30_000):
                text = f"{word if i % 97 == 0 else 'same'} answer {i} " + "filler " * 20
                record = {
                    "id": f"cmpl-{i}",
                    "object": "text_completion",
                    "model": "m",
                    "choices": [{"index": 0, "text": text, "finish_reason": "stop"}],
                }
                handle.write(json.dumps(record) + "\n")
    args = ["responses", "base.jsonl", "patch.jsonl", "--format", "json"]
    _check_progress(args, tmp_path, "responses", tmp_path / "report.json")


def test_logs_shows_byte_weighted_progress(tmp_path: Path) -> None:
    line = "INFO 05-12 10:00:03 [logger.py:39] Received request cmpl-{i}: prompt: 'hello'\n"
    for side in ("base", "patch"):
        (tmp_path / f"{side}.log").write_text("".join(line.format(i=i) for i in range(300_000)))
    args = ["logs", "base.log", "patch.log", "--format", "json"]
    _check_progress(args, tmp_path, "logs", tmp_path / "report.json")


def test_a_tally_calls_its_listener_about_a_thousand_times_at_most() -> None:
    seen: list[int] = []
    tally = Tally(1_000_000, lambda done, total: seen.append(done))
    for _ in range(100_000):  # a 100k-record load: one small addition per record
        tally.add(10)
    assert len(seen) <= 1001
    assert seen[-1] == 1_000_000
    assert seen == sorted(seen)


def test_sample_counts_requests_on_the_same_line(monkeypatch: pytest.MonkeyPatch) -> None:
    from k3diff.cli.progress import ProgressLine
    from k3diff.sample.sampler import Counts

    stream = _Terminal()
    monkeypatch.setattr(sys, "stderr", stream)
    line = ProgressLine()
    line(Counts(done=40, total=40, errors=1, unstable=2))
    line.close()
    drawn = stream.getvalue()
    assert "sample: 40 / 40 requests  100%" in drawn
    assert "ETA" in drawn and "1 errors, 2 unstable" in drawn
    assert drawn.endswith("\r\x1b[K")


def test_work_counted_before_the_total_is_known_is_shown_after() -> None:
    seen: list[tuple[int, int]] = []
    tally = Tally(100, lambda done, total: seen.append((done, total)), known=False)
    tally.add(40)  # a file hashed while the archives are still being opened
    assert seen == []
    tally.grow(300)
    tally.add(360)
    assert seen == [(40, 400), (400, 400)]
