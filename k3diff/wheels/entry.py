"""`EntryResult`: how one archive path compares between the two wheels (one per entry), apart
from the report that holds them (`wheels.model`), so that the columns of raw-identical runs
(`wheels.entryruns`) can build results below the report that counts them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from k3diff.textdiff import TextDiff
from k3diff.wheel.kinds import EntryKind
from k3diff.wheel.modes import ModeChange
from k3diff.wheels.proof import How, Status

if TYPE_CHECKING:  # the explainer pulls in pyelftools; import it only when --explain runs
    from k3diff.native import NativeExplanation
    from k3diff.provenance.check import FileSource
    from k3diff.wheels.nativeread import NativeRead


@dataclass(frozen=True)
class EntryResult:
    """How one archive path compares between the base and the patch wheel."""

    path: str
    """Path inside the patch wheel (or the base wheel when missing from the patch)."""
    base_path: str | None
    """Path in the base wheel (differs from `path` across a version or vendoring-hash change)."""
    patch_path: str | None
    """Path in the patch wheel, None when missing."""
    kind: EntryKind
    """native, python, metadata or other."""
    status: Status
    """identical, changed, missing or added."""
    how: How
    """The evidence that decided the status."""
    recompressed: bool
    """Identical content stored with different compressed bytes."""
    base_size: int | None
    """Uncompressed size in the base."""
    patch_size: int | None
    """Uncompressed size in the patch."""
    base_crc32: int | None
    """Declared CRC-32 in the base."""
    patch_crc32: int | None
    """Declared CRC-32 in the patch."""
    diff: TextDiff | None = None
    """Line diff for changed, added or missing text entries (Python, metadata)."""
    source: FileSource | None = None
    """Provenance against the git source, when asked (`--source`)."""
    native: NativeExplanation | None = None
    """Why a changed native entry differs, when asked (`--explain`)."""
    corrupt: str | None = None
    """Which side's stream fails its own CRC-32 or size, and how (None when both read clean or
    were not read)."""
    patch_digest: str | None = None
    """Hash of the patch content in RECORD form (`sha256=...`), when it was verified."""
    base_mode: int | None = None
    """Unix mode of the base entry (external attributes >> 16; 0 when it carries none)."""
    patch_mode: int | None = None
    """Unix mode of the patch entry."""

    installed_path: str | None = None
    """Where pip installs the patch's entry (the base's when missing), relative to a virtual
    environment's prefix (`site-packages/pkg/mod.py`, `bin/tool`); None when pip installs
    nothing from it."""
    base_installed_path: str | None = None
    """Where pip installs the base's entry (differs from `installed_path` across a version
    change of `.dist-info/`); None when missing or not installed."""
    moved: bool = False
    """The entry moved inside the archive (root <-> `.data/purelib|platlib`) but installs to
    the same path: an identical one is "identical (moved)"."""
    loader: NativeRead | None = None
    """A changed or added ELF native's loader tables, kept from the read that hashed it for
    RECORD under `--allow-native-changes` (`nativepaths`), so they are not inflated again."""

    @property
    def content_identical(self) -> bool:
        """True when both sides hold the same bytes (identical, or changed only in mode)."""
        return self.status is Status.IDENTICAL or self.how is How.MODE

    @property
    def mode_change(self) -> ModeChange | None:
        """How the two sides' modes differ, or None when equal or one-sided."""
        if self.base_mode is None or self.patch_mode is None or self.base_mode == self.patch_mode:
            return None
        return ModeChange(self.base_mode, self.patch_mode)


def entry_result_from(values: dict[str, Any]) -> EntryResult:
    """An `EntryResult` from `values`, which names every field (a test holds the hot path to
    that), built without the frozen dataclass's `__init__`: its 21 `object.__setattr__` calls
    cost twice the rest of a result, and a wheel pair yields one per entry (12,000 on torch).
    Equal, hashed and printed like one built by `EntryResult(...)`."""
    result = _new(EntryResult)
    result.__dict__.update(values)
    return result


_new = object.__new__
