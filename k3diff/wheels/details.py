"""Per-kind detail comparators: what more to say about an entry once its status is known.

Each comparator says which entries it handles and produces the detail for one of them. They are
listed in one ordered tuple, specific before generic; the first that matches wins.
"""

from __future__ import annotations

import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

from k3diff.archive import ZipArchive
from k3diff.wheels.kinds import EntryKind
from k3diff.wheels.model import EntryResult
from k3diff.wheels.proof import Status
from k3diff.wheels.textdiff import diff_text
from k3diff.zipdir import ZipEntry

TEXT_LIMIT = 32 << 20
"""Largest text entry read whole for a line diff."""

_UNDIFFED_METADATA = ("/RECORD", "/RECORD.jws", "/RECORD.p7s")


@dataclass(frozen=True)
class Sides:
    """The two archives and the entries of one pair (either entry may be absent)."""

    base: ZipArchive
    patch: ZipArchive
    base_entry: ZipEntry | None
    patch_entry: ZipEntry | None

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
        if result.status is Status.IDENTICAL:
            return False
        if result.kind is EntryKind.METADATA:
            return not result.path.endswith(_UNDIFFED_METADATA)
        return result.kind is EntryKind.PYTHON

    def compare(self, result: EntryResult, sides: Sides) -> EntryResult:
        sizes = [size for size in (result.base_size, result.patch_size) if size is not None]
        if any(size > TEXT_LIMIT for size in sizes):
            return result
        diff = diff_text(
            sides.base_bytes(),
            sides.patch_bytes(),
            f"a/{result.base_path}",
            f"b/{result.patch_path}",
        )
        return replace(result, diff=diff)


DETAIL_COMPARATORS: tuple[DetailComparator, ...] = (TextComparator(),)


def add_details(
    result: EntryResult, sides: Sides, comparators: tuple[DetailComparator, ...]
) -> EntryResult:
    """Apply the first comparator that matches, if any."""
    for comparator in comparators:
        if comparator.matches(result):
            return comparator.compare(result, sides)
    return result


class NativeExplainer:
    """`--explain`: inflate both versions of a changed native entry to temporary files and say
    which sections, symbols and GPU images differ. Temporary files go on every exit path."""

    def matches(self, result: EntryResult) -> bool:
        return result.kind is EntryKind.NATIVE and result.status is Status.CHANGED

    def compare(self, result: EntryResult, sides: Sides) -> EntryResult:
        from k3diff.wheels.explain import explain_native

        assert sides.base_entry is not None and sides.patch_entry is not None
        with (
            tempfile.TemporaryDirectory(prefix="k3diff-explain-") as scratch,
            ThreadPoolExecutor(max_workers=2, thread_name_prefix="k3diff-explain") as pool,
        ):
            # Both sides inflate at once: the inflater releases the GIL.
            base_job = pool.submit(
                _inflate_to, sides.base, sides.base_entry, Path(scratch) / "base"
            )
            patch_job = pool.submit(
                _inflate_to, sides.patch, sides.patch_entry, Path(scratch) / "patch"
            )
            explanation = explain_native(base_job.result(), patch_job.result())
        return replace(result, native=explanation)


def _inflate_to(archive: ZipArchive, entry: ZipEntry, target: Path) -> Path:
    with open(target, "wb") as handle:
        for chunk in archive.content_chunks(entry):
            handle.write(chunk)
    return target


EXPLAINING_COMPARATORS: tuple[DetailComparator, ...] = (NativeExplainer(), TextComparator())
"""The comparators with `--explain` on: the native explainer first (specific before generic)."""
