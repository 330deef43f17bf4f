"""Whether the backend that builds the project reads ``[project]`` at all (`builtversion`).

A backend older than its PEP 621 support ignores the table: setuptools before 61.0.0 builds
from ``setup.cfg``/``setup.py``, poetry-core before 2.0.0 from ``[tool.poetry]``, flit_core
before 3.2.0 from ``[tool.flit.metadata]``. Built for real (review74g): ``requires =
["poetry-core>=1.0.0,<2"]`` (poetry-core 1.9.1) and ``["setuptools<61"]`` (60.10.0) wrote
``[tool.poetry]``'s and ``setup.cfg``'s 2.4.0 beside a ``[project] version = "2.3.0"``; the
2.3.0 wheel, not the build, passed. So where ``[build-system] requires`` admits only such a
version (neither the first that reads the table nor any later one), ``[project]`` is not read.
"""

from __future__ import annotations

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

_FIRST_READING = {
    "setuptools": "61.0.0",
    "poetry-core": "2.0.0",
    "flit-core": "3.2.0",
}
"""The first release of each backend's distribution that reads ``[project]``."""
_LATER = "99999"
"""A release later than any of theirs: a specifier admitting it admits new releases."""


def reads_project_table(requires: object) -> bool:
    """False where `requires` (``[build-system] requires``) pins a backend below the release
    that first reads ``[project]``; True otherwise (none named, none pinned, no list)."""
    if not isinstance(requires, list):
        return True
    for text in requires:
        try:
            requirement = Requirement(text)
        except (InvalidRequirement, TypeError):
            continue
        first = _FIRST_READING.get(canonicalize_name(requirement.name))
        specifier = requirement.specifier
        if first is None or not len(specifier):
            continue
        admitted = (specifier.contains(v, prereleases=True) for v in (first, _LATER))
        if not any(admitted):
            return False
    return True
