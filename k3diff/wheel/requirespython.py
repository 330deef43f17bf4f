"""Which Python 3 versions a wheel's `Requires-Python` admits, as pip holds a wheel to it
(`check_requires_python`: the running interpreter's X.Y.Z against the specifier), by minor
version: W630 (`k3diff.wheel.systems`) counts a base's systems by it, W629
(`k3diff.wheel.versionbound`) the Pythons a version-bound extension must import on.

A minor version is admitted when one of its releases is: its first (3.Y.0), a late one
(3.Y.99), and either side of each micro release the specifier itself names (`>=3.11.2`:
3.11.1, 3.11.2, 3.11.3), so that a bound inside a minor version is not mistaken for the whole
of it. A specifier packaging cannot read admits every version (pip warns and installs the
wheel); packaging is imported only when there is a specifier to read.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

LATE_MICRO = 99
"""A micro release past any a minor version has had."""
LAST_MINOR = 99
"""The last minor version judged one by one: past it, the Pythons a wheel installs on are
judged as its tags say (no system has one)."""


def python_admits(requires_python: str | None) -> Callable[[int], bool]:
    """Whether `requires_python` admits CPython 3.Y, by minor version Y."""
    admits = _micro_admits(requires_python)
    if admits is None:
        return lambda minor: True
    contains, named = admits
    # Once per minor version: a pair's systems are many, each asks of its own.
    return cache(
        lambda minor: any(contains(minor, m) for m in {0, LATE_MICRO, *named.get(minor, ())})
    )


def python_lost(base: str | None, patch: str | None) -> Callable[[int], bool]:
    """Whether some release of CPython 3.Y the `base` specifier admits is one the `patch`'s
    does not (`>=3.9` → `>=3.9.1`: 3.9, for 3.9.0), by minor version Y: each release either
    side's clauses name is weighed, with the first and a late one."""
    patch_admits = _micro_admits(patch)
    if patch_admits is None:
        return lambda minor: False
    base_admits = _micro_admits(base) or (lambda minor, micro: True, {})
    (base_contains, base_named), (patch_contains, patch_named) = base_admits, patch_admits

    def lost(minor: int) -> bool:
        micros = {0, LATE_MICRO, *base_named.get(minor, ()), *patch_named.get(minor, ())}
        return any(base_contains(minor, m) and not patch_contains(minor, m) for m in micros)

    return cache(lost)  # once per minor version, as `python_admits`


def _micro_admits(
    requires_python: str | None,
) -> tuple[Callable[[int, int], bool], dict[int, set[int]]] | None:
    """Whether `requires_python` admits CPython 3.Y.Z, and the micro releases its clauses
    name (either side of each) by minor; None where it admits every version (none, or one
    packaging cannot read: pip 26 warns and installs the wheel)."""
    if not requires_python:
        return None
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    from packaging.version import InvalidVersion, Version

    try:
        specifier = SpecifierSet(requires_python)
    except InvalidSpecifier:
        return None
    named: dict[int, set[int]] = {}
    for clause in specifier:
        try:
            release = Version(clause.version.removesuffix(".*")).release
        except InvalidVersion:  # `===` takes any string
            continue
        if len(release) >= 3 and release[0] == 3:
            named.setdefault(release[1], set()).update(
                range(max(0, release[2] - 1), release[2] + 2)
            )
    return (lambda minor, micro: specifier.contains(f"3.{minor}.{micro}")), named


@cache
def open_from(requires_python: str, horizon: int) -> int:
    """The CPython minor version from which on the specifier admits every one (`>=3.25`:
    3.25; `!=3.25.*`: 3.26) or none (`<3.25`: 3.25), at least `horizon`: the one that stands
    for every later version, so that `+` in W629's and W630's findings is true (left67: W630
    judged up to 3.20 alone, and said `3.12+` under `<3.25`). Once per specifier: a pair's
    wheels mostly share theirs."""
    admits = python_admits(requires_python)
    admitted = [m for m in range(horizon, LAST_MINOR + 1) if admits(m)]
    if not admitted:
        return horizon
    if admitted[-1] < LAST_MINOR:
        return admitted[-1] + 1
    start = LAST_MINOR
    while start - 1 in admitted:
        start -= 1
    return start
