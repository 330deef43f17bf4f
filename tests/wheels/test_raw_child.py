"""The huge pairs' raw bytes compared in a child process (`wheels.rawchild`): its "equal" is
exactly "both ranges read whole and equal" (against the plain answer, on ranges that differ in
their first byte, their last, at window edges, or run past the end of a file); a file truncated
under its mapping kills only the child; its answers are keyed by pair, so an answer in another
order, for a pair not asked about, or none at all never reaches another pair; and whatever the
child does, the report is the one the in-process comparison gives."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest
import wheelkit
from hypothesis import given, settings
from hypothesis import strategies as st

from k3diff.wheels import early, headstart, proof, rawchild
from k3diff.zip.archive import ZipArchive

from .test_early_raw import _outcome, _wheel

BIG = os.urandom(7000) + bytes(7000)
FILES = {
    "pkg/lib.so": wheelkit.elf_bytes(BIG),
    "pkg/data/blob.bin": BIG[::-1],
    "pkg/other.bin": BIG[:9000],
    **{f"pkg/mod{i}.py": f"VALUE = {i}\n".encode() * 30 for i in range(6)},
}
PAGE = 4096


@pytest.fixture(autouse=True)
def small_thresholds(small_proof_thresholds: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Entries of a few KiB are started early (conftest) and compared by the child, a few
    pages a window."""
    monkeypatch.setattr(rawchild, "WINDOW", 3 * PAGE + 5)


def _child(
    left: Path, right: Path, specs: list[tuple[int, int, int]], window: int, prefix: str = ""
) -> subprocess.CompletedProcess[bytes]:
    """The child run on (left offset, right offset, size) ranges, keyed 0, 1, ... both sides."""
    fds = os.open(left, os.O_RDONLY), os.open(right, os.O_RDONLY)
    try:
        argv = [sys.executable, "-I", "-S", "-c", prefix + rawchild._CHILD, str(window), "0"]
        argv += [f"{i}:{i}:{fds[0]}:{a}:{fds[1]}:{b}:{n}" for i, (a, b, n) in enumerate(specs)]
        return subprocess.run(argv, pass_fds=fds, capture_output=True, check=False)
    finally:
        for fd in fds:
            os.close(fd)


def _answers(done: subprocess.CompletedProcess[bytes]) -> list[bool]:
    return [line.endswith(b" 1") for line in done.stdout.splitlines()]


@settings(max_examples=60, deadline=None)
@given(
    data=st.binary(min_size=1, max_size=3 * PAGE),
    flips=st.lists(st.integers(min_value=0, max_value=3 * PAGE), max_size=2),
    pads=st.tuples(st.integers(0, PAGE + 9), st.integers(0, PAGE + 9)),
    start=st.integers(min_value=0, max_value=3 * PAGE),
    size=st.integers(min_value=1, max_value=3 * PAGE + 100),
    window=st.sampled_from([1, 7, PAGE - 1, PAGE, PAGE + 1, 1 << 20]),
)
def test_the_child_says_equal_exactly_when_both_ranges_are_whole_and_equal(
    tmp_path_factory: pytest.TempPathFactory,
    data: bytes,
    flips: list[int],
    pads: tuple[int, int],
    start: int,
    size: int,
    window: int,
) -> None:
    """Against the plain answer, at other unaligned offsets in each file and any window; a range
    cut short by the end of its file is never equal."""
    directory = tmp_path_factory.mktemp("child")
    other = bytearray(data)
    for at in flips:
        if at < len(other):
            other[at] ^= 0x40
    left, right = directory / "l", directory / "r"
    left.write_bytes(b"L" * pads[0] + data)
    right.write_bytes(b"R" * pads[1] + other)
    done = _child(left, right, [(pads[0] + start, pads[1] + start, size)] * 2, window)
    assert done.returncode == 0, done.stderr
    whole = start + size <= len(data)
    expected = whole and data[start : start + size] == bytes(other[start : start + size])
    assert _answers(done) == [expected, expected]


@pytest.mark.parametrize("window", [PAGE, 3 * PAGE + 5, 1 << 20])
def test_one_byte_differing_anywhere_is_found(tmp_path: Path, window: int) -> None:
    """The first byte, the last, each side of every window edge: "0"; unchanged: "1"."""
    data = os.urandom(10 * PAGE + 123)
    left, right = tmp_path / "l", tmp_path / "r"
    left.write_bytes(b"x" * 77 + data)
    edges = [k * window + d for k in range(1, len(data) // window + 1) for d in (-1, 0)]
    places = [0, len(data) - 1, *[at for at in edges if 0 <= at < len(data)]]
    for at in places:
        other = bytearray(data)
        other[at] ^= 0x01
        right.write_bytes(b"y" * 4099 + bytes(other))
        done = _child(left, right, [(77, 4099, len(data))], window)
        assert _answers(done) == [False], at
    right.write_bytes(b"y" * 4099 + data)
    assert _answers(_child(left, right, [(77, 4099, len(data))], window)) == [True]


TRUNCATE_MAPPED = """\
import mmap as _mmap
_real, _calls = _mmap.mmap, []
def _truncating(*args, **kwargs):
    mapped = _real(*args, **kwargs)
    _calls.append(1)
    if len(_calls) == 2:  # both sides mapped
        with open({path!r}, "r+b") as victim:
            victim.truncate({keep})
    return mapped
_mmap.mmap = _truncating
"""


def test_a_file_truncated_under_the_mapping_kills_only_the_child(tmp_path: Path) -> None:
    """SIGBUS when `memcmp` touches a page past the new end: the child dies with no answer
    (and the caller compares the pair itself, which reports the end of the file)."""
    data = os.urandom(6 * PAGE)
    left, right = tmp_path / "l", tmp_path / "r"
    left.write_bytes(data)
    right.write_bytes(data)
    prefix = TRUNCATE_MAPPED.format(path=str(right), keep=PAGE)
    done = _child(left, right, [(0, 0, len(data))], 1 << 20, prefix)
    assert done.returncode == -signal.SIGBUS
    assert done.stdout == b""


CHANGE_MAPPED = """\
import mmap as _mmap
_real = _mmap.mmap
def _changing(*args, **kwargs):
    with open({path!r}, "r+b") as victim:
        victim.seek({at})
        victim.write(b"!")
    return _real(*args, **kwargs)
_mmap.mmap = _changing
"""


def test_a_byte_changed_after_the_first_window_is_found(tmp_path: Path) -> None:
    """The patch side changed in its last window while the first is compared: "0"."""
    data = os.urandom(6 * PAGE).replace(b"!", b"?")
    left, right = tmp_path / "l", tmp_path / "r"
    left.write_bytes(data)
    right.write_bytes(data)
    prefix = CHANGE_MAPPED.format(path=str(right), at=len(data) - 1)
    assert _answers(_child(left, right, [(0, 0, len(data))], 2 * PAGE, prefix)) == [False]


def _slow(base: Path, patch: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, ...]:
    """The outcome with nothing started early: every pair compared on the pool."""
    with monkeypatch.context() as patched:
        patched.setattr(headstart, "EARLY_BYTES", 1 << 62)
        return _outcome(base, patch)


def _raw_pairs(base: Path, patch: Path) -> int:
    with ZipArchive.open(base) as b, ZipArchive.open(patch) as p:
        return sum(
            (x.method, x.compressed_size) == (y.method, y.compressed_size)
            for x, y in early._candidates(b, p)
        )


def _count_compared_here(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the entries `proof.raw_equal` compares in this process."""
    compared: list[str] = []
    original = proof.raw_equal

    def counted(b: Any, be: Any, p: Any, pe: Any) -> bool:
        compared.append(be.name)
        return original(b, be, p, pe)

    monkeypatch.setattr(proof, "raw_equal", counted)
    return compared


@pytest.fixture
def wheels(tmp_path: Path) -> dict[str, Path]:
    """A base, an equal copy, and copies whose lib.so differs (same size and CRC-32) in its
    first bytes and in its last, all stored, so the raw bytes are the content."""
    lib = FILES["pkg/lib.so"]
    first = wheelkit.forge_same_crc(lib, tamper_at=0, patch_at=5000)
    last = wheelkit.forge_same_crc(lib, tamper_at=len(lib) - 1, patch_at=len(lib) - 9)
    made = {"base": FILES, "equal": FILES, "first": {**FILES, "pkg/lib.so": first}}
    made["last"] = {**FILES, "pkg/lib.so": last}
    built = {
        name: _wheel(tmp_path / name, files, method=zipfile.ZIP_STORED)
        for name, files in made.items()
    }
    for name, where in (("first byte", 0), ("last byte", -1)):
        built[name] = _flipped(built["equal"], tmp_path / name, "pkg/lib.so", where)
    return built


def _flipped(source: Path, directory: Path, name: str, where: int) -> Path:
    """A copy of `source` with one byte of `name`'s stored data flipped in place (its first or
    last): the declared size and CRC-32 still the original's, so only reading finds it."""
    data = bytearray(source.read_bytes())
    with ZipArchive.open(source) as archive:
        entry = next(e for e in archive.entries if e.name == name)
        start = archive.data_offset(entry)
    data[start + (where % entry.compressed_size)] ^= 0x01
    directory.mkdir()
    copy = directory / source.name
    copy.write_bytes(bytes(data))
    return copy


def test_the_childs_equal_is_taken_and_its_differ_compared_here(
    wheels: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Equal wheels: every started pair answered by the child, none compared here. A pair
    that differs in its first or last byte: compared here after the child's "0", and changed."""
    assert _raw_pairs(wheels["base"], wheels["equal"]) == 3
    expected = {name: _slow(wheels["base"], wheels[name], monkeypatch) for name in wheels}
    compared = _count_compared_here(monkeypatch)
    assert _outcome(wheels["base"], wheels["equal"]) == expected["equal"]
    assert compared == []
    for name in ("first", "last"):
        outcome = _outcome(wheels["base"], wheels[name])
        assert outcome == expected[name]
        lib = next(e for e in outcome[0] if e.path == "pkg/lib.so")
        assert (lib.status.value, lib.how.value, outcome[3]) == ("changed", "content", 1)
    assert compared == ["pkg/lib.so", "pkg/lib.so"]
    for name in ("first byte", "last byte"):  # not the content its CRC-32 declares: corrupt
        outcome = _outcome(wheels["base"], wheels[name])
        assert outcome == expected[name]
        lib = next(e for e in outcome[0] if e.path == "pkg/lib.so")
        assert (lib.status.value, lib.how.value, outcome[3]) == ("changed", "corrupt", 1)


REVERSED = """\
import sys
argv = sys.argv
sys.argv = argv[:3] + argv[:2:-1]
"""
"""The real child, answering the pairs in the reverse order."""

CHILDREN: dict[str, str | None] = {
    "none": None,  # no child could be started
    "gone": "import sys; sys.exit(1)",  # exits before answering
    "killed": "import os, signal; os.kill(os.getpid(), signal.SIGKILL)",
    "says differ": (
        "import os, sys\n"
        "for s in sys.argv[3:]: os.write(1, ' '.join(s.split(':')[:2]).encode() + b' 0\\n')"
    ),
    "garbage": "import os; os.write(1, b'x2\\n1\\n')",
    "equal for a pair not asked": "import os; os.write(1, b'999 999 1\\n')",
    "an equal cut short": (  # lib.so (the first pair) answered last, its line unended
        "import os, sys\n"
        "keys = [' '.join(s.split(':')[:2]).encode() for s in sys.argv[3:]]\n"
        "os.write(1, b''.join(key + b' 1\\n' for key in keys[1:]) + keys[0] + b' 1')"
    ),
    "each answer twice, the first a differ": (
        "import os, sys\n"
        "for s in sys.argv[3:]:\n"
        "    key = ' '.join(s.split(':')[:2]).encode()\n"
        "    os.write(1, key + b' 0\\n' + key + b' 1\\n')"
    ),
}


@pytest.mark.parametrize("child", CHILDREN)
def test_without_the_childs_equal_each_pair_is_compared_here(
    wheels: dict[str, Path], monkeypatch: pytest.MonkeyPatch, child: str
) -> None:
    """No child, one that dies or is killed, says "differ", says nonsense, answers a pair not
    asked about, or takes an answer back: the same outcome on equal and changed wheels, every
    pair left unanswered compared by `raw_equal` here."""
    others = ("equal", "first", "last", "first byte", "last byte")
    expected = [_slow(wheels["base"], wheels[name], monkeypatch) for name in others]
    code = CHILDREN[child]
    if code is None:
        monkeypatch.setattr(rawchild, "_spawn", lambda *args: None)
    else:
        monkeypatch.setattr(rawchild, "_CHILD", code)
    compared = _count_compared_here(monkeypatch)
    assert [_outcome(wheels["base"], wheels[name]) for name in others] == expected
    started = _raw_pairs(wheels["base"], wheels["equal"])
    if child not in ("each answer twice, the first a differ", "an equal cut short"):
        assert len(compared) >= len(others) * started  # all of them
    assert len(compared) >= 3


def test_answers_in_another_order_reach_their_own_pairs(
    wheels: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The child answering in reverse order: each pair still gets its own answer (taken in
    order, the changed lib.so would get another pair's "equal")."""
    expected = {name: _slow(wheels["base"], wheels[name], monkeypatch) for name in wheels}
    monkeypatch.setattr(rawchild, "_CHILD", REVERSED + rawchild._CHILD)
    compared = _count_compared_here(monkeypatch)
    for name in ("equal", "first", "last", "first byte", "last byte"):
        assert _outcome(wheels["base"], wheels[name]) == expected[name]
    assert compared == ["pkg/lib.so"] * 4  # the child's "0"s, nothing else


@pytest.mark.parametrize("keep", [0.2, 0.6, 0.97])
@pytest.mark.parametrize("changed", [False, True])
def test_a_wheel_truncated_or_changed_after_the_start_is_reported_as_without_it(
    wheels: dict[str, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    keep: float,
    changed: bool,
) -> None:
    """The patch cut (or one byte of lib.so changed) once the child was started, before any
    proof reads it: the same error or report as the comparison on the pool meets, never a
    pass."""
    lib = FILES["pkg/lib.so"]
    patch = tmp_path / "victim.whl"
    original = wheels["equal"].read_bytes()
    at = original.find(lib[7000:7100]) + 50

    def damage() -> None:
        if changed:
            with patch.open("r+b") as victim:
                victim.seek(at)
                victim.write(bytes([original[at] ^ 0x20]))
        else:
            os.truncate(patch, int(len(original) * keep))

    damaged: list[bool] = []

    def first(fn: Any) -> Any:
        """`fn`, the wheel damaged before its first call of the run."""

        def hooked(*args: Any) -> Any:
            if not damaged:
                damage()
                damaged.append(True)
            return fn(*args)

        return hooked

    from k3diff.wheels import compare, facts

    outcomes = []
    for cutoff in (headstart.EARLY_BYTES, 1 << 62):
        patch.write_bytes(original)
        damaged.clear()
        with monkeypatch.context() as patched:
            patched.setattr(headstart, "EARLY_BYTES", cutoff)
            # Early start: damaged as the child is spawned (its offsets read from the whole
            # file); without it, before RECORD is read.
            patched.setattr(rawchild, "_spawn", first(rawchild._spawn))
            patched.setattr(compare, "read_facts", first(facts.read_facts))
            outcomes.append(_outcome(wheels["base"], patch))
        assert damaged
    fast, slow = outcomes
    if fast[0] == "error":
        assert slow[0] == "error" and fast[1] == slow[1]
    else:
        assert fast == slow
        assert fast[3] != 0
