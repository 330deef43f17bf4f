"""Decide whether two archive entries hold the same content, and record how it was proven.

The cheapest sufficient evidence wins:

1. a different declared size or CRC-32 proves a change without reading anything;
2. equal raw compressed bytes under the same method prove identity without inflating;
3. otherwise both streams are inflated and compared byte for byte. Equal CRC-32 and size never
   prove identity on their own: a CRC-32 can be forged while keeping the size.
"""

from __future__ import annotations

import base64
import contextlib
import queue
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from k3diff.errors import CorruptEntryError
from k3diff.native.sniff import SNIFF_BYTES
from k3diff.wheel.recordhash import new_hasher
from k3diff.zip.archive import CHUNK, ZipArchive
from k3diff.zip.directory import ZipEntry


class Status(StrEnum):
    """How an entry compares between base and patch."""

    IDENTICAL = "identical"
    CHANGED = "changed"
    MISSING = "missing"
    ADDED = "added"


class How(StrEnum):
    """The evidence behind a status."""

    SIZE = "size"
    """Declared uncompressed sizes differ."""
    CRC32 = "crc32"
    """Sizes equal, declared CRC-32 values differ."""
    RAW_BYTES = "raw-bytes"
    """Compressed bytes are equal under the same method: identical without inflating."""
    CONTENT = "content"
    """Both entries were inflated and compared byte for byte."""
    MODE = "mode"
    """The content is identical; the file pip installs differs in its exec bit or file type
    (`k3diff.wheel.modes`)."""
    ONE_SIDED = "one-sided"
    """The path exists on one side only."""
    CORRUPT = "corrupt"
    """Size and CRC-32 agree but a stream fails its own CRC-32 or size: a corrupt archive, its
    content unknown (not a content change)."""
    CRC_FIELD = "crc-field"
    """The declared CRC-32s differ, but the contents compare equal byte for byte: one side's
    CRC-32 field is wrong (its stream fails that check, W604), the content is identical."""


@dataclass(frozen=True)
class Proof:
    """The outcome of comparing one pair of entries."""

    status: Status
    """identical or changed (missing/added are decided by pairing)."""
    how: How
    """Which evidence decided it."""
    recompressed: bool = False
    """True when the compressed bytes differ although the content is identical."""
    corrupt: str | None = None
    """Which side's stream fails its own CRC-32 or size, and how."""
    patch_digest: str | None = None
    """Hash of the patch content in RECORD form, when it was asked for and read whole."""


RAW_CHUNK = 256 << 10
"""Compressed bytes compared per step: two such buffers stay in the CPU cache, which makes
comparing a 500 MB entry a third faster than with 1 MiB steps."""

SMALL_ENTRY = CHUNK
"""Up to this size a content proof reads and inflates each side whole, in one step each (the
streaming machinery cost more than the inflate on a wheel of twelve thousand small files)."""

BIG_ENTRY = 64 << 20
"""Above this size the patch side inflates in its own thread, so one huge pair uses two cores."""


def prove(
    base: ZipArchive,
    base_entry: ZipEntry,
    patch: ZipArchive,
    patch_entry: ZipEntry,
    algorithm: str | None = None,
) -> Proof:
    """Compare one pair of entries with the cheapest sufficient evidence.

    `algorithm` names the hash (as RECORD does) of the patch content to compute if the content
    is read: it is verified against RECORD when the entry turns out changed."""
    return prove_reading(base, base_entry, patch, patch_entry, algorithm)[0]


def prove_reading(
    base: ZipArchive,
    base_entry: ZipEntry,
    patch: ZipArchive,
    patch_entry: ZipEntry,
    algorithm: str | None = None,
    raw_answer: Callable[[], bool] | None = None,
    content_answer: Callable[[], bool] | None = None,
) -> tuple[Proof, bytes | None, bytes | None]:
    """`prove`, the patch's compressed bytes when the proof read them whole in one read (raw
    bytes equal, a small entry: most pairs of a wheel whose layout moved), and the first
    `SNIFF_BYTES` of the patch content when the proof inflated it whole and found it identical
    (a small recompressed entry), so that the caller sniffs the entry's kind from them instead
    of reading its start again. `raw_answer`: the pair's `raw_equal`, already started
    (`wheels.early`), taken instead of comparing the raw bytes here; `content_answer` likewise
    the pair's `same_content`, for a large pair whose compressed bytes differ in layout."""
    if base_entry.size != patch_entry.size:
        return Proof(Status.CHANGED, How.SIZE), None, None
    if base_entry.crc32 != patch_entry.crc32:
        return Proof(Status.CHANGED, How.CRC32), None, None
    same_layout = (
        base_entry.method == patch_entry.method
        and base_entry.compressed_size == patch_entry.compressed_size
    )
    try:
        if same_layout and base_entry.compressed_size <= RAW_CHUNK:
            # One read per side, no stream machinery.
            size = base_entry.compressed_size
            raw = base.pread(size, base.data_offset(base_entry))
            patch_raw = patch.pread(size, patch.data_offset(patch_entry))
            if raw == patch_raw:
                return IDENTICAL_RAW, patch_raw, None
        elif same_layout and (
            raw_answer() if raw_answer else raw_equal(base, base_entry, patch, patch_entry)
        ):
            return IDENTICAL_RAW, None, None
    except CorruptEntryError as exc:  # overlapping entries are never read
        side = "base" if exc.archive == str(base.path) else "patch"
        corrupt = f"the {side} wheel's stream: {exc.problem}"
        return Proof(Status.CHANGED, How.CORRUPT, corrupt=corrupt), None, None
    if base_entry.size <= SMALL_ENTRY:  # most entries: one read and one inflate step per side
        read = base.small_content_crc(base_entry)
        if read is not None and _same_small(read, base_entry, patch, patch_entry):
            return IDENTICAL_CONTENT, None, read[0][:SNIFF_BYTES]
    elif content_answer() if content_answer else same_content(base, base_entry, patch, patch_entry):
        return IDENTICAL_CONTENT, None, None
    return _checked_content_proof(base, base_entry, patch, patch_entry, algorithm), None, None


def _same_small(
    base_read: tuple[bytes, int], base_entry: ZipEntry, patch: ZipArchive, patch_entry: ZipEntry
) -> bool:
    """`same_content` of a small pair, `base_read` the base content and its CRC-32 as
    `small_content_crc` read them."""
    whole, crc = base_read
    return crc == base_entry.crc32 and whole == patch.small_content(patch_entry)


def same_content(
    base: ZipArchive, base_entry: ZipEntry, patch: ZipArchive, patch_entry: ZipEntry
) -> bool:
    """Declared sizes and CRC-32s are equal here. When the contents compare equal and the base
    stream passes its own CRC-32 check, the patch content (the same bytes) has that CRC-32 too,
    which is also the patch's declared one: checking one side suffices, and on recompressed
    wheels the second CRC-32 cost about 15% of the proof. Only when the contents differ (False)
    must both streams be read to their ends with every check, to tell a forged CRC-32 from a
    corrupt stream: that rare path reads both again. Entries of at most `SMALL_ENTRY` bytes are
    read whole instead (`prove_reading`, `_same_small`)."""
    problems: list[str] = []
    patch_content = patch.content_chunks(patch_entry, check_crc=False)
    equal = _checked_equal(base, base_entry, patch_content, patch_entry.size, problems)
    return equal and not problems


def _checked_content_proof(
    base: ZipArchive,
    base_entry: ZipEntry,
    patch: ZipArchive,
    patch_entry: ZipEntry,
    algorithm: str | None,
) -> Proof:
    """Both streams read to their ends, each checked against its own size and CRC-32, the patch
    content hashed for RECORD on the way."""
    problems: list[str] = []
    hasher = new_hasher(algorithm) if algorithm else None
    patch_content: Iterator[bytes] = patch.content_chunks(patch_entry)
    if hasher is not None:
        patch_content = _hashed(patch_content, hasher)
    # Equal size and CRC-32 yet different content: a forged CRC-32, or a stream that fails its
    # own check further on. Only reading both to the end tells which.
    equal = _checked_equal(
        base, base_entry, patch_content, patch_entry.size, problems, to_the_end=True
    )
    if problems:
        return Proof(Status.CHANGED, How.CORRUPT, corrupt="; ".join(problems))
    if equal:
        return Proof(Status.IDENTICAL, How.CONTENT, recompressed=True)
    digest = None
    if hasher is not None and algorithm is not None:
        encoded = base64.urlsafe_b64encode(hasher.digest()).decode().rstrip("=")
        digest = f"{algorithm}={encoded}"
    return Proof(Status.CHANGED, How.CONTENT, patch_digest=digest)


def _checked_equal(
    base: ZipArchive,
    base_entry: ZipEntry,
    patch_content: Iterator[bytes],
    patch_size: int,
    problems: list[str],
    *,
    to_the_end: bool = False,
) -> bool:
    """The base entry's content compared with `patch_content`, each stream ended early (and the
    problem noted) when it fails its own check; `to_the_end`: when they differ, both are still
    read to their ends, so that every check runs."""
    if patch_size > BIG_ENTRY:
        patch_content = _read_ahead(patch_content)
    left = _checked(base.content_chunks(base_entry), "base", problems)
    right = _checked(patch_content, "patch", problems)
    try:
        equal = streams_equal(left, right, close=False)
        if to_the_end and not equal:
            for stream in (left, right):
                for _ in stream:
                    pass
    finally:
        _close(left)
        _close(right)
    return equal


def _checked(stream: Iterator[bytes], side: str, problems: list[str]) -> Iterator[bytes]:
    """`stream`, ended early (and the problem noted) when it fails its own CRC-32 or size."""
    try:
        yield from stream
    except CorruptEntryError as exc:
        problems.append(f"the {side} wheel's stream: {exc.problem}")


def _hashed(chunks: Iterator[bytes], hasher: Any) -> Iterator[bytes]:
    for chunk in chunks:
        hasher.update(chunk)
        yield chunk


IDENTICAL_RAW = Proof(Status.IDENTICAL, How.RAW_BYTES)
IDENTICAL_CONTENT = Proof(Status.IDENTICAL, How.CONTENT, recompressed=True)


def raw_equal(
    base: ZipArchive, base_entry: ZipEntry, patch: ZipArchive, patch_entry: ZipEntry
) -> bool:
    """Raw bytes equal, for entries above `RAW_CHUNK` (`prove_reading` reads smaller ones)."""
    size = base_entry.compressed_size
    if size <= BIG_ENTRY:
        return _range_equal(base, base_entry, patch, patch_entry, 0, size)
    # One huge pair (a 500 MB library): compare its second half on another core meanwhile.
    middle = size // 2
    second = ThreadPoolExecutor(max_workers=1, thread_name_prefix="k3diff-raw")
    with second:
        tail = second.submit(_range_equal, base, base_entry, patch, patch_entry, middle, size)
        head = _range_equal(base, base_entry, patch, patch_entry, 0, middle)
        return head and tail.result()


def _range_equal(
    base: ZipArchive,
    base_entry: ZipEntry,
    patch: ZipArchive,
    patch_entry: ZipEntry,
    start: int,
    stop: int,
) -> bool:
    return streams_equal(
        base.raw_chunks(base_entry, RAW_CHUNK, start, stop),
        patch.raw_chunks(patch_entry, RAW_CHUNK, start, stop),
    )


def streams_equal(left: Iterator[bytes], right: Iterator[bytes], close: bool = True) -> bool:
    """True when two chunked byte streams carry the same bytes, whatever their chunking.

    Both streams are closed afterwards unless `close` is False (the caller reads on)."""
    left_buf, right_buf = b"", b""
    left_pos = right_pos = 0
    try:
        while True:
            if left_pos == len(left_buf):
                left_buf, left_pos = next(left, b""), 0
            if right_pos == len(right_buf):
                right_buf, right_pos = next(right, b""), 0
            if not left_buf or not right_buf:
                return not left_buf and not right_buf
            step = min(len(left_buf) - left_pos, len(right_buf) - right_pos)
            if (left_pos, right_pos) == (0, 0) and step == len(left_buf) == len(right_buf):
                same = left_buf == right_buf
            else:  # startswith compares a zero-copy view in place (memcmp); slicing would copy
                window = memoryview(right_buf)[right_pos : right_pos + step]
                same = left_buf.startswith(window, left_pos)
            if not same:
                return False
            left_pos += step
            right_pos += step
    finally:
        if close:
            _close(left)
            _close(right)


def _close(stream: Iterator[bytes]) -> None:
    close = getattr(stream, "close", None)
    if close is not None:
        close()


_DONE = object()


def _read_ahead(chunks: Iterator[bytes], depth: int = 8) -> Iterator[bytes]:
    """Produce `chunks` in a background thread, at most `depth` chunks ahead of the consumer."""
    buffer: queue.Queue[object] = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def produce() -> None:
        try:
            for chunk in chunks:
                if stop.is_set():
                    break
                buffer.put(chunk)
            buffer.put(_DONE)
        except BaseException as exc:  # handed to the consumer, which re-raises it
            buffer.put(exc)
        finally:
            _close(chunks)

    worker = threading.Thread(target=produce, name="k3diff-inflate", daemon=True)
    worker.start()
    try:
        while True:
            item = buffer.get()
            if item is _DONE:
                return
            if isinstance(item, BaseException):
                raise item
            assert isinstance(item, bytes)
            yield item
    finally:
        stop.set()
        while worker.is_alive():
            with contextlib.suppress(queue.Empty):
                buffer.get(timeout=0.05)
        worker.join()
