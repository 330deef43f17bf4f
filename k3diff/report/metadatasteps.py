"""The "Next steps" fix for A122, core metadata PyPI refuses on upload, chosen by its details.

The usual fix is the field's, where the build reads it; a Metadata-Version PyPI does not take
is the build backend's, so its release is pinned instead. A description that fails only as the
indented ``Description:`` header an old setuptools wrote (six 1.16.0's sdist: every line after
the first indented by 8 spaces, which twine before 6.1 stripped, and twine 6.1+ and PyPI render
as written) needs no edit: a current setuptools writes it as the file's body (setupstop76: it
was told to fix the field where the build reads it).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from k3diff.report.refusedsteps import Style
from k3diff.report.sdiststeps import SDIST_BUILD
from k3diff.report.stepwords import REBUILD
from k3diff.wheel.description import INDENTED_HEADER
from k3diff.wheel.pypirules import PYPI_ONLY

Fix = Callable[[str, str, Style], str]
"""A fix's words from the counts of its findings, the artifact as given and the style."""

_SETUPTOOLS = "pip install -U setuptools"


def refused_fix(details: Sequence[str]) -> Fix:
    """The fix for A122 findings of these `details`: the field's, the rebuild with a current
    setuptools where each says the description is an old setuptools' indented header, or both
    where some do."""
    indented = [INDENTED_HEADER in detail for detail in details]
    fix: Fix
    if indented and all(indented):
        fix = old_setuptools
    else:
        fix = refused_and_old_setuptools if any(indented) else refused_metadata
    fix = _pypi_rules(fix) if any(PYPI_ONLY in detail for detail in details) else fix
    return _backend_version(fix) if any(d.startswith(_VERSION) for d in details) else fix


_VERSION = "metadata-version:"
"""How a detail about the Metadata-Version itself starts (`pypirules`, packaging)."""


def _backend_version(fix: Fix) -> Fix:
    """`fix`, then where a Metadata-Version comes from: the build backend writes it, no field of
    `pyproject.toml` or `setup.cfg` names it (newuser80b: a 2.6 wheel was told only to fix the
    field where the build reads it)."""

    def said(counts: str, artifact: str, code: Style) -> str:
        return (
            f"{fix(counts, artifact, code)}; the Metadata-Version is the build backend's, "
            f"written by no field of {code('pyproject.toml')}: pin a backend release that "
            f"writes 2.5 or older (PyPI takes 1.0 to 2.5) in {code('[build-system]')} "
            f"{code('requires')}, then rebuild"
        )

    return said


def _pypi_rules(fix: Fix) -> Fix:
    """`fix`, then what twine check cannot confirm: a rule of PyPI's own upload (review79a: it
    was told to check with twine check, which passes such metadata)."""

    def said(counts: str, artifact: str, code: Style) -> str:
        return (
            f"{fix(counts, artifact, code)}; twine check does not apply the PyPI upload rules "
            f"the details end with, so audit the rebuilt {_kind(artifact)} again (an artifact "
            "served by another index, which may take a direct URL requirement, can be waived "
            "instead)"
        )

    return said


def refused_metadata(counts: str, artifact: str, code: Style) -> str:
    """A122, of a wheel's METADATA or an sdist's PKG-INFO: the artifact of that kind rebuilt
    (newuser75: attrs 24.2.0's sdist was told `python -m build --wheel`, which writes none)."""
    return (
        f"{counts}: fix the field its detail names where the build reads it "
        f"({code('pyproject.toml')}'s {code('[project]')} table, or {code('setup.cfg')}), "
        f"rebuild ({code(_build(artifact))}) and check with {code('twine check dist/*')} before "
        "uploading"
    )


def old_setuptools(counts: str, artifact: str, code: Style) -> str:
    return (
        f"{counts}: the description is the indented {code('Description:')} header an old "
        "setuptools wrote, which twine 6.1+ and PyPI no longer strip, so the text needs no "
        f"edit: rebuild ({code(_build(artifact))}) with a current setuptools "
        f"({code(_SETUPTOOLS)}: it writes the description unindented, as the file's body) and "
        f"check with {code('twine check dist/*')} before uploading"
    )


def refused_and_old_setuptools(counts: str, artifact: str, code: Style) -> str:
    return (
        f"{refused_metadata(counts, artifact, code)}; the description, the indented "
        f"{code('Description:')} header an old setuptools wrote, needs no edit: rebuild with a "
        f"current setuptools ({code(_SETUPTOOLS)})"
    )


def _kind(artifact: str) -> str:
    return "sdist" if artifact.lower().endswith(".tar.gz") else "wheel"


def _build(artifact: str) -> str:
    return SDIST_BUILD if artifact.lower().endswith(".tar.gz") else REBUILD[0]


def pypi_name_fix(details: Sequence[str]) -> Fix:
    """The fix for A141 findings of these `details`: the `linux_*` repair said only where a
    detail names such a platform tag (newuser80b: MarkupSafe 2.1.5's musllinux wheel, refused
    for its capitals alone, was told how to repair a linux_* wheel)."""
    linux = any(_LINUX_TAG.match(detail) for detail in details)
    return pypi_name if linux or not details else _pypi_name_only


_LINUX_TAG = re.compile(r"platform tag .*'linux_")
"""A detail naming a `linux_*` platform tag (`pypinames.pypi_name_problems`)."""


def pypi_name(counts: str, artifact: str, code: Style) -> str:
    """A141, a wheel file name or platform tag PyPI refuses: built anew, or repaired, where the
    build names the file; or served by another index and waived (hunt80)."""
    return _pypi_name(counts, code, linux=True)


def _pypi_name_only(counts: str, artifact: str, code: Style) -> str:
    return _pypi_name(counts, code, linux=False)


def _pypi_name(counts: str, code: Style, *, linux: bool) -> str:
    repair = (
        f"; a {code('linux_*')} wheel is repaired into a manylinux one "
        f"({code('auditwheel repair FILE')}) in the manylinux image of the tag to promise"
    )
    return (
        f"{counts}: build the wheel anew with a current build backend "
        f"({code('python -m build --wheel')}), which names the file with the normalised "
        f"project name and the version its .dist-info spells{repair if linux else ''}; then "
        "audit the new wheel (pip and twine check take such a name: only the upload refuses "
        "it); a wheel served by another index, which takes the name, can be waived instead"
    )
