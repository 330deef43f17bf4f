"""Whether the backend that builds the project reads ``[project]`` at all (`builtversion`).

A backend older than its PEP 621 support ignores the table: setuptools before 61.0.0 builds
from ``setup.cfg``/``setup.py``, poetry-core before 2.0.0 from ``[tool.poetry]``, flit_core
before 3.2.0 from ``[tool.flit.metadata]``. Built for real (review74g): ``requires =
["poetry-core>=1.0.0,<2"]`` (poetry-core 1.9.1) and ``["setuptools<61"]`` (60.10.0) wrote
``[tool.poetry]``'s and ``setup.cfg``'s 2.4.0 beside a ``[project] version = "2.3.0"``; the
2.3.0 wheel, not the build, passed. So where ``[build-system] requires`` admits only such a
version (none of the first that reads the table, a later one, or one the pin names or the
next release after it), ``[project]`` is not read.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

_FIRST_READING = {
    "setuptools": ("setuptools", "61.0.0"),
    "setuptools.build_meta": ("setuptools", "61.0.0"),
    "setuptools.build_meta:__legacy__": ("setuptools", "61.0.0"),
    "poetry.core.masonry.api": ("poetry-core", "2.0.0"),
    "flit_core.buildapi": ("flit-core", "3.2.0"),
}
"""Each backend's distribution, and its first release that reads ``[project]``."""
_LATER = "99999"
"""A release later than any of theirs: a specifier admitting it admits new releases."""


def reads_project_table(backend: str, requires: object) -> bool:
    """False where `requires` (``[build-system] requires``) pins `backend`'s distribution
    below its release that first reads ``[project]``; True otherwise (another backend, its
    distribution not pinned, no list)."""
    if backend not in _FIRST_READING or not isinstance(requires, list):
        return True
    name, first = _FIRST_READING[backend]
    for text in requires:
        try:
            requirement = Requirement(text)
        except (InvalidRequirement, TypeError):
            continue
        specifier = requirement.specifier
        if canonicalize_name(requirement.name) != name or not len(specifier):
            continue
        probes = {first, _LATER, *_near(spec.version for spec in specifier)}
        reading = [v for v in probes if Version(v) >= Version(first)]
        try:
            if not any(specifier.contains(v, prereleases=True) for v in reading):
                return False
        except ValueError:  # a number over int()'s 4,300 digits: no release pip could find
            continue
    return True


def _near(stated: Iterable[str]) -> Iterator[str]:
    """Each version a specifier states (``2.*`` as ``2``), and its next release in its last
    place: ``==2.0.1`` or ``>2.0.5,<2.1`` admits a release that reads ``[project]``."""
    for text in stated:
        try:
            version = Version(text.removesuffix(".*"))
        except ValueError:  # InvalidVersion, or a number over int()'s 4,300 digits
            continue
        *head, last = version.release
        yield str(version)
        yield ".".join(str(part) for part in (*head, last + 1))
