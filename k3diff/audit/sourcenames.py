"""Which artifacts `audit` reads as source distributions, by the file name alone (cheap: the
reader, `audit.sdist`, is imported only for a run that has one).

A file named `*.tar.gz` (any case, as pip matches it) is read as an sdist. The other source
archives pip builds from (`.zip`, `.tar`, `.tgz`, `.tar.bz2`, `.tar.xz`, ...) are not read:
PyPI takes sdists only as `.tar.gz` (PEP 625), so one in a release is A136, hashed
only.
"""

from __future__ import annotations

from pathlib import Path

from k3diff.wheel.codes import Code, Finding

SDIST_SUFFIX = ".tar.gz"
OTHER_SOURCE_SUFFIXES = (
    ".zip",
    ".tar",
    ".tgz",
    ".tar.bz2",
    ".tbz",
    ".tar.xz",
    ".txz",
    ".tlz",
    ".tar.lz",
    ".tar.lzma",
)
"""The archive suffixes pip builds a source distribution from, `.tar.gz` aside
(`pip._internal.utils.filetypes`)."""


def is_sdist(path: Path) -> bool:
    """Whether `audit` reads the file as an sdist: its name ends in `.tar.gz` (any case, as pip
    matches it)."""
    return path.name.lower().endswith(SDIST_SUFFIX)


def other_source_archive(path: Path) -> Finding | None:
    """A136 for a source archive pip builds from but PyPI refuses, by its name alone."""
    name = path.name.lower()
    suffix = next((s for s in OTHER_SOURCE_SUFFIXES if name.endswith(s)), None)
    if suffix is None:
        return None
    return Finding(
        Code.A136,
        "",
        f"a {suffix} source archive: pip builds from it, PyPI takes sdists only as .tar.gz "
        "(PEP 625), and k3diff does not read it (its members are unchecked)",
    )
