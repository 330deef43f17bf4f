"""auditwheel's question, asked by `audit`: does any ELF of a wheel need a newer glibc than its
`manylinux_2_X` tag promises, or any glibc at all under a `musllinux` tag (A115)? Each ELF's
loader tables are read by `k3diff.native.platform` without inflating past them; one that cannot
be read is said (A116, a warning: its platform claim is unchecked, not wrong)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from k3diff.audit.model import AuditCode, AuditFinding
from k3diff.errors import ArchiveError
from k3diff.native.platform import (
    PlatformNeeds,
    PlatformUnknown,
    promised_glibc,
    read_needs_from_stream,
    version_key,
)
from k3diff.wheel.filename import parse_wheel_filename
from k3diff.wheel.kinds import EntryKind, kind_from_path
from k3diff.zip.archive import ZipArchive

_ELF = b"\x7fELF"


@dataclass(frozen=True)
class NativeNeeds:
    """One ELF entry of a wheel and what it needs of the system."""

    entry: str
    """The archive path."""
    needs: PlatformNeeds | None
    """Its loader's demands; None when they could not be read."""


def platform_check(archive: ZipArchive) -> tuple[tuple[NativeNeeds, ...], list[AuditFinding]]:
    """Every ELF entry's needs, and A115/A116 against the filename's platform tags."""
    filename = parse_wheel_filename(str(archive.path))
    platforms = {tag.rsplit("-", 1)[-1] for tag in filename.tags} if filename else set()
    promise = promised_glibc(platforms)
    natives: list[NativeNeeds] = []
    findings: list[AuditFinding] = []
    for entry, needs, problem in _elf_needs(archive):
        natives.append(NativeNeeds(entry, needs))
        if needs is None:
            findings.append(AuditFinding(AuditCode.A116, entry, problem))
        elif promise is not None and needs.glibc is not None:
            if promise == ():
                detail = f"needs GLIBC_{needs.glibc} but the wheel is tagged musllinux"
            elif version_key(needs.glibc) > promise:
                claimed = ".".join(map(str, promise))
                detail = (
                    f"needs GLIBC_{needs.glibc}, newer than the glibc {claimed} its tag promises"
                )
            else:
                continue
            findings.append(AuditFinding(AuditCode.A115, entry, detail))
    return tuple(natives), findings


def _elf_needs(archive: ZipArchive) -> Iterator[tuple[str, PlatformNeeds | None, str]]:
    for entry in archive.entries:
        if (
            entry.is_dir
            or entry.size < 64
            or kind_from_path(entry.name) not in (EntryKind.NATIVE, None)
        ):
            continue
        try:
            if archive.head(entry, 4) != _ELF:
                continue
            yield entry.name, read_needs_from_stream(archive.content_chunks(entry), entry.size), ""
        except (PlatformUnknown, ArchiveError) as exc:
            yield entry.name, None, f"loader tables unreadable, platform needs unchecked: {exc}"
