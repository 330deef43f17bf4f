"""The sniff child is started by its own thread (speed64): `k3diff wheels` goes on reading
RECORD while the child is forked and executed, instead of waiting for it, and the report is the
one a run without the child gives. On Linux the child is nicer than the run from its first
instruction (its interpreter's start-up takes no core from the comparison), and the run's own
threads keep their niceness. A `close` that comes before the thread has started the child
leaves no child behind."""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_json

from k3diff.wheels import compare, sniffchild
from k3diff.wheels.sniffchild import SniffChild
from k3diff.zip.archive import ZipArchive

from .sniff_support import built
from .test_sniff_child_faults import _waited


def test_the_child_is_started_off_the_comparing_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base, patch = built(tmp_path / "base"), built(tmp_path / "patch")
    monkeypatch.setattr(sniffchild, "CHILD_ENTRIES", 8)  # this small pair is asked about
    with monkeypatch.context() as patched:
        patched.setattr(sniffchild, "_spawn", lambda *args: None)
        expected = run_json("wheels", base, patch, "--no-file-hash")
    spawned_on: list[threading.Thread] = []
    original = sniffchild._spawn

    def spied(*args: Any) -> Any:
        spawned_on.append(threading.current_thread())
        return original(*args)

    monkeypatch.setattr(sniffchild, "_spawn", spied)
    assert run_json("wheels", base, patch, "--no-file-hash") == expected
    assert expected[0] == 0
    assert len(spawned_on) == 1
    assert spawned_on[0] is not threading.main_thread()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a thread's own niceness")
def test_the_child_is_nicer_from_its_first_instruction_and_the_run_is_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    own = os.getpriority(os.PRIO_PROCESS, 0)
    if own + sniffchild.CHILD_NICE > 19:
        pytest.skip("already too nice to tell")
    base, patch = built(tmp_path / "base"), built(tmp_path / "patch")
    monkeypatch.setattr(sniffchild, "CHILD_ENTRIES", 8)
    expected = run_json("wheels", base, patch, "--no-file-hash")
    seen = tmp_path / "niceness"
    first = f"import os; open({str(seen)!r}, 'w').write(str(os.getpriority(os.PRIO_PROCESS, 0)))\n"
    monkeypatch.setattr(sniffchild, "_CHILD", first + sniffchild._CHILD)
    monkeypatch.setattr(compare, "screened_heads", _waited)  # a nice child is slow to start
    assert run_json("wheels", base, patch, "--no-file-hash") == expected
    assert int(seen.read_text()) == own + sniffchild.CHILD_NICE
    assert os.getpriority(os.PRIO_PROCESS, 0) == own  # this thread, the run's main thread


def test_a_child_closed_before_its_thread_starts_it_is_never_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`close` right after `start`, the thread held back until then: no child, no answer."""
    go = threading.Event()
    spawned: list[bool] = []
    original_talk = SniffChild._talk

    def held_back(self: SniffChild, *args: Any) -> None:
        go.wait(30)
        original_talk(self, *args)

    monkeypatch.setattr(SniffChild, "_talk", held_back)
    monkeypatch.setattr(sniffchild, "_spawn", lambda *args: spawned.append(True))
    with ZipArchive.open(built(tmp_path)) as archive:
        child = SniffChild(archive)
        child.start()
        closer = threading.Thread(target=child.close)
        closer.start()
        closer.join(0.2)  # `close` marks the child closed, then waits for the thread
        go.set()
        closer.join(30)
    assert not closer.is_alive()
    assert spawned == []
    assert child.answer() is None
