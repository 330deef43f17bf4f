"""The steps for an sdist's failing findings (A002, A129-A136): `report.auditsteps` says the
ones no waiver takes first (the archive pip reads otherwise, or its members), then the layout
and the name, as it does a wheel's.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

from k3diff import shellwords
from k3diff.report.refusedsteps import Style
from k3diff.wheel.codes import Code

SDIST_BUILD = "python -m build --sdist"
"""How an sdist is built anew from its source tree (the project's build backend)."""
AUDITED_SDIST = "audit the new sdist"
LAYOUT = frozenset({Code.A133, Code.A134, Code.A135, Code.A137})
"""What a current backend writes from one metadata: the top directory, PKG-INFO, the file name."""


def unsound(counts: str, artifact: str, code: Style) -> str:
    """A002: the file copied again, its hash checked, or built anew."""
    return (
        f"{counts}: no waiver accepts it (the file is not the gzip-compressed tar its build "
        "wrote: cut short by a download or copy, damaged, or with bytes past its end that "
        "another tool may read): copy it again from where it was built, check that "
        f"{code('sha256sum ' + shellwords.path(artifact))} gives the hash the build or the "
        f"index lists; where a fresh copy fails alike, rebuild it ({code(SDIST_BUILD)}), then "
        f"{AUDITED_SDIST}"
    )


def members(counts: str, artifact: str, code: Style) -> str:
    """A129-A132: rebuilt from the source tree, the members named left out."""
    return (
        f"{counts}: no waiver accepts it (members pip or PyPI refuses, or that land outside "
        "the tree pip unpacks, or names extraction writes twice): rebuild the sdist from its "
        f"source tree ({code(SDIST_BUILD)}), never by editing the archive, with the members "
        "named (a link, a device or FIFO, a path with '..') removed from the tree or from the "
        f"files the build takes ({code('MANIFEST.in')}, the backend's include and exclude "
        f"lists), or renamed apart (names alike but for case), then {AUDITED_SDIST}"
    )


def layout(counts: str, artifact: str, code: Style) -> str:
    """A133-A135, A137: built anew by a current backend, which names the file and its top directory
    from the metadata it writes to PKG-INFO."""
    return (
        f"{counts}: the sdist is not laid out as PEP 625 and PyPI ask (one top directory "
        "NAME-VERSION/ holding PKG-INFO, the file named for the same name and version): "
        f"rebuild it with a current build backend ({code(SDIST_BUILD)}: setuptools 69.3 or "
        "later, hatchling, flit-core, pdm-backend), which writes all three from the project's "
        f"metadata, rather than renaming or repacking the file, then {AUDITED_SDIST}"
    )


def layout_fix(found: Collection[str]) -> Callable[[str, str, Style], str]:
    """The fix for the `LAYOUT` codes `found`: `layout` where A133-A135 are among them,
    `unnormalised` where A137 is the only one (polish76: a misnamed file alone was told it was
    "not laid out as PEP 625 and PyPI ask (one top directory NAME-VERSION/…)")."""
    laid_out = {code.name for code in LAYOUT - {Code.A137}}
    return layout if laid_out & set(found) else unnormalised


def unnormalised(counts: str, artifact: str, code: Style) -> str:
    """A137 alone: the file name, which renaming does not fix for good."""
    return (
        f"{counts}: the sdist's file name is not PEP 625's spelling of its name and version (the "
        "detail names the one to use): renaming the file is not enough (a renamed file keeps the "
        "top directory the old build wrote, and that backend writes the old name again at the "
        f"next release): rebuild it with a current build backend ({code(SDIST_BUILD)}: setuptools "
        "69.3 or later, hatchling, flit-core, pdm-backend), which names the file from the "
        f"project's metadata, then {AUDITED_SDIST}"
    )


def other_archive(counts: str, artifact: str, code: Style) -> str:
    """A136: the source published as a `.tar.gz` sdist, or the archive kept out."""
    return (
        f"{counts}: PyPI takes a source distribution only as a .tar.gz: build one "
        f"({code(SDIST_BUILD)}) and publish it instead, or keep this archive out of the release "
        "directory, then audit the directory again"
    )
