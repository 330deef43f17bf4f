"""Whatever the sniff child does (dies, is killed, hangs, answers garbage, a file cut under
it), the `k3diff wheels` report is the one the in-process sniffs give; its answer, when taken,
changes no report, and a native led by empty stored blocks is native either way."""

from __future__ import annotations

import time
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import wheelkit

from k3diff.wheel.kinds import EntryKind
from k3diff.wheels import compare, schedule, sniffchild, spans
from k3diff.wheels.compare import WheelOptions, compare_wheels
from k3diff.wheels.sniffchild import SniffChild
from k3diff.zip.archive import ZipArchive

from .sniff_support import FILES, HEADERS, answer, built
from .test_span_sniff import ELF, EMPTY_BLOCKS


def _outcome(base: Path, patch: Path) -> tuple[Any, ...]:
    report = compare_wheels(base, patch, WheelOptions(jobs=2, file_hash=False))
    return (report.entries, report.findings, report.filtered, report.exit_code, report.summary)


@contextmanager
def _waited(
    base: ZipArchive, patch: ZipArchive, started: SniffChild | None = None
) -> Iterator[SniffChild | None]:
    """`screened_heads`, its answer waited for, so the spans of a small wheel can take it."""
    with sniffchild.screened_heads(base, patch, started) as child:
        if child is not None:
            child.start()  # here, as the run would after reading RECORD, then waited for
            child.wait(30)
        yield child


@pytest.fixture
def pair(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, Any]:
    """A base and its copy (every record alike, in spans), the child asked about and waited
    for; and the outcome with the child never started."""
    base, patch = built(tmp_path / "base"), built(tmp_path / "patch")
    monkeypatch.setattr(sniffchild, "CHILD_ENTRIES", 8)
    with monkeypatch.context() as patched:
        patched.setattr(sniffchild, "worth_asking", lambda *args: False)
        expected = _outcome(base, patch)
    monkeypatch.setattr(compare, "screened_heads", _waited)
    return base, patch, expected


def _screens_taken(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Per `span_natives` call of the spans: whether it was given the child's answer."""
    taken: list[bool] = []
    original = spans.span_natives

    def spied(*args: Any) -> list[bool]:
        taken.append(len(args) > 5 and args[5] is not None)
        return original(*args)

    monkeypatch.setattr(schedule, "span_natives", spied)
    return taken


def test_the_childs_answer_is_taken_and_changes_no_report(
    pair: tuple[Path, Path, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    base, patch, expected = pair
    taken = _screens_taken(monkeypatch)
    outcome = _outcome(base, patch)
    assert outcome == expected
    assert taken and all(taken)
    kinds = {entry.path: entry.kind.value for entry in outcome[0]}
    assert kinds["pkg/bin/tool"] == kinds["pkg/bin/tool2"] == "native"
    assert kinds["pkg/include/h0.h"] == "other"


CHILDREN = {
    "gone": "import sys; sys.exit(1)",
    "killed": "import os, signal; os.kill(os.getpid(), signal.SIGKILL)",
    "silent": "pass",
    "garbage": "import sys; sys.stdout.buffer.write(b'x' * 9 * int(sys.argv[2]))",
    "cut short": (
        "import sys; n = int(sys.argv[2]); sys.stdin.buffer.read()\n"
        "sys.stdout.buffer.write(b'\\0' * (9 * n - 1))"
    ),
    "every entry cleared nowhere": (
        "import sys; n = int(sys.argv[2]); sys.stdin.buffer.read()\n"
        "sys.stdout.buffer.write(b'\\xff' * 8 * n + b'\\0' * n)"
    ),
    "clears, then fails": (
        "import sys; n = int(sys.argv[2]); sys.stdin.buffer.read()\n"
        "sys.stdout.buffer.write(b'\\0' * 9 * n); sys.exit(1)"
    ),
    "reads nothing": "import time; time.sleep(0.2)",
}


@pytest.mark.parametrize("child", [*CHILDREN, "none"])
def test_whatever_the_child_does_the_report_is_the_same(
    pair: tuple[Path, Path, Any], monkeypatch: pytest.MonkeyPatch, child: str
) -> None:
    """No child, one that exits, is killed, says nothing or garbage, stops mid-answer, clears
    every entry at offsets no entry has, or answers and then fails: the same report, the
    natives found here."""
    base, patch, expected = pair
    if child == "none":
        monkeypatch.setattr(sniffchild, "_spawn", lambda *args: None)
    else:
        monkeypatch.setattr(sniffchild, "_CHILD", CHILDREN[child])
    assert _outcome(base, patch) == expected


def test_a_hung_child_is_killed_and_its_answer_never_awaited(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A child that never answers: the spans sniff here (no wait), and leaving the run kills
    it at once."""
    base, patch = built(tmp_path / "base"), built(tmp_path / "patch")
    monkeypatch.setattr(sniffchild, "CHILD_ENTRIES", 8)
    with monkeypatch.context() as patched:
        patched.setattr(sniffchild, "worth_asking", lambda *args: False)
        expected = _outcome(base, patch)
    monkeypatch.setattr(sniffchild, "_CHILD", "import time; time.sleep(600)")
    taken = _screens_taken(monkeypatch)
    began = time.monotonic()
    assert _outcome(base, patch) == expected
    assert time.monotonic() - began < 60
    assert taken and not any(taken)


TRUNCATE_MAPPED = """\
import mmap as _mmap
_real = _mmap.mmap
def _truncating(*args, **kwargs):
    mapped = _real(*args, **kwargs)
    with open({path!r}, "r+b") as victim:
        victim.truncate({keep})
    return mapped
_mmap.mmap = _truncating
"""


def test_a_file_cut_under_the_mapping_kills_only_the_child(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SIGBUS when the child reads a page past the new end: no answer, nothing taken."""
    path = built(tmp_path, {name: bytes(range(256)) * 40 for name in HEADERS})
    copy = tmp_path / "copy.whl"
    copy.write_bytes(path.read_bytes())
    monkeypatch.setattr(
        sniffchild, "_CHILD", TRUNCATE_MAPPED.format(path=str(copy), keep=600) + sniffchild._CHILD
    )
    with ZipArchive.open(copy) as archive:
        assert answer(archive) is None


@pytest.mark.parametrize("child", [True, False])
def test_a_native_led_by_empty_blocks_is_native_in_a_span(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, child: bool
) -> None:
    """An identical library under a data name whose stream starts with more than `SNIFF_INPUT`
    bytes of empty stored blocks: native, with the child's answer and without (it says
    nothing of it), counted so in the summary."""
    blob = "pkg/data/blob"
    entries = wheelkit.wheel_files("pkg", "1.0", {**FILES, blob: ELF})
    members = [wheelkit.raw_member(name, content) for name, content in entries.items()]
    for member in members:
        if member.name == blob.encode():
            member.stored = EMPTY_BLOCKS + member.stored
    sides = []
    for side in ("base", "patch"):
        path = tmp_path / side / "pkg-1.0-py3-none-any.whl"
        path.parent.mkdir()
        path.write_bytes(wheelkit.raw_zip(members))
        sides.append(path)
    with zipfile.ZipFile(sides[1]) as archive:
        assert archive.read(blob) == ELF  # what pip installs
    monkeypatch.setattr(sniffchild, "CHILD_ENTRIES", 8)
    if child:
        monkeypatch.setattr(compare, "screened_heads", _waited)
        taken = _screens_taken(monkeypatch)
    else:
        monkeypatch.setattr(sniffchild, "worth_asking", lambda *args: False)
    entries_out, _, _, code, summary = _outcome(*sides)
    assert child is False or (taken and all(taken))
    kinds = {entry.path: (entry.kind.value, entry.how.value) for entry in entries_out}
    assert kinds[blob] == ("native", "raw-bytes")
    assert code == 0 and summary[EntryKind.NATIVE].identical == 3
