"""The huge raw pairs' stream checks started before the comparison (`streamcheck.EarlyStreams`) reach
the report the settle pass reaches alone: same entries, field for field, same findings, same
count of verified streams, same exit code, or the same error. Held on small entries by lowering
the thresholds, on clean, shared-corrupt (bad CRC-32, short and long declared sizes, deflated
and stored), forged and randomly damaged pairs; an answer is taken only for a pair that the
settle pass would check, a check not begun is taken back, and a run ending on an error stops
the running check instead of waiting for it."""

from __future__ import annotations

import threading
import time
import zipfile
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import wheelkit
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from k3diff.errors import K3diffError
from k3diff.wheels import early, headstart, streamcheck
from k3diff.wheels.compare import WheelOptions, compare_wheels
from k3diff.zip.archive import ZipArchive

from .test_early_raw import FILES, _wheel
from .test_shared_corrupt_streams import _declare_size
from .test_wheel_verdicts import _flip_inside_stream

BIG = ("pkg/lib.so", "pkg/data/blob.bin", "pkg/other.bin")
"""The entries above the lowered thresholds: their checks start early."""


@pytest.fixture(autouse=True)
def small_thresholds(small_proof_thresholds: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Entries of a few KiB are started early (conftest), and their checks streamed in small
    chunks."""
    monkeypatch.setattr(early, "CHECK_BYTES", 2000)
    monkeypatch.setattr(streamcheck, "CHUNK", 1024)  # the streamed check, not the one-step one
    monkeypatch.setattr(streamcheck, "EARLY_CHUNK", 2048)


def _outcome(base: Path, patch: Path) -> tuple[Any, ...]:
    try:
        report = compare_wheels(base, patch, WheelOptions(jobs=2))
    except K3diffError as exc:
        return ("error", type(exc).__name__, str(exc))
    return (
        report.entries,
        report.findings,
        report.filtered,
        report.exit_code,
        report.summary,
        report.verified_streams,
        report.unverified_streams,
    )


def _taken(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each started check settle asked for had begun (its answer taken)."""
    taken: list[bool] = []
    original = streamcheck.EarlyStreams.take

    def take(self: streamcheck.EarlyStreams, entry: Any) -> Any:
        found = original(self, entry)
        taken.append(found is not None)
        return found

    monkeypatch.setattr(streamcheck.EarlyStreams, "take", take)
    return taken


def both_ways(base: Path, patch: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, ...]:
    """The outcome with the checks started early and without any early start; asserts they are
    the same, errors compared by kind (the problem named may be the first a thread meets)."""
    fast = _outcome(base, patch)
    with monkeypatch.context() as patched:
        patched.setattr(headstart, "EARLY_BYTES", 1 << 62)
        slow = _outcome(base, patch)
    if fast[0] == slow[0] == "error":
        assert fast[1] == slow[1]
    else:
        assert fast == slow
    return fast


def _slow_begin(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each early check waits a little before it reads, so that settle finds some begun and
    some not (both paths exercised, whatever the machine's speed)."""
    original = streamcheck.stream_problem

    def delayed(archive: ZipArchive, entry: Any, stop: Any = None) -> Any:
        if threading.current_thread().name.startswith("k3diff-crc-early"):
            time.sleep(0.05)
        return original(archive, entry, stop)

    monkeypatch.setattr(streamcheck, "stream_problem", delayed)


def test_clean_huge_pairs_are_checked_early_and_counted_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = _wheel(tmp_path / "b", FILES)
    patch = _wheel(tmp_path / "p", FILES)
    taken = _taken(monkeypatch)
    entries, findings, _, code, _, verified, unverified = both_ways(base, patch, monkeypatch)
    assert len(taken) >= 1 and all(taken[:1])  # the largest began first, and was taken
    assert code == 0 and not findings
    assert verified == len(entries) and unverified == 0


@pytest.mark.parametrize("delay", [False, True])
@pytest.mark.parametrize("how", ["crc", "size-", "size+"])
@pytest.mark.parametrize("method", [zipfile.ZIP_DEFLATED, zipfile.ZIP_STORED])
def test_a_shared_corrupt_huge_stream_is_the_same_w604_both_ways(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str, method: int, delay: bool
) -> None:
    base = _wheel(tmp_path / "b", FILES, method=method)
    patch = _wheel(tmp_path / "p", FILES, method=method)
    for wheel in (base, patch):
        for name in BIG[:2]:
            if how == "crc":
                _flip_inside_stream(wheel, name, 0.5)
            else:
                _declare_size(wheel, name, -1 if how == "size-" else 1)
    if delay:
        _slow_begin(monkeypatch)
    entries, findings, _, code, _, verified, _ = both_ways(base, patch, monkeypatch)
    assert code == 1
    w604 = {f.path for f in findings if f.code.name == "W604"}
    assert w604 == set(BIG[:2])
    for name in BIG[:2]:
        result = next(e for e in entries if e.path == name)
        assert result.corrupt is not None and "both wheels" in result.corrupt
    assert verified == len(entries) - 2


def test_an_answer_for_a_pair_that_is_not_raw_identical_is_never_taken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Same size, CRC-32 and layout, other bytes (a forged library) whose patch stream is also
    corrupt: the early check found a problem, but the pair is a change the proof reads, and
    the report is the proof's (the patch wheel's stream, not both wheels')."""
    lib = FILES["pkg/lib.so"]
    forged = wheelkit.forge_same_crc(lib, tamper_at=300, patch_at=5000)
    base = _wheel(tmp_path / "b", FILES, method=zipfile.ZIP_STORED)
    patch = _wheel(tmp_path / "p", {**FILES, "pkg/lib.so": forged}, method=zipfile.ZIP_STORED)
    _declare_size(patch, "pkg/lib.so", -1)
    _declare_size(base, "pkg/lib.so", -1)
    asked: list[str] = []
    original = streamcheck.EarlyStreams.take

    def take(self: streamcheck.EarlyStreams, entry: Any) -> Any:
        asked.append(entry.name)
        return original(self, entry)

    monkeypatch.setattr(streamcheck.EarlyStreams, "take", take)
    entries, _, _, code, _, _, _ = both_ways(base, patch, monkeypatch)
    assert "pkg/lib.so" not in asked
    result = next(e for e in entries if e.path == "pkg/lib.so")
    assert not streamcheck.by_raw_bytes(result)
    assert code == 1


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    edits=st.lists(
        st.tuples(st.floats(min_value=0, max_value=1), st.binary(min_size=1, max_size=6)),
        min_size=1,
        max_size=4,
    ),
    both=st.booleans(),
    method=st.sampled_from([zipfile.ZIP_DEFLATED, zipfile.ZIP_STORED]),
)
def test_damaged_pairs_are_the_same_both_ways(
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    edits: list[tuple[float, bytes]],
    both: bool,
    method: int,
) -> None:
    """A few bytes overwritten in the patch, or the same bytes in both wheels (the shared
    corruption the stream check exists for): the early checks meet the same damage, or the
    same error, as the settle pass."""
    tmp_path = tmp_path_factory.mktemp("damage")
    source = _wheel(tmp_path / "b", FILES, method=method)
    data = bytearray(source.read_bytes())
    for where, replacement in edits:
        at = int(where * (len(data) - 1))
        data[at : at + len(replacement)] = replacement
    patch = tmp_path / "damaged.whl"
    patch.write_bytes(bytes(data))
    base = tmp_path / "base.whl"
    base.write_bytes(bytes(data) if both else source.read_bytes())
    both_ways(base, patch, monkeypatch)


def test_a_started_check_is_taken_once_and_the_rest_are_stopped_unread(tmp_path: Path) -> None:
    """`take` hands each started check over once; `close` cancels those not begun and stops the
    running one (whose answer nobody reads) at its next chunk."""
    wheel = _wheel(tmp_path / "p", FILES)
    gate, running = threading.Event(), threading.Event()
    original = streamcheck.stream_problem

    def held(archive: ZipArchive, entry: Any, stop: Any = None) -> Any:
        running.set()
        gate.wait(30)
        return original(archive, entry, stop)

    with ZipArchive.open(wheel) as archive, ThreadPoolExecutor(max_workers=1) as pool:
        archive.local_headers()
        entries = sorted(
            (e for e in archive.entries if e.name in BIG), key=lambda e: -e.compressed_size
        )
        with pytest.MonkeyPatch.context() as patched:
            patched.setattr(streamcheck, "stream_problem", held)
            streams = streamcheck.EarlyStreams(archive, entries, pool)
        assert len(streams) == 3
        assert streams.least_size == entries[-1].compressed_size
        running.wait(30)
        taken = streams.take(entries[1])
        assert isinstance(taken, Future) and streams.take(entries[1]) is None
        first, waiting = streams._started[entries[0].position][0], taken
        streams.close()
        assert len(streams) == 0
        assert waiting.cancelled() is False  # taken: close leaves it alone
        gate.set()
        with pytest.raises(streamcheck.Interrupted):
            first.result()  # the running one, stopped
        assert waiting.result() is None  # the taken one, checked to its end
        assert streams.take(entries[2]) is None


def test_a_run_ending_early_stops_the_running_check(tmp_path: Path) -> None:
    """`close` (an error before the checks were asked for) stops a streamed check at its next
    chunk: the run does not wait for a huge stream's end."""
    wheel = _wheel(tmp_path / "p", FILES)
    with ZipArchive.open(wheel) as archive:
        entry = next(e for e in archive.entries if e.name == BIG[0])
        stop = threading.Event()
        stop.set()
        with pytest.raises(streamcheck.Interrupted):
            streamcheck.stream_problem(archive, entry, stop)
        assert streamcheck.stream_problem(archive, entry) is None


def test_an_error_in_the_comparison_stops_the_running_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The comparison fails (here: the archive checks) while a huge stream is being checked:
    the error is raised and the check stopped, not waited for to its end."""
    base = _wheel(tmp_path / "b", FILES)
    patch = _wheel(tmp_path / "p", FILES)
    stopped: list[bool] = []

    def endless(archive: ZipArchive, entry: Any, stop: Any = None) -> Any:
        assert stop is not None  # only the early checks run before the comparison fails
        stopped.append(stop.wait(30))
        raise streamcheck.Interrupted(entry.name)

    def refuse(*_args: Any, **_kwargs: Any) -> Any:
        raise K3diffError("refused")

    monkeypatch.setattr(streamcheck, "stream_problem", endless)
    monkeypatch.setattr("k3diff.wheels.compare.check_archives", refuse)
    with pytest.raises(K3diffError, match="refused"):
        compare_wheels(base, patch, WheelOptions(jobs=2))
    assert stopped and all(stopped)  # each running check stopped, none run to its end
