"""A seekable view of the kept regions of an ELF (`ElfTap`'s), which pyelftools reads as a file;
a read outside them raises `Missing`, so the tap knows to fetch the tables in a second pass."""

from __future__ import annotations

import io
from collections.abc import Iterator


class Missing(Exception):
    """A read outside the kept regions."""


class Sparse(io.RawIOBase):
    """A seekable view of kept regions of a file (offset -> bytes); reading anything else raises
    `Missing`. The ELF header's section-table fields read as zero (a stripped section table is
    valid ELF), so pyelftools works from the program headers alone."""

    def __init__(self, regions: dict[int, bytes], size: int) -> None:
        self._size = size
        self._position = 0
        self._regions: list[tuple[int, bytes]] = []
        self._head = b""
        self.replace(regions)

    def replace(self, regions: dict[int, bytes]) -> None:
        """Serve these regions from now on."""
        self.missed = False
        """A read asked for bytes outside the regions."""
        self._regions = sorted(regions.items())
        head = bytearray(regions.get(0, b"")[:64])
        if len(head) >= 64:
            if head[4] == 2:  # ELFCLASS64: e_shoff at 0x28, e_shnum/e_shstrndx at 0x3c
                head[0x28:0x30] = bytes(8)
                head[0x3C:0x40] = bytes(4)
            else:  # ELFCLASS32: e_shoff at 0x20, e_shnum/e_shstrndx at 0x30
                head[0x20:0x24] = bytes(4)
                head[0x30:0x34] = bytes(4)
        self._head = bytes(head)

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._position

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._position, io.SEEK_END: self._size}[whence]
        self._position = max(0, base + offset)
        return self._position

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        start = self._position
        end = min(start + len(buffer), self._size)
        if end <= start:
            return 0
        for offset, data in self._regions:
            if offset <= start < offset + len(data):  # a short read at a region's end
                piece = data[start - offset : min(end, offset + len(data)) - offset]
                if offset + len(data) < end and b"\x00" not in piece:
                    # review75g: the file goes on past the region, so a string running past
                    # its end is not cut there (a 4 MB RUNPATH read as '' and passed): another
                    # region may hold it whole, else it is missing
                    continue
                if start < len(self._head):
                    patched = self._head[start : min(end, len(self._head))]
                    piece = patched + piece[len(patched) :]
                buffer[: len(piece)] = piece
                self._position = start + len(piece)
                return len(piece)
        self.missed = True
        raise Missing(f"bytes {start}-{end}")


def collect(chunks: Iterator[bytes], wanted: list[tuple[int, int]]) -> dict[int, bytes]:
    """The bytes of each (offset, length) range, kept while the content streams past; stops
    after the last range. Ranges at one offset are kept as the longest of them (review78h: kept
    one after the other, the bytes past the shorter were the file's from the offset again, and
    a decoy dynamic table planted where that copy put the real one was read: RUNPATH /tmp
    passed as $ORIGIN)."""
    longest: dict[int, int] = {}
    for offset, length in wanted:
        longest[offset] = max(length, longest.get(offset, 0))
    kept = {offset: bytearray() for offset in longest}
    last = max((offset + length for offset, length in longest.items()), default=0)
    ordered = sorted(longest.items())
    first = 0  # ranges before it have ended: a chunk looks at those it may meet (tf78: 257)
    position = 0
    for chunk in chunks:
        start, position = position, position + len(chunk)
        while first < len(ordered) and sum(ordered[first]) <= start:
            first += 1
        for offset, length in ordered[first:]:
            if offset >= position:
                break
            low, high = max(start, offset), min(position, offset + length)
            if low < high:
                kept[offset] += chunk[low - start : high - start]
        if position >= last:
            break
    return {offset: bytes(data) for offset, data in kept.items()}
