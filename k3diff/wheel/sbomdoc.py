"""The SBOM documents of a wheel, read and compared: what `k3diff.wheel.sbom` hands over once a
wheel is seen to ship one (most do not, and a run that meets none never imports this module nor
builds its three dataclasses).

CycloneDX JSON (`bomFormat: CycloneDX`, `components`, nested components included) and SPDX JSON
(`spdxVersion`, `packages`) are read with the strict JSON decoder every k3diff input goes
through (`k3diff.bounded.loads`: a repeated key, nesting over 100 levels or an integer too long to
convert makes the document unreadable); each component is (name, version, purl). A document
that is neither, or does not parse, is said, never guessed.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from k3diff.bounded import loads
from k3diff.errors import InputError
from k3diff.zip.archive import ZipArchive
from k3diff.zip.directory import ZipEntry

SBOM_LIMIT = 16 << 20
"""Largest SBOM document read."""
COMPONENT_LIMIT = 100_000
"""Most components kept from one document."""


@dataclass(frozen=True)
class Component:
    """One component an SBOM lists."""

    name: str
    """Component (package) name."""
    version: str | None
    """Its version, None when the document gives none."""
    purl: str | None = None
    """Its package URL, when given."""


@dataclass(frozen=True)
class Sbom:
    """One SBOM document of a wheel."""

    entry: str
    """Archive path (`.dist-info/sboms/NAME`)."""
    format: str
    """cyclonedx, spdx, or unknown."""
    components: tuple[Component, ...]
    """Its components, sorted by name and version."""
    error: str | None = None
    """Why it could not be read, when it could not."""


@dataclass(frozen=True)
class ComponentChange:
    """A component added, removed or changed in version, base -> patch."""

    name: str
    change: str
    """added, removed or changed."""
    base: str | None
    """Base version(s), comma-separated."""
    patch: str | None
    """Patch version(s), comma-separated."""


@dataclass(frozen=True)
class SbomReport:
    """The SBOMs (`.dist-info/sboms/`) of both wheels and what changed between them."""

    base: tuple[Sbom, ...]
    """The base's documents."""
    patch: tuple[Sbom, ...]
    """The patch's documents."""
    changes: tuple[ComponentChange, ...]
    """Components added, removed or changed in version."""


def read_documents(archive: ZipArchive, entries: Iterable[ZipEntry]) -> tuple[Sbom, ...]:
    """Each of `entries` (the files under `DIST_INFO/sboms/`) read as an SBOM, in path order."""
    found = []
    for entry in sorted(entries, key=lambda e: e.name):
        try:
            document = loads(archive.read_content(entry, SBOM_LIMIT), entry.name)
        except (InputError, UnicodeDecodeError, ValueError, RecursionError) as exc:
            found.append(Sbom(entry.name, "unknown", (), f"unreadable: {exc}"))
            continue
        found.append(_parse(entry.name, document))
    return tuple(found)


def _parse(entry: str, document: Any) -> Sbom:
    if isinstance(document, Mapping) and document.get("bomFormat") == "CycloneDX":
        return Sbom(entry, "cyclonedx", _sorted(_cyclonedx(document.get("components"))))
    if isinstance(document, Mapping) and "spdxVersion" in document:
        packages = document.get("packages")
        items = packages if isinstance(packages, list) else []
        return Sbom(
            entry,
            "spdx",
            _sorted(
                Component(str(p["name"]), _text(p.get("versionInfo")), _spdx_purl(p))
                for p in items[:COMPONENT_LIMIT]
                if isinstance(p, Mapping) and "name" in p
            ),
        )
    return Sbom(entry, "unknown", (), "neither CycloneDX nor SPDX JSON")


def _cyclonedx(components: object, depth: int = 0) -> Iterator[Component]:
    if not isinstance(components, list) or depth > 32:
        return
    for item in components[:COMPONENT_LIMIT]:
        if isinstance(item, Mapping) and "name" in item:
            yield Component(str(item["name"]), _text(item.get("version")), _text(item.get("purl")))
            yield from _cyclonedx(item.get("components"), depth + 1)


def _spdx_purl(package: Mapping[str, Any]) -> str | None:
    for ref in package.get("externalRefs") or []:
        if isinstance(ref, Mapping) and ref.get("referenceType") == "purl":
            return _text(ref.get("referenceLocator"))
    return None


def _text(value: object) -> str | None:
    return None if value is None else str(value)


def _sorted(components: Iterator[Component] | Sequence[Component]) -> tuple[Component, ...]:
    return tuple(sorted(set(components), key=lambda c: (c.name, c.version or "", c.purl or "")))


def diff_components(base: Sequence[Sbom], patch: Sequence[Sbom]) -> tuple[ComponentChange, ...]:
    """Components by name across all documents of each side: added, removed, version changed."""
    old, new = _versions(base), _versions(patch)
    changes = []
    for name in sorted(old.keys() | new.keys()):
        before, after = old.get(name), new.get(name)
        if before == after:
            continue
        change = "added" if before is None else "removed" if after is None else "changed"
        changes.append(ComponentChange(name, change, _join(before), _join(after)))
    return tuple(changes)


def _versions(sboms: Sequence[Sbom]) -> dict[str, frozenset[str]]:
    versions: dict[str, set[str]] = {}
    for sbom in sboms:
        for component in sbom.components:
            versions.setdefault(component.name, set()).add(component.version or "?")
    return {name: frozenset(values) for name, values in versions.items()}


def _join(values: frozenset[str] | None) -> str | None:
    return None if values is None else ", ".join(sorted(values))
