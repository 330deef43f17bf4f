"""A carriage return starts a line over, and a rule of the form `first.*later` spans a long
line's cut (review71e, after hunt71).

A terminal shows each `\\r` as the line begun again: tqdm redraws its bar so, and a log written
with CR-only line ends is all one `\\n`-line. The scanner matched the `\\n`-line whole, so a
`Traceback` after a `\\r` (or after a bar left without its newline) was no traceback's first
line, its frames and exception line were no finding, and `logs` said `Verdict: OK (exit 0)`
of a server that crashed while loading its weights. And past a long line's first MiB, the rest
was searched in pieces 4 KiB apart, so `Engine core ` near the line's start and `died` past
the cut matched in neither: the crash passed, exit 0."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import run_k3diff

from .logs_support import clean, run_json, write

MIB = 1 << 20
BAR = "\rLoading safetensors checkpoint shards:  50% Completed | 2/4 [00:02<00:02,  1.10it/s]"
CRASH = (
    "Traceback (most recent call last):\n"
    '  File "/srv/load.py", line 12, in <module>\n'
    "KeyError: 'model.layers.0.mlp.weight'\n"
)

LOGS = {
    "bar-then-newline-less-traceback": BAR * 3 + CRASH,
    "bar-then-return-traceback": BAR * 3 + "\r" + CRASH,
    "cr-only-line-ends": "INFO 05-12 10:07:05 loading\r" + CRASH.replace("\n", "\r") + "\n",
}


@pytest.mark.parametrize("name", list(LOGS))
def test_a_traceback_a_carriage_return_leads_is_a_crash(tmp_path: Path, name: str) -> None:
    base = write(tmp_path / "b.log", clean())
    patch = write(tmp_path / "p.log", clean(pid=9) + LOGS[name])
    result = run_k3diff("logs", base, patch)
    assert result.exit_code == 1, result.stdout
    _code, doc = run_json(base, patch)
    [new] = [f for f in doc["findings"] if f["side"] == "patch" and f["new"]]
    assert (new["rule"], new["severity"]) == ("traceback", "error")
    assert "KeyError" in new["message"]


def test_a_progress_bar_of_returns_alone_passes(tmp_path: Path) -> None:
    """Each redraw is matched as a line: none holds an error, so none is a finding."""
    base = write(tmp_path / "b.log", clean())
    patch = write(tmp_path / "p.log", clean(pid=9) + BAR * 40 + "\n")
    assert run_k3diff("logs", base, patch).exit_code == 0


@pytest.mark.parametrize(
    ("first", "later", "rule"),
    [
        ("Engine core ", " died unexpectedly", "crash"),
        ("Engine core proc EngineCore_DP0 ", " failed", "crash"),
        ("Assertion `", "' failed.", "assertion"),
    ],
)
def test_a_match_spanning_a_long_lines_cut_fails(
    tmp_path: Path, first: str, later: str, rule: str
) -> None:
    """`first` in the line's first MiB, `later` 2 MiB on: the rule's match spans the cut."""
    base = write(tmp_path / "b.log", clean())
    line = first + "x" * (2 * MIB) + later + "\n"
    patch = write(tmp_path / "p.log", clean(pid=9) + line)
    result = run_k3diff("logs", base, patch)
    assert result.exit_code == 1, result.stdout
    verdict = result.stdout.splitlines()[-1]
    assert f"line 7 is longer than the 1 MiB scanned, and its rest matches {rule}" in verdict


def test_later_alone_past_the_cut_passes(tmp_path: Path) -> None:
    """`died` past the cut of a line that named no engine core and no worker is no crash."""
    base = write(tmp_path / "b.log", clean())
    patch = write(tmp_path / "p.log", clean(pid=9) + "y" * (2 * MIB) + " died\n")
    assert run_k3diff("logs", base, patch).exit_code == 0


def test_a_traceback_past_the_first_mib_of_cr_only_lines_fails(tmp_path: Path) -> None:
    """CR-only line ends past 1 MiB: the rest is searched part by part, as the head is."""
    base = write(tmp_path / "b.log", clean())
    head = "INFO 05-12 10:07:05 serving request\r" * (2 * MIB // 36)
    patch = write(tmp_path / "p.log", clean(pid=9) + head + CRASH.replace("\n", "\r") + "\n")
    result = run_k3diff("logs", base, patch)
    assert result.exit_code == 1, result.stdout
    assert "and its rest matches traceback" in result.stdout.splitlines()[-1]
