"""The huge pairs' raw comparisons started before pairing (`wheels.early`) reach the same report
as the proofs that compare them on the pool: same entries, field for field, same findings, same
exit code, or the same error. Exercised on small entries by lowering the thresholds, on equal,
forged, recompressed, renamed and randomly damaged wheels."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest
import wheelkit
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from k3diff.errors import K3diffError
from k3diff.wheels import early, proof, spans
from k3diff.wheels.compare import WheelOptions, compare_wheels
from k3diff.zip.archive import ZipArchive

BIG = os.urandom(6000) + bytes(6000)
FILES = {
    "pkg/lib.so": wheelkit.elf_bytes(BIG),
    "pkg/data/blob.bin": BIG[::-1],
    "pkg/other.bin": BIG[:9000],
    **{f"pkg/mod{i}.py": f"VALUE = {i}\n".encode() * 30 for i in range(12)},
}


@pytest.fixture(autouse=True)
def small_thresholds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Entries of a few KiB take the huge entries' paths (split compare, early start)."""
    monkeypatch.setattr(proof, "RAW_CHUNK", 1024)
    monkeypatch.setattr(proof, "BIG_ENTRY", 4096)
    monkeypatch.setattr(early, "EARLY_BYTES", 2000)
    monkeypatch.setattr(spans, "SPAN_BYTES", 1500)  # as in real wheels: huge pairs are singles


def _wheel(directory: Path, files: dict[str, bytes], **kwargs: Any) -> Path:
    return wheelkit.make_wheel(directory, "pkg", "1.0", files, **kwargs)


def _outcome(base: Path, patch: Path) -> tuple[Any, ...]:
    try:
        report = compare_wheels(base, patch, WheelOptions(jobs=2, file_hash=False))
    except K3diffError as exc:
        return ("error", type(exc).__name__, str(exc))
    return (report.entries, report.findings, report.filtered, report.exit_code, report.summary)


def both_ways(base: Path, patch: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, ...]:
    """The outcome with the early start and without; asserts they are the same."""
    fast = _outcome(base, patch)
    with monkeypatch.context() as patched:
        patched.setattr(early, "EARLY_BYTES", 1 << 62)
        slow = _outcome(base, patch)
    assert fast == slow
    return fast


def _started(base: Path, patch: Path) -> int:
    with ZipArchive.open(base) as b, ZipArchive.open(patch) as p:
        return len(early._candidates(b, p))


def test_equal_huge_entries_are_proven_by_the_early_compare(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = _wheel(tmp_path / "b", FILES)
    patch = _wheel(tmp_path / "p", FILES)
    assert _started(base, patch) == 3
    asked: list[bool] = []
    original = early.EarlyRaw.answer

    def answer(self: early.EarlyRaw, *entries: Any) -> Any:
        found = original(self, *entries)
        asked.append(found is not None)
        return found

    monkeypatch.setattr(early.EarlyRaw, "answer", answer)
    entries, _, _, code, _ = both_ways(base, patch, monkeypatch)
    assert sum(asked) >= 3  # the pool took the started answers
    assert {(e.status.value, e.how.value) for e in entries} == {("identical", "raw-bytes")}
    assert code == 0


def test_a_forged_huge_entry_is_the_same_both_ways(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Same size and CRC-32, other bytes: the early compare says unequal, the content proof
    finds the change."""
    lib = FILES["pkg/lib.so"]
    forged = wheelkit.forge_same_crc(lib, tamper_at=300, patch_at=5000)
    base = _wheel(tmp_path / "b", FILES, method=zipfile.ZIP_STORED)
    patch = _wheel(tmp_path / "p", {**FILES, "pkg/lib.so": forged}, method=zipfile.ZIP_STORED)
    assert _started(base, patch) == 3
    entries, _, _, code, _ = both_ways(base, patch, monkeypatch)
    result = next(e for e in entries if e.path == "pkg/lib.so")
    assert (result.status.value, result.how.value, code) == ("changed", "content", 1)


def test_recompressed_and_renamed_entries_are_the_same_both_ways(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Other compressed sizes are not started; a renamed entry pairs with nothing started."""
    base = _wheel(tmp_path / "b", FILES)
    files = {**FILES, "pkg/renamed.bin": FILES["pkg/other.bin"]}
    del files["pkg/other.bin"]
    patch = _wheel(tmp_path / "p", files, compresslevel=1)
    both_ways(base, patch, monkeypatch)


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    edits=st.lists(
        st.tuples(st.floats(min_value=0, max_value=1), st.binary(min_size=1, max_size=6)),
        min_size=1,
        max_size=4,
    )
)
def test_damaged_copies_are_the_same_both_ways(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, edits: list[tuple[float, bytes]]
) -> None:
    """A copy of the base with a few bytes overwritten (headers, data, directory): the started
    comparisons meet the same damage, or the same error, as the proofs."""
    base = tmp_path / "b" / "pkg-1.0-py3-none-any.whl"
    if not base.exists():
        _wheel(tmp_path / "b", FILES, method=zipfile.ZIP_STORED)
    data = bytearray(base.read_bytes())
    for where, replacement in edits:
        at = int(where * (len(data) - 1))
        data[at : at + len(replacement)] = replacement
    patch = tmp_path / "damaged.whl"
    patch.write_bytes(bytes(data))
    fast = _outcome(base, patch)
    with monkeypatch.context() as patched:
        patched.setattr(early, "EARLY_BYTES", 1 << 62)
        slow = _outcome(base, patch)
    if fast[0] == slow[0] == "error":
        assert fast[1] == slow[1]  # the problem named may be the first a thread meets
    else:
        assert fast == slow


CHILDREN = {
    "none": None,  # no child could be started: the pairs are compared on the thread
    "gone": "import sys; sys.exit(1)",  # exits before answering: EOF for every pair
    "says differ": "import os, sys\nfor _ in sys.argv[2:]: os.write(1, b'0')",
    "garbage": "import os; os.write(1, b'x2')",
}


@pytest.mark.parametrize("child", CHILDREN)
def test_without_the_childs_equal_the_thread_compares_the_same_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, child: str
) -> None:
    """Only the child's "equal" is taken: no child, a child that dies, says "differ" or says
    nonsense, and each pair is compared by `raw_equal` here: the same outcome, equal or forged."""
    lib = FILES["pkg/lib.so"]
    forged = wheelkit.forge_same_crc(lib, tamper_at=300, patch_at=5000)
    base = _wheel(tmp_path / "b", FILES, method=zipfile.ZIP_STORED)
    equal = _wheel(tmp_path / "e", FILES, method=zipfile.ZIP_STORED)
    patch = _wheel(tmp_path / "p", {**FILES, "pkg/lib.so": forged}, method=zipfile.ZIP_STORED)
    expected = [both_ways(base, other, monkeypatch) for other in (equal, patch)]
    compared: list[str] = []
    original = proof.raw_equal

    def counted(b: Any, be: Any, p: Any, pe: Any) -> bool:
        compared.append(be.name)
        return original(b, be, p, pe)

    monkeypatch.setattr(early, "raw_equal", counted)
    code = CHILDREN[child]
    if code is None:
        monkeypatch.setattr(early, "_spawn", lambda *args: None)
    else:
        monkeypatch.setattr(early, "_CHILD", code)
    assert [both_ways(base, other, monkeypatch) for other in (equal, patch)] == expected
    assert len(compared) >= 2 * _started(base, equal)  # every started pair, both times


@settings(max_examples=60, deadline=None)
@given(
    data=st.binary(min_size=0, max_size=3000),
    flips=st.lists(st.integers(min_value=0, max_value=2999), max_size=3),
    start=st.integers(min_value=0, max_value=3100),
    size=st.integers(min_value=1, max_value=3100),
    step=st.integers(min_value=1, max_value=700),
)
def test_the_child_says_equal_exactly_when_every_byte_was_read_and_equal(
    tmp_path_factory: pytest.TempPathFactory,
    data: bytes,
    flips: list[int],
    start: int,
    size: int,
    step: int,
) -> None:
    """`_CHILD` against the plain answer: both ranges read whole (none past the end of its
    file) and equal, whatever the step; a range cut short by the file's end is never equal."""
    directory = tmp_path_factory.mktemp("child")
    other = bytearray(data)
    for at in flips:
        if at < len(other):
            other[at] ^= 0x40
    (directory / "l").write_bytes(data)
    (directory / "r").write_bytes(bytes(other))
    left, right = os.open(directory / "l", os.O_RDONLY), os.open(directory / "r", os.O_RDONLY)
    try:
        argv = [sys.executable, "-I", "-S", "-c", early._CHILD, str(step)]
        argv += [f"{left}:{start}:{right}:{start}:{size}"] * 2
        answer = subprocess.run(argv, pass_fds=(left, right), capture_output=True, check=True)
    finally:
        os.close(left)
        os.close(right)
    whole = start + size <= len(data)
    expected = whole and data[start : start + size] == bytes(other[start : start + size])
    assert answer.stdout == (b"11" if expected else b"00")
