"""Per-kind detail comparators: what more to say about an entry once its status is known.

Each comparator says which entries it handles and produces the detail for one of them. They are
listed in one ordered tuple, specific before generic; the first that matches wins.
"""

from __future__ import annotations

import zlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple, Protocol

from k3diff.errors import CorruptEntryError
from k3diff.textdiff import diff_content
from k3diff.wheel.kinds import EntryKind
from k3diff.wheel.record import RECORD_FILES
from k3diff.wheel.recordhash import digest_bytes, new_hasher, record_form
from k3diff.wheels.model import EntryResult
from k3diff.wheels.proof import How, Status
from k3diff.zip.archive import ZipArchive
from k3diff.zip.directory import ZipEntry

TEXT_LIMIT = 32 << 20
"""Largest text entry read whole for a line diff."""


class Sides(NamedTuple):
    """The two archives and the entries of one pair (either entry may be absent): a named tuple,
    the comparators' arguments, defined in a tenth of a frozen dataclass's ≈ 1 ms."""

    base: ZipArchive
    patch: ZipArchive
    base_entry: ZipEntry | None
    patch_entry: ZipEntry | None
    digest_algorithm: str | None = None
    """Hash the patch content with this algorithm (RECORD's) if a comparator reads it."""

    def base_bytes(self) -> bytes | None:
        """Whole base content, or None when the entry is absent."""
        if self.base_entry is None:
            return None
        return self.base.read_content(self.base_entry, TEXT_LIMIT)

    def patch_bytes(self) -> bytes | None:
        """Whole patch content, or None when the entry is absent."""
        if self.patch_entry is None:
            return None
        return self.patch.read_content(self.patch_entry, TEXT_LIMIT)


class DetailComparator(Protocol):
    """Adds kind-specific detail to an entry result."""

    def matches(self, result: EntryResult) -> bool:
        """True when this comparator handles the entry."""
        ...

    def compare(self, result: EntryResult, sides: Sides) -> EntryResult:
        """The result with its detail filled in."""
        ...


class TextComparator:
    """Line diff of changed, added or missing Python sources and metadata files."""

    def matches(self, result: EntryResult) -> bool:
        if result.status is Status.IDENTICAL or result.how is How.MODE:  # content identical
            return False
        if result.kind is EntryKind.METADATA:
            return not result.path.endswith(RECORD_FILES)
        return result.kind is EntryKind.PYTHON

    def compare(self, result: EntryResult, sides: Sides) -> EntryResult:
        if not reads_whole(result):
            return result
        try:
            base_bytes = sides.base_bytes()
        except CorruptEntryError as exc:
            return _wrong_crc_field(result, sides, "base", exc.problem) or replace(
                result, corrupt=f"the base wheel's stream: {exc.problem}; not diffed"
            )
        try:
            patch_bytes = sides.patch_bytes()
        except CorruptEntryError as exc:
            return _wrong_crc_field(result, sides, "patch", exc.problem) or replace(
                result, corrupt=f"the patch wheel's stream: {exc.problem}; not diffed"
            )
        digest = None
        if sides.digest_algorithm is not None and patch_bytes is not None:
            digest = digest_bytes(patch_bytes, sides.digest_algorithm)
        diff = diff_content(
            base_bytes, patch_bytes, f"a/{result.base_path}", f"b/{result.patch_path}"
        )
        return replace(result, diff=diff, patch_digest=digest)


def _wrong_crc_field(
    result: EntryResult, sides: Sides, side: str, problem: str
) -> EntryResult | None:
    """An entry called changed only because the declared CRC-32s differ (`How.CRC32`), whose
    contents, read without the CRC-32 check, are equal byte for byte: identical content with
    one side's CRC-32 field wrong (`How.CRC_FIELD`), its W604 kept. None otherwise."""
    if result.how is not How.CRC32 or sides.base_entry is None or sides.patch_entry is None:
        return None
    try:
        base = b"".join(sides.base.content_chunks(sides.base_entry, check_crc=False))
        patch = b"".join(sides.patch.content_chunks(sides.patch_entry, check_crc=False))
    except CorruptEntryError:
        return None  # a size or stream fault besides the CRC-32: the content is unknown
    if base != patch:
        return None
    other = "base" if side == "patch" else "patch"
    said = (
        f"content identical to the {other} wheel's (compared byte for byte); the {side} "
        f"wheel's CRC-32 field is wrong: {problem}"
    )
    if side == "base" and zlib.crc32(patch) != sides.patch_entry.crc32:
        # The patch's field is wrong too (another wrong value): pip refuses both wheels.
        said = (
            "content identical in both wheels (compared byte for byte); both wheels' CRC-32 "
            f"fields are wrong: the base's {problem}; the patch's declares "
            f"{sides.patch_entry.crc32:08x}"
        )
    return replace(result, status=Status.IDENTICAL, how=How.CRC_FIELD, corrupt=said)


def reads_whole(result: EntryResult) -> bool:
    """True when the entry is small enough for the text comparator to read whole."""
    sizes = [size for size in (result.base_size, result.patch_size) if size is not None]
    return not any(size > TEXT_LIMIT for size in sizes)


DETAIL_COMPARATORS: tuple[DetailComparator, ...] = (TextComparator(),)


def add_details(
    result: EntryResult, sides: Sides, comparators: tuple[DetailComparator, ...]
) -> EntryResult:
    """Apply the first comparator that matches, if any; a corrupt entry gets none (its content
    is unknown) and says so."""
    for comparator in comparators:
        if comparator.matches(result):
            if result.corrupt is not None:
                skipped = "explained" if isinstance(comparator, NativeExplainer) else "diffed"
                return replace(result, corrupt=f"{result.corrupt}; not {skipped}")
            return comparator.compare(result, sides)
    return result


WORKER_DETAIL_BYTES = 4 << 20
"""Largest entry (either side) whose details a pool worker adds (`worker_may_detail`): a text
diff holds both contents whole, and two workers at 32 MB each would pass the memory budget."""


def worker_may_detail(result: EntryResult, comparators: tuple[DetailComparator, ...]) -> bool:
    """True when the result's details may be added on a worker, beside the other comparisons,
    rather than one at a time on the main thread: both sides at most `WORKER_DETAIL_BYTES`,
    and no native explainer to run (it inflates to files with threads of its own)."""
    for size in (result.base_size, result.patch_size):
        if size is not None and size > WORKER_DETAIL_BYTES:
            return False
    return not any(
        isinstance(comparator, NativeExplainer) and comparator.matches(result)
        for comparator in comparators
    )


def reads_patch_content(result: EntryResult, comparators: tuple[DetailComparator, ...]) -> bool:
    """True when the comparator that handles `result` will read its patch content whole (so
    its RECORD hash is computed there, not in a read of its own)."""
    for comparator in comparators:
        if comparator.matches(result):
            if isinstance(comparator, NativeExplainer):
                return True
            return isinstance(comparator, TextComparator) and reads_whole(result)
    return False


class NativeExplainer:
    """`--explain`: inflate both versions of a changed native entry to temporary files and say
    which sections, symbols and GPU images differ. Temporary files go on every exit path."""

    def matches(self, result: EntryResult) -> bool:
        return (
            result.kind is EntryKind.NATIVE
            and result.status is Status.CHANGED
            and not result.content_identical
        )

    def compare(self, result: EntryResult, sides: Sides) -> EntryResult:
        import tempfile  # with shutil, bz2 and lzma: only `--explain` writes temporary files

        from k3diff.native import explain_native

        assert sides.base_entry is not None and sides.patch_entry is not None
        with (
            tempfile.TemporaryDirectory(prefix="k3diff-explain-") as scratch,
            ThreadPoolExecutor(max_workers=2, thread_name_prefix="k3diff-explain") as pool,
        ):
            # Both sides inflate at once: the inflater releases the GIL.
            base_job = pool.submit(
                _inflate_to, sides.base, sides.base_entry, Path(scratch) / "base", None
            )
            patch_job = pool.submit(
                _inflate_to,
                sides.patch,
                sides.patch_entry,
                Path(scratch) / "patch",
                sides.digest_algorithm,
            )
            problems = []
            for side, job in (("base", base_job), ("patch", patch_job)):
                try:
                    job.result()
                except CorruptEntryError as exc:
                    problems.append(f"the {side} wheel's stream: {exc.problem}")
            if problems:
                return replace(result, corrupt="; ".join(problems) + "; not explained")
            base_file, _ = base_job.result()
            patch_file, digest = patch_job.result()
            explanation = explain_native(base_file, patch_file)
        return replace(result, native=explanation, patch_digest=digest)


def _inflate_to(
    archive: ZipArchive, entry: ZipEntry, target: Path, algorithm: str | None
) -> tuple[Path, str | None]:
    hasher = new_hasher(algorithm) if algorithm else None
    with open(target, "wb") as handle:
        for chunk in archive.content_chunks(entry):
            handle.write(chunk)
            if hasher is not None:
                hasher.update(chunk)
    if hasher is None or algorithm is None:
        return target, None
    return target, record_form(algorithm, hasher.digest())


EXPLAINING_COMPARATORS: tuple[DetailComparator, ...] = (NativeExplainer(), TextComparator())
"""The comparators with `--explain` on: the native explainer first (specific before generic)."""
