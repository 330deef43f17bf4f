"""`FastTap` keeps an ELF's loader tables on the first read when they lie ahead of it
(`tablecapture`): the answer is the one `ElfTap` (pyelftools) gives after its full second pass,
while the second pass re-reads only what lay behind, and every reservation is given back."""

from __future__ import annotations

import itertools
import random
import struct
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from audit.elfcraft import loader_elf
from audit.zipcraft import build, wheel_entries
from k3diff.audit import elfneeds, tablecapture
from k3diff.audit.elfneeds import FastTap
from k3diff.audit.run import audit
from k3diff.audit.tablecapture import _Pieces
from k3diff.native import platform as native
from k3diff.native.platform import ElfTap, PlatformNeeds
from k3diff.wheel.codes import Code


@pytest.fixture(autouse=True)
def small_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tables past a 4 KiB kept prefix, as a big library's lie past 1 MiB."""
    monkeypatch.setattr(native, "KEPT_PREFIX", 4096)
    monkeypatch.setattr(elfneeds, "KEPT_PREFIX", 4096)


def _chunks(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


def _answer(tap: FastTap | ElfTap, data: bytes, chunk: int) -> tuple[object, int]:
    """The tap's answer (or its error) and how many bytes its second pass re-read."""
    reread_bytes = [0]

    def reread() -> Iterator[bytes]:
        for piece in _chunks(data, chunk):
            reread_bytes[0] += len(piece)
            yield piece

    for piece in _chunks(data, chunk):
        tap.feed(piece)
    if not tap.is_elf:
        return "not an ELF", 0
    try:
        answer: object = tap.needs(reread)
    except Exception as exc:
        answer = (type(exc).__name__, str(exc))
    return answer, reread_bytes[0]


LAYOUTS = [
    # (pieces in file order, patchelf's appended segment, the piece a second pass still reads)
    (("verneed", "dynstr", "dynamic"), False, "all"),  # everything behind: the full second pass
    (("verneed", "dynamic", "dynstr"), False, "verneed"),  # the string table ahead: kept
    (("dynamic", "dynstr", "verneed"), False, None),  # both ahead: no second pass at all
    (("verneed", "dynstr", "dynamic"), True, "verneed"),  # patchelf: the string table speculated
    (("dynstr", "verneed", "dynamic"), True, "dynstr"),  # the version table speculated
]


@pytest.mark.parametrize(("order", "split_load", "behind"), LAYOUTS)
@pytest.mark.parametrize("chunk", [4096, 5000, 1 << 20])
def test_same_answer_as_pyelftools_with_less_reread(
    order: tuple[str, ...], split_load: bool, behind: str | None, chunk: int
) -> None:
    data = loader_elf(order, split_load=split_load)
    fast, fast_reread = _answer(FastTap(len(data)), data, chunk)
    old, old_reread = _answer(ElfTap(len(data)), data, chunk)
    assert isinstance(old, PlatformNeeds)
    assert old.glibc == "2.17" and old.needed == ("libc.so.6", "libm.so.6")
    assert fast == old
    assert old_reread > 0  # pyelftools' tap always takes the second pass here
    if behind is None or chunk >= len(data):  # all of it in one chunk: every table is ahead
        assert fast_reread == 0
    elif behind == "all":
        assert fast_reread == old_reread
    else:
        # the pass stops at the chunk that ends what lay behind (the version-need table is
        # read as 64 KiB)
        reach = {"verneed": 64 << 10, "dynstr": 32}[behind]
        start = data.index(struct.pack("<HHI", 1, 1, 1) if behind == "verneed" else b"\0libc")
        assert 0 < fast_reread <= start + reach + chunk
        assert fast_reread < old_reread
    assert tablecapture.reserved() == 0


def test_no_room_to_keep_means_the_old_second_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tablecapture, "CAPTURE_BYTES", 0)
    data = loader_elf(("dynamic", "dynstr", "verneed"))
    fast, fast_reread = _answer(FastTap(len(data)), data, 4096)
    old, old_reread = _answer(ElfTap(len(data)), data, 4096)
    assert fast == old and isinstance(old, PlatformNeeds)
    assert fast_reread == old_reread > 0
    assert tablecapture.reserved() == 0


def test_a_tap_dropped_unanswered_gives_its_reservation_back() -> None:
    data = loader_elf(("dynamic", "dynstr", "verneed"))
    tap = FastTap(len(data))
    for piece in _chunks(data, 4096):
        tap.feed(piece)
    assert tablecapture.reserved() > 0  # the tables ahead were kept
    tap.release()
    tap.release()
    assert tablecapture.reserved() == 0


@pytest.fixture
def early(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every ELF counts as large: its start is kept speculatively, all of it."""
    monkeypatch.setattr(elfneeds, "EARLY_MIN_SIZE", 0)
    monkeypatch.setattr(tablecapture, "EARLY_BYTES", 1 << 20)


@pytest.mark.parametrize(("order", "split_load", "behind"), LAYOUTS)
@pytest.mark.parametrize("chunk", [4096, 5000, 1 << 20])
@pytest.mark.usefixtures("early")
def test_a_large_librarys_start_is_kept_so_nothing_is_reread(
    order: tuple[str, ...], split_load: bool, behind: str | None, chunk: int
) -> None:
    data = loader_elf(order, split_load=split_load)
    fast, fast_reread = _answer(FastTap(len(data)), data, chunk)
    old, old_reread = _answer(ElfTap(len(data)), data, chunk)
    assert isinstance(old, PlatformNeeds) and old.glibc == "2.17"
    assert fast == old
    assert old_reread > 0 and fast_reread == 0
    assert tablecapture.reserved() == 0


@pytest.mark.usefixtures("early")
def test_no_room_for_a_large_librarys_start_means_the_second_pass(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data = loader_elf(("verneed", "dynstr", "dynamic"))
    monkeypatch.setattr(tablecapture, "EARLY_CAPTURE_BYTES", len(data) - 1)
    fast, fast_reread = _answer(FastTap(len(data)), data, 4096)
    old, old_reread = _answer(ElfTap(len(data)), data, 4096)
    assert fast == old and isinstance(old, PlatformNeeds)
    assert fast_reread == old_reread > 0
    assert tablecapture.reserved() == 0


def test_a_large_librarys_start_leaves_patchelfs_room(monkeypatch: pytest.MonkeyPatch) -> None:
    """The early stretch has its own reservation: with room for patchelf's stretch alone in
    the shared one, that stretch is still kept (only the version table is re-read)."""
    monkeypatch.setattr(elfneeds, "EARLY_MIN_SIZE", 0)
    monkeypatch.setattr(tablecapture, "EARLY_BYTES", 8192)  # keeps neither table
    data = loader_elf(("verneed", "dynstr", "dynamic"), split_load=True)
    stretch = data.index(struct.pack("<qQ", 1, 1)) - data.index(b"\0libc.so.6")
    monkeypatch.setattr(tablecapture, "CAPTURE_BYTES", stretch)  # patchelf's, exactly
    fast, fast_reread = _answer(FastTap(len(data)), data, 4096)
    old, old_reread = _answer(ElfTap(len(data)), data, 4096)
    assert fast == old and isinstance(old, PlatformNeeds)
    assert 0 < fast_reread < old_reread
    assert tablecapture.reserved() == 0


@pytest.mark.parametrize("split_load", [False, True])
@pytest.mark.parametrize("keep_start", [False, True])
def test_damaged_tables_and_headers_get_the_old_answer(
    split_load: bool, keep_start: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if keep_start:
        monkeypatch.setattr(elfneeds, "EARLY_MIN_SIZE", 0)
        monkeypatch.setattr(tablecapture, "EARLY_BYTES", 1 << 20)
    rng = random.Random(4101)
    outcomes = set()
    for case in range(300):
        order = rng.choice([layout[0] for layout in LAYOUTS])
        data = bytearray(loader_elf(order, split_load=split_load))
        dynamic = data.index(struct.pack("<qQ", 1, 1))
        tables = [dynamic, data.index(b"\0libc.so.6"), data.index(struct.pack("<HHI", 1, 1, 1))]
        for _ in range(rng.randint(1, 3)):
            if case % 3 == 0:
                where = rng.randrange(64 + 56 * 3)  # the ELF header and program headers
            else:
                where = rng.choice(tables) + rng.randrange(112)
            data[where] = rng.randrange(256) if case % 2 else data[where] ^ 0x80
        cut = len(data) if case % 5 else rng.randrange(4096, len(data))
        damaged = bytes(data[:cut])
        chunk = rng.choice((512, 4096, 5000, 1 << 20))
        fast, _ = _answer(FastTap(len(damaged)), damaged, chunk)
        old, _ = _answer(ElfTap(len(damaged)), damaged, chunk)
        assert fast == old, f"case {case}"
        outcomes.add(type(old).__name__)
        assert tablecapture.reserved() == 0
    assert "PlatformNeeds" in outcomes and len(outcomes) > 1


def test_the_audit_gives_every_reservation_back(tmp_path: Path) -> None:
    """Through `audit`: an ELF whose tables were kept is answered, and one whose stream then
    fails its CRC-32 (W604: no needs read) still gives its reservation back."""
    elf = loader_elf(("dynamic", "dynstr", "verneed"))
    honest = build(tmp_path / "demo-1.0-py3-none-any.whl", wheel_entries({"demo/lib.so": elf}))
    entries = wheel_entries({"demo/lib.so": elf})
    bad = next(e for e in entries if e.name == "demo/lib.so")
    bad.crc ^= 1
    (tmp_path / "other").mkdir()
    corrupt = build(tmp_path / "other" / "demo-1.0-py3-none-any.whl", entries)
    report = audit([honest, corrupt])
    good, broken = report.artifacts
    assert [(n.entry, n.needs and n.needs.glibc) for n in good.natives] == [("demo/lib.so", "2.17")]
    assert [f.path for f in broken.findings if f.code is Code.W604] == ["demo/lib.so"]
    assert broken.natives == ()
    assert tablecapture.reserved() == 0


@given(st.binary(max_size=300), st.lists(st.integers(0, 300), max_size=8), st.data())
def test_kept_pieces_cut_as_the_joined_bytes_slice(
    content: bytes, cuts: list[int], data: st.DataObject
) -> None:
    pieces = _Pieces()
    bounds = sorted({0, len(content), *(min(c, len(content)) for c in cuts)})
    for low, high in itertools.pairwise(bounds):
        chunk = content[low:high]
        pieces.append(memoryview(chunk) if low % 2 else chunk)
    assert pieces.length == len(content)
    start = data.draw(st.integers(0, len(content)))
    stop = data.draw(st.integers(start, len(content)))
    assert pieces.cut(start, stop) == content[start:stop]
