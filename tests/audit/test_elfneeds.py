"""`FastTap` (struct) answers exactly as `ElfTap` (pyelftools) does: the same needs for real
libraries, read without falling back, and the same answer or error for damaged ones."""

from __future__ import annotations

import random
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from k3diff.audit import elfneeds
from k3diff.audit.elfneeds import FastTap
from k3diff.native import platform as native
from k3diff.native.platform import ElfTap, PlatformNeeds

SYSTEM = [
    Path("/usr/lib/x86_64-linux-gnu/libc.so.6"),
    Path("/usr/lib/x86_64-linux-gnu/libstdc++.so.6"),
    Path("/usr/lib/x86_64-linux-gnu/libz.so.1"),
]
SOURCE = "#include <pthread.h>\nvoid *run(void *a) { return a; }\nint go(void) { pthread_t t; return pthread_create(&t, 0, run, 0); }\n"


def _chunks(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


def _answer(tap: FastTap | ElfTap, data: bytes, size: int) -> object:
    def reread() -> Iterator[bytes]:
        return iter(_chunks(data, size))

    for chunk in _chunks(data, size):
        tap.feed(chunk)
    if not tap.is_elf:
        return "not an ELF"
    try:
        return tap.needs(reread)
    except Exception as exc:  # every error, PlatformUnknown or not, must be the same one
        return (type(exc).__name__, str(exc))


def _both(data: bytes, size: int = 64 << 10) -> tuple[object, object]:
    return _answer(FastTap(len(data)), data, size), _answer(ElfTap(len(data)), data, size)


@pytest.fixture
def fallbacks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the entries `FastTap` hands to `ElfTap`."""
    calls: list[int] = []
    original = FastTap._fallback

    def counted(self: FastTap, reread: object) -> PlatformNeeds:
        calls.append(self.size)
        return original(self, reread)  # type: ignore[arg-type]

    monkeypatch.setattr(FastTap, "_fallback", counted)
    return calls


def _library(tmp_path: Path) -> bytes:
    if shutil.which("gcc") is None:
        pytest.skip("needs a C compiler")
    source = tmp_path / "threads.c"
    source.write_text(SOURCE)
    out = tmp_path / "threads.so"
    subprocess.run(
        ["gcc", "-shared", "-fPIC", "-O1", "-o", str(out), str(source), "-Wl,-rpath,$ORIGIN/x"],
        check=True,
    )
    return out.read_bytes()


def _libraries(tmp_path: Path) -> list[bytes]:
    found = [path.read_bytes() for path in SYSTEM if path.exists()]
    return [_library(tmp_path), *found]


def test_real_libraries_are_read_without_pyelftools(tmp_path: Path, fallbacks: list[int]) -> None:
    for data in _libraries(tmp_path):
        # 64 KiB chunks, and 1 MiB ones: a first chunk that holds the whole kept prefix is
        # kept as it is, not copied
        for size in (64 << 10, 1 << 20):
            fast, old = _both(data, size)
            assert isinstance(old, PlatformNeeds)
            assert fast == old
    assert fallbacks == []


def test_tables_past_the_kept_prefix_take_the_same_second_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fallbacks: list[int]
) -> None:
    monkeypatch.setattr(native, "KEPT_PREFIX", 4096)
    monkeypatch.setattr(elfneeds, "KEPT_PREFIX", 4096)
    seconds: list[int] = []
    original = FastTap._table_ranges

    def counted(self: FastTap, regions: dict[int, bytes]) -> list[tuple[int, int]]:
        seconds.append(self.size)
        return original(self, regions)

    monkeypatch.setattr(FastTap, "_table_ranges", counted)
    libraries = _libraries(tmp_path)
    for data in libraries:
        fast, old = _both(data, 4096)
        assert isinstance(old, PlatformNeeds)
        assert fast == old
    assert fallbacks == []
    assert seconds, "no library had its tables past 4 KiB: the second pass went untested"


def test_damaged_headers_and_tables_get_the_old_answer(tmp_path: Path) -> None:
    data = _library(tmp_path)
    fields = [*range(0, 64), *range(64, 64 + 56 * 4)]  # the ELF header, the first phdrs
    dynamic = _dynamic_range(data)
    rng = random.Random(41)
    outcomes = set()
    for case in range(400):
        damaged = bytearray(data)
        for _ in range(rng.randint(1, 3)):
            where = rng.choice(fields) if case % 2 else rng.randrange(*dynamic)
            damaged[where] = rng.randrange(256)
        cut = len(damaged) if case % 7 else rng.randrange(64, len(damaged))
        fast, old = _both(bytes(damaged[:cut]), rng.choice((64, 4096, 1 << 20)))
        assert fast == old, f"case {case}"
        outcomes.add(type(old).__name__)
    assert {"PlatformNeeds", "tuple"} <= outcomes  # both answers and errors were compared


def _dynamic_range(data: bytes) -> tuple[int, int]:
    tap = ElfTap(len(data))
    tap.feed(data)
    offset, length = tap._dynamic or (0, 0)
    assert length > 0
    return offset, offset + length
