"""What a wheel's filename claims (PEP 427: NAME-VERSION[-BUILD]-PY-ABI-PLATFORM.whl), checked
against what its `.dist-info/` says, and whether base and patch are the same distribution.

A filename that is not a wheel filename (`base.whl`) claims nothing and is not checked. Names
compare PEP 503-normalised; versions compare with `-` and `_` taken as the same (wheel builders
escape one as the other) and case ignored; tags compare as the expanded set (`py2.py3` is two).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import PurePath
from typing import Protocol

from k3diff.wheel.codes import Code
from k3diff.wheel.metadata import WheelIdentity


class NamedWheel(Protocol):
    """A wheel as the filename checks need it: where it is and what it says about itself."""

    @property
    def path(self) -> str: ...
    @property
    def identity(self) -> WheelIdentity: ...


@dataclass(frozen=True)
class WheelFilename:
    """The parts of a PEP 427 wheel filename."""

    name: str
    version: str
    tags: frozenset[str]


def parse_wheel_filename(path: str) -> WheelFilename | None:
    """The filename's claims, or None when it is not a wheel filename."""
    filename = PurePath(path).name
    if not filename.endswith(".whl"):
        return None
    parts = filename[: -len(".whl")].split("-")
    if len(parts) not in (5, 6) or not all(parts):
        return None
    name, version, python, abi, platform = parts[0], parts[1], *parts[-3:]
    tags = frozenset(
        f"{p}-{a}-{pl}"
        for p in python.split(".")
        for a in abi.split(".")
        for pl in platform.split(".")
    )
    return WheelFilename(name, version, tags)


def normalized_name(name: str) -> str:
    """PEP 503 normalisation: runs of `-`, `_`, `.` become one `-`, lower case."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _version_key(version: str) -> str:
    return version.replace("-", "_").lower()


def contradictions(path: str, identity: WheelIdentity) -> Iterator[tuple[str, str, str]]:
    """(field, filename value, metadata value) for each field the filename contradicts."""
    claimed = parse_wheel_filename(path)
    if claimed is None or identity.dist_info is None:
        return
    if identity.name is not None and normalized_name(claimed.name) != normalized_name(
        identity.name
    ):
        yield "name", claimed.name, f"{identity.name} (METADATA)"
    if identity.version is not None and _version_key(claimed.version) != _version_key(
        identity.version
    ):
        yield "version", claimed.version, f"{identity.version} (METADATA)"
    if identity.tags and claimed.tags != frozenset(identity.tags):
        shown = ", ".join(sorted(claimed.tags))
        yield "tags", shown, f"{', '.join(sorted(identity.tags))} (WHEEL)"


def different_distributions(base: WheelIdentity, patch: WheelIdentity) -> bool:
    """True when both wheels name their project and the names differ once normalised."""
    if base.name is None or patch.name is None:
        return False
    return normalized_name(base.name) != normalized_name(patch.name)


def filename_findings(base: NamedWheel, patch: NamedWheel) -> Iterator[tuple[Code, str, str]]:
    """W605 for each field a filename contradicts, W606 when the distributions differ."""
    for label, side in (("base", base), ("patch", patch)):
        filename = PurePath(side.path).name
        for field, claimed, actual in contradictions(side.path, side.identity):
            yield (
                Code.W605,
                "",
                f"{label} wheel {filename}: {field} is {claimed} in the filename, {actual}",
            )
    if different_distributions(base.identity, patch.identity):
        yield (
            Code.W606,
            "",
            f"base is {base.identity.name}, patch is {patch.identity.name}",
        )
