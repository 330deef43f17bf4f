"""CUDA fat binaries: walk the containers, locate each image, pair images across versions.

A fatbin (a standalone ``.fatbin`` file, or an ELF's ``.nv_fatbin`` section) is a sequence of
containers laid end to end. Layout, read from libcublasLt 12.9 and public descriptions; all
little-endian::

    container header, 16 bytes
      0  u32  magic 0xBA55ED50
      4  u16  version (1)
      6  u16  header size (16): entries start here
      8  u64  size of the entries that follow
    entry header, `header size` bytes (64, or 80/96/112 with arch-specific extensions)
      0  u16  kind: 1 PTX, 2 ELF cubin
      4  u32  header size: the payload starts here
      8  u64  payload size, padded to 8: the next entry starts after it
     16  u32  stored payload size (compressed size when compressed)
     24  u16  code version minor, u16 major
     28  u32  SM architecture (90 for sm_90)
     40  u64  flags: 0x1 64-bit, 0x10 linux host, 0x2000 LZ4, 0x8000 zstd, higher bits variants
     56  u64  uncompressed payload size

Only headers are read here; payload bytes are hashed by the caller's single pass over the file.
"""

from __future__ import annotations

import struct
from collections import defaultdict, deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Protocol

from k3diff.native.model import CudaChanges, CudaImage, ImageChange

FATBIN_MAGIC = 0xBA55ED50

_CONTAINER = struct.Struct("<IHHQ")
_ENTRY = struct.Struct("<HHIQIIHHIIIQQQ")
_KINDS = {1: "ptx", 2: "cubin"}
_FLAG_LZ4 = 0x2000
_FLAG_ZSTD = 0x8000


class FatbinError(ValueError):
    """A fatbin container or entry header that does not fit where it claims to be."""


class RandomReader(Protocol):
    """An unbuffered binary file: `open(path, "rb", buffering=0)`."""

    def seek(self, offset: int, whence: int = 0, /) -> int: ...

    def read(self, size: int = -1, /) -> bytes | None: ...


@dataclass(frozen=True)
class FatbinEntry:
    """Where one image's payload sits in the file, found before the payload is hashed."""

    payload_offset: int
    """File offset of the stored payload."""
    size: int
    """Stored payload bytes."""
    make_image: Callable[..., CudaImage]
    """The image its header describes, lacking only the payload's `xxh3_128`."""

    def image(self, digest: str) -> CudaImage:
        """The `CudaImage`, once the caller's pass over the file has hashed the payload."""
        return self.make_image(xxh3_128=digest)


def _read_at(stream: RandomReader, offset: int, size: int) -> bytes:
    stream.seek(offset)
    data = stream.read(size) or b""
    if len(data) != size:
        raise FatbinError(f"header at offset {offset:#x} runs past the end of the file")
    return data


def walk_fatbin(stream: RandomReader, start: int, end: int) -> list[FatbinEntry]:
    """Every image in the containers filling file bytes [start, end)."""
    entries: list[FatbinEntry] = []
    position, container_index = start, 0
    while position + _CONTAINER.size <= end:
        magic, _version, header_size, body_size = _CONTAINER.unpack(
            _read_at(stream, position, _CONTAINER.size)
        )
        if magic == 0:
            # Producers may pad between containers; padding is zero and keeps 8-byte alignment.
            position += 8
            continue
        if magic != FATBIN_MAGIC or header_size < _CONTAINER.size:
            raise FatbinError(f"no fatbin container header at offset {position:#x}")
        body_end = position + header_size + body_size
        if body_end > end:
            raise FatbinError(f"container at offset {position:#x} extends past its section")
        entries.extend(_walk_container(stream, container_index, position + header_size, body_end))
        position, container_index = body_end, container_index + 1
    return entries


def _walk_container(
    stream: RandomReader, container_index: int, position: int, end: int
) -> Iterable[FatbinEntry]:
    entry_index = 0
    while position < end:
        if position + _ENTRY.size > end:
            raise FatbinError(f"entry header at offset {position:#x} is cut short")
        header = _read_at(stream, position, _ENTRY.size)
        entry, position = _parse_entry(header, position, end, (container_index, entry_index))
        yield entry
        entry_index += 1


def _parse_entry(
    header: bytes, position: int, end: int, where: tuple[int, int]
) -> tuple[FatbinEntry, int]:
    """The entry whose header starts at `position`, and where the next one starts."""
    (kind, _, header_size, padded, stored, _, _, _, arch, _, _, flags, _, unpacked) = _ENTRY.unpack(
        header
    )
    next_position = position + header_size + padded
    if header_size < _ENTRY.size or next_position > end:
        raise FatbinError(f"entry at offset {position:#x} does not fit in its container")
    compression = "lz4" if flags & _FLAG_LZ4 else "zstd" if flags & _FLAG_ZSTD else None
    size = stored if 0 < stored <= padded else padded
    image = partial(
        CudaImage,
        container_index=where[0],
        entry_index=where[1],
        kind=_KINDS.get(kind, f"kind-{kind}"),
        sm_arch=arch,
        flags=flags,
        compression=compression,
        size=size,
        uncompressed_size=unpacked or size,
    )
    return FatbinEntry(position + header_size, size, image), next_position


def cubin_sm_arch(e_flags: int, abi_version: int) -> int:
    """SM architecture of a cubin: the low byte of e_flags, one byte higher from ABI version 8."""
    return (e_flags >> 8) & 0xFF if abi_version >= 8 else e_flags & 0xFF


def diff_images(section: str, base: Sequence[CudaImage], patch: Sequence[CudaImage]) -> CudaChanges:
    """Pair images across versions: equal content first, then by order within kind/arch/flags."""
    unmatched_patch: dict[tuple[str, int, int, str], deque[CudaImage]] = defaultdict(deque)
    for image in patch:
        unmatched_patch[_content_key(image)].append(image)
    identical = 0
    leftover_base: list[CudaImage] = []
    for image in base:
        twins = unmatched_patch.get(_content_key(image))
        if twins:
            twins.popleft()
            identical += 1
        else:
            leftover_base.append(image)
    leftover_patch = sorted(
        (image for queue in unmatched_patch.values() for image in queue), key=_position
    )
    changed, removed, added = _pair_by_group(leftover_base, leftover_patch)
    return CudaChanges(
        section=section,
        base_images=len(base),
        patch_images=len(patch),
        identical=identical,
        added=tuple(added),
        removed=tuple(removed),
        changed=tuple(changed),
    )


def _content_key(image: CudaImage) -> tuple[str, int, int, str]:
    return (image.kind, image.sm_arch, image.flags, image.xxh3_128)


def _position(image: CudaImage) -> tuple[int, int]:
    return (image.container_index, image.entry_index)


def _pair_by_group(
    base: list[CudaImage], patch: list[CudaImage]
) -> tuple[list[ImageChange], list[CudaImage], list[CudaImage]]:
    groups: dict[tuple[str, int, int], deque[CudaImage]] = defaultdict(deque)
    for image in patch:
        groups[(image.kind, image.sm_arch, image.flags)].append(image)
    changed: list[ImageChange] = []
    removed: list[CudaImage] = []
    for image in base:
        candidates = groups.get((image.kind, image.sm_arch, image.flags))
        if candidates:
            changed.append(ImageChange(image, candidates.popleft()))
        else:
            removed.append(image)
    added = sorted((image for queue in groups.values() for image in queue), key=_position)
    return changed, removed, added
