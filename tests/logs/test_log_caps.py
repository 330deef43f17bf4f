"""`k3diff logs` on logs built to cost: `.gz` bombs, too much inflated text, files skipped as
binary and errors hidden inside a traceback. Each ends in a refusal naming the cap, or a
failing verdict, never a long run or a clean pass."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from cli_support import run_k3diff

from .logs_support import CLEAN, TRACEBACK, clean, write

MEMBER_LINES = 64 << 20
"""Newlines in one gzip member: 64 MiB inflated from about 64 KiB (1028:1)."""


def _bomb(path: Path, members: int) -> Path:
    """A multi-member `.gz`: the same 64 MiB-of-newlines member `members` times (320 members
    would be 20 GiB inflated from 20 MB, the size that ran past five minutes)."""
    member = gzip.compress(b"\n" * MEMBER_LINES, 9)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        handle.write(gzip.compress(clean().encode()))
        for _ in range(members):
            handle.write(member)
    return path


def test_a_gz_past_the_bomb_ratio_is_refused_at_its_first_64_mib(tmp_path: Path) -> None:
    base = write(tmp_path / "b.log", clean())
    patch = _bomb(tmp_path / "p.log.gz", members=320)
    result = run_k3diff("logs", base, patch)
    assert result.exit_code == 2 and "Traceback" not in result.stderr
    assert "p.log.gz: inflates to more than 1000:1" in result.stderr
    assert "compression bomb" in result.stderr


def test_the_run_total_of_inflated_bytes_is_capped_and_named(tmp_path: Path) -> None:
    text = (CLEAN * 2000).encode()  # about 1 MB a side, compressed well under 1000:1
    base = tmp_path / "b.log.gz"
    base.write_bytes(gzip.compress(text))
    patch = tmp_path / "p.log.gz"
    patch.write_bytes(gzip.compress(text))
    result = run_k3diff("logs", base, patch, "--max-inflated-bytes", str(len(text) + 1000))
    assert result.exit_code == 2
    assert "p.log.gz: the .gz logs inflate past --max-inflated-bytes" in result.stderr
    assert run_k3diff("logs", base, patch).exit_code == 0


def test_the_scan_time_is_capped_and_named(tmp_path: Path) -> None:
    base = write(tmp_path / "b.log", clean())
    patch = write(tmp_path / "p.log", clean() + "ERROR CUDA error 1\n" * 200_000)
    result = run_k3diff("logs", base, patch, "--max-seconds", "0.000001")
    assert result.exit_code == 2 and "--max-seconds" in result.stderr


def test_a_file_skipped_as_binary_fails_either_side(tmp_path: Path) -> None:
    """A NUL byte in the first 64 KiB of a log ending in a CUDA error: skipped as binary and
    listed; it fails the run (it was not read, so it could hide anything). On the base side it
    passed before logs64; now no entry of either side goes unread in an exit 0 (with --strict
    a base read in part hid the base's own errors)."""
    hidden = "\0" + clean() + "RuntimeError: CUDA error: an illegal memory access\n"
    for side in ("base", "patch"):
        write(tmp_path / side / "server.log", clean())
    write(tmp_path / "patch" / "worker.log", hidden)
    result = run_k3diff("logs", tmp_path / "base", tmp_path / "patch", "--format", "json")
    assert result.exit_code == 1
    doc = json.loads(result.stdout)
    assert doc["patch"]["skipped"] == [f"{tmp_path / 'patch' / 'worker.log'} (binary)"]
    text = run_k3diff("logs", tmp_path / "base", tmp_path / "patch")
    assert text.stdout.splitlines()[-1] == (
        f"Verdict: FAIL (exit 1): 1 patch entry not read: {tmp_path / 'patch' / 'worker.log'} "
        "(binary)"
    )
    # The same file on the base side fails too, naming the side.
    (tmp_path / "patch" / "worker.log").unlink()
    write(tmp_path / "base" / "worker.log", hidden)
    result = run_k3diff("logs", tmp_path / "base", tmp_path / "patch")
    assert result.exit_code == 1
    assert result.stdout.splitlines()[-1].startswith(
        "Verdict: FAIL (exit 1): 1 base entry not read: "
    )


def test_an_error_inside_a_traceback_both_sides_have_is_counted(tmp_path: Path) -> None:
    frame = "ERROR 05-12 10:07:05 [core.py:42]     CUDA error: device-side assert triggered\n"
    traceback = TRACEBACK.format(minute="07", line=42)
    lines = traceback.splitlines(keepends=True)
    with_error = "".join([*lines[:3], frame, *lines[3:]])
    base = write(tmp_path / "b.log", clean() + traceback)
    patch = write(tmp_path / "p.log", clean() + with_error)
    result = run_k3diff("logs", base, patch, "--format", "json")
    assert result.exit_code == 1
    new = [f for f in json.loads(result.stdout)["findings"] if f["side"] == "patch" and f["new"]]
    assert [(f["rule"], f["message"]) for f in new] == [
        ("cuda-error", "CUDA error: device-side assert triggered")
    ]
    again = write(tmp_path / "again.log", base.read_text())  # logs refuses one file on both sides
    assert run_k3diff("logs", base, again).exit_code == 0


def test_a_side_whose_only_log_is_binary_says_so(tmp_path: Path) -> None:
    """A directory whose one log was skipped as binary has no line to scan (exit 2), and the
    error names the file skipped and why, not an "empty file" that is not empty."""
    write(tmp_path / "base" / "server.log", clean())
    write(tmp_path / "patch" / "server.log", "\0" + clean())
    result = run_k3diff("logs", tmp_path / "base", tmp_path / "patch")
    assert result.exit_code == 2
    assert "empty file" not in result.stderr, result.stderr
    assert f"{tmp_path / 'patch' / 'server.log'} (binary)" in result.stderr, result.stderr
