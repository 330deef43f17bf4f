"""A line longer than the 1 MiB scanned of it is no place to hide an error (hunt71).

Only a line's first 1 MiB is matched; the rest used to be skipped and counted in
`files[].long_lines`, nowhere else, so a CUDA error logged after a progress bar that redraws
itself with `\\r` (tqdm: one "line" of a megabyte or more until the next newline) was never
seen, and `logs` said `Verdict: OK (exit 0): no error finding on the patch`. The rest of such a
line is now searched (led by the end of what was scanned, so a match across the cut is whole),
and where an error rule matches there, the file is not read whole: the side fails as one with
an entry not read (logs64), naming the line and the rule."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import run_k3diff

from .logs_support import clean, run_json, write

CUDA = "ERROR 05-12 10:07:05 [core.py:42] RuntimeError: CUDA error: an illegal memory access\n"
MIB = 1 << 20


def _progress_bar(size: int) -> str:
    """tqdm's redraws, `\\r` between them and no newline: one line of `size` characters."""
    redraw = "\rProcessed prompts:  42%|####      | 4200/10000 [00:42<00:58, 99.0 it/s]"
    return (redraw * (size // len(redraw) + 1))[:size]


def test_an_error_past_a_long_lines_first_mib_fails_the_patch(tmp_path: Path) -> None:
    base = write(tmp_path / "b.log", clean())
    patch = write(tmp_path / "p.log", clean(pid=9) + _progress_bar(3 * MIB) + CUDA)
    result = run_k3diff("logs", base, patch)
    assert result.exit_code == 1, result.stdout
    verdict = result.stdout.splitlines()[-1]
    assert verdict.startswith("Verdict: FAIL (exit 1): 1 patch entry not read: "), verdict
    assert "line 7 is longer than the 1 MiB scanned, and its rest matches cuda-error" in verdict
    _code, doc = run_json(base, patch)
    assert doc["verdict"]["exit_code"] == 1
    [skipped] = doc["patch"]["skipped"]
    assert skipped.startswith(str(patch)), skipped


def test_a_match_across_the_cut_is_seen_whole(tmp_path: Path) -> None:
    """`CUDA error` split by the 1 MiB cut (the log's first line, 3 MiB: the scanner reads 1 MiB
    at a time, so the cut falls at 1 MiB exactly): neither piece alone holds it."""
    base = write(tmp_path / "b.log", clean())
    line = "x" * (MIB - len("CUDA e")) + "CUDA error: illegal"
    patch = write(tmp_path / "p.log", line + "x" * (3 * MIB - len(line)) + "\n" + clean())
    result = run_k3diff("logs", base, patch)
    assert result.exit_code == 1, result.stdout
    verdict = result.stdout.splitlines()[-1]
    assert "line 1 is longer than the 1 MiB scanned, and its rest matches cuda-error" in verdict


def test_a_long_line_with_nothing_past_the_cut_still_passes(tmp_path: Path) -> None:
    """A long line is no failure by itself: a progress bar, a logged prompt of a long context."""
    base = write(tmp_path / "b.log", clean())
    patch = write(tmp_path / "p.log", clean(pid=9) + _progress_bar(3 * MIB) + "\n")
    result = run_k3diff("logs", base, patch)
    assert result.exit_code == 0, result.stdout
    _code, doc = run_json(base, patch)
    assert [f["long_lines"] for f in doc["files"] if f["side"] == "patch"] == [1]
    assert doc["patch"]["skipped"] == []


def test_the_base_read_in_part_fails_too(tmp_path: Path) -> None:
    """As an entry not read (logs64): a base read in part is no reference to judge by."""
    base = write(tmp_path / "b.log", clean() + _progress_bar(2 * MIB) + CUDA)
    patch = write(tmp_path / "p.log", clean(pid=9))
    result = run_k3diff("logs", base, patch)
    assert result.exit_code == 1, result.stdout
    assert "1 base entry not read: " in result.stdout.splitlines()[-1]


SEAM = 3 * MIB
"""Where, in a long line that starts its file, the first piece past the scanned MiB ends: the
scanner reads a MiB at a time, the head is the line's first MiB and the first piece the rest of
the 2 MiB read with it plus the next MiB read; the next piece is led by the 4 KiB before this."""


def _spread(first: str, gap: str, later: str, seam: int = SEAM) -> str:
    """A 5 MiB first line in which `first` ends 5000 bytes before `seam` (so not in the 4 KiB
    that lead the piece after it) and `later` starts just past it: no piece holds both."""
    line = "x" * (seam - 5000 - len(first)) + first
    line += gap * ((seam + 100 - len(line)) // len(gap)) + later
    return line + "x" * (5 * MIB - len(line)) + "\n"


@pytest.mark.parametrize("seam", [MIB, SEAM], ids=["the 1 MiB cut", "a later seam"])
def test_a_trtllm_error_split_by_spaces_longer_than_the_overlap_is_seen(
    tmp_path: Path, seam: int
) -> None:
    """`[TRT-LLM]\\s*[E]` with 5 KiB of spaces between, across the cut after the scanned MiB
    or a seam between two pieces: no piece holds the match (readers72: exit 0)."""
    base = write(tmp_path / "b.log", clean())
    patch = write(tmp_path / "p.log", _spread("[TRT-LLM]", " ", "[E] boom", seam) + clean(pid=9))
    result = run_k3diff("logs", base, patch)
    assert result.exit_code == 1, result.stdout
    verdict = result.stdout.splitlines()[-1]
    assert "line 1 is longer than the 1 MiB scanned, and its rest matches trtllm-error" in verdict


def test_a_users_rule_of_first_then_later_spans_the_line(tmp_path: Path) -> None:
    """A `--rule` with `.*`, its match across a seam (readers72: only the built-in rules of
    that form were followed across, exit 0)."""
    base = write(tmp_path / "b.log", clean())
    patch = write(tmp_path / "p.log", _spread("worker", "y", "gone") + clean(pid=9))
    result = run_k3diff("logs", base, patch, "--rule", "lost=worker.*gone")
    assert result.exit_code == 1, result.stdout
    verdict = result.stdout.splitlines()[-1]
    assert "line 1 is longer than the 1 MiB scanned, and its rest matches lost" in verdict


def test_parts_out_of_order_are_no_match(tmp_path: Path) -> None:
    """`gone` before `worker`, and `[E]` before `[TRT-LLM]`: no rule's parts in its order."""
    base = write(tmp_path / "b.log", clean())
    patch = write(tmp_path / "p.log", _spread("gone [E]", " ", "worker [TRT-LLM]") + clean(pid=9))
    result = run_k3diff("logs", base, patch, "--rule", "lost=worker.*gone")
    assert result.exit_code == 0, result.stdout


def test_a_rule_with_no_bounded_part_fails_a_long_line_it_cannot_see_whole(
    tmp_path: Path,
) -> None:
    """`(a.*b)+` has nothing to look for piece by piece: a line past the scanned MiB may hold
    its match anywhere, so the file is not read whole (never a pass on what was not seen)."""
    base = write(tmp_path / "b.log", clean())
    patch = write(tmp_path / "p.log", _spread("x", "y", "z") + clean(pid=9))
    result = run_k3diff("logs", base, patch, "--rule", "odd=(a.*b)+")
    assert result.exit_code == 1, result.stdout
    assert "its rest matches odd" in result.stdout.splitlines()[-1]
    short = write(tmp_path / "short.log", "x" * 1000 + "\n" + clean(pid=9))
    assert run_k3diff("logs", base, short, "--rule", "odd=(a.*b)+").exit_code == 0


def test_a_traceback_quoted_inside_a_long_line_is_no_match(tmp_path: Path) -> None:
    """`Traceback …:\\s*$` holds only where the spaces after it run to the line's end: a JSON
    log's escaped traceback in the middle of a 5 MiB line is no traceback start (its parts in
    order, `$` at a piece's end, would have failed the file)."""
    base = write(tmp_path / "b.log", clean())
    quoted = ' {"exc": "Traceback (most recent call last):\\n  File \\"x.py\\""} '
    patch = write(tmp_path / "p.log", _spread("x", "y", quoted) + clean(pid=9))
    assert run_k3diff("logs", base, patch).exit_code == 0
    started = "Traceback (most recent call last):"  # then spaces to the line's end
    ending = "y" * (SEAM - 5000 - len(started)) + started + " " * (5000 + 8192) + "\n"
    patch = write(tmp_path / "p.log", ending + clean(pid=9))
    result = run_k3diff("logs", base, patch)
    assert result.exit_code == 1, result.stdout
    assert "its rest matches traceback" in result.stdout.splitlines()[-1]
