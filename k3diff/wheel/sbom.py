"""Software bills of materials a wheel ships (PEP 770: `NAME.dist-info/sboms/*`), read and
compared base -> patch.

CycloneDX JSON (`bomFormat: CycloneDX`, `components`, nested components included) and SPDX JSON
(`spdxVersion`, `packages`) are read with the strict JSON decoder every k3diff input goes
through (`k3diff.bounded.loads`: a repeated key, nesting over 100 levels or an integer too long to
convert makes the document unreadable); each component is (name, version, purl). A document
that is neither, or does not parse, is said, never guessed.

This module is the cheap front every `wheels` run imports: it finds the documents, and
`k3diff.wheel.sbomdoc` (their model and readers) is imported only when there is one.
"""

from __future__ import annotations

import operator
from collections.abc import Iterator, Sequence
from itertools import compress, repeat
from typing import TYPE_CHECKING

from k3diff.wheel.codes import Code, Finding
from k3diff.zip.archive import ZipArchive

if TYPE_CHECKING:  # built only for a wheel that ships an SBOM
    from k3diff.wheel.sbomdoc import ComponentChange, Sbom


def read_sboms(archive: ZipArchive, dist_info: str | None) -> tuple[Sbom, ...]:
    """Every document under `DIST_INFO/sboms/`, in path order."""
    if dist_info is None:
        return ()
    prefix = f"{dist_info}/sboms/"
    names = map(operator.itemgetter(0), archive.entries)  # C-level: no Python step per entry
    found_here = compress(archive.entries, map(str.startswith, names, repeat(prefix)))
    under = [e for e in found_here if not e.is_dir]
    if not under:
        return ()
    from k3diff.wheel.sbomdoc import read_documents

    return read_documents(archive, under)


def diff_components(base: Sequence[Sbom], patch: Sequence[Sbom]) -> tuple[ComponentChange, ...]:
    """Components by name across all documents of each side: added, removed, version changed."""
    from k3diff.wheel.sbomdoc import diff_components as diff

    return diff(base, patch)


def sbom_findings(
    base: Sequence[Sbom], patch: Sequence[Sbom], changes: Sequence[ComponentChange]
) -> Iterator[Finding]:
    """W714 per component change, W715 per unreadable patch SBOM (both informational)."""
    where = patch[0].entry if patch else (base[0].entry if base else "")
    for change in changes:
        versions = {
            "added": f"{change.patch}",
            "removed": f"{change.base}",
            "changed": f"{change.base} -> {change.patch}",
        }[change.change]
        yield Finding(Code.W714, where, f"component {change.change}: {change.name} {versions}")
    for sbom in patch:
        if sbom.error is not None:
            yield Finding(Code.W715, sbom.entry, sbom.error)
