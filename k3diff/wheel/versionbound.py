"""Extensions no Python the wheel installs on imports (W629).

CPython's import system finds an extension module `NAME` in a directory by the suffixes of
`importlib.machinery.EXTENSION_SUFFIXES`, on CPython 3.11 for x86-64 Linux
`.cpython-311-x86_64-linux-gnu.so`, `.abi3.so`, `.so` (on Windows `.cp311-win_amd64.pyd`,
`.pyd`). A file named for one version (`_C.cpython-312-x86_64-linux-gnu.so`,
`_C.cp312-win_amd64.pyd`) is found by that version alone. pip installs a wheel by its tags, so
a module whose only files are named for some versions is missing on every other version the
tags admit: `import pkg._C` fails there, though the wheel installed. A `cp311-cp311` wheel
built by a 3.12 interpreter ships `_C.cpython-312-….so` and imports nowhere pip installs it; a
`py3-none-PLATFORM` wheel with `_C.cpython-311-….so` imports on 3.11 alone. A module with a
file of no version (`_C.abi3.so`, `_C.so`, `_C.pyd`) is found on every version, and an abi3
wheel's version-bound names are A123/W625's (`k3diff.wheel.abi3`).

Tags open-ended in version are judged alike: a `py3-none-PLATFORM` wheel (or `py38-none-…`)
installs on every Python 3 (from 3.8 on), so `_C.cpython-311-….so` alone imports on 3.11 and
fails on 3.0-3.10 and 3.12 and later, which pip installs it on as readily: `pip install` on 3.13
puts a wheel there that does not import (tags66; before, such wheels were not judged). A wheel
whose tags k3diff cannot read at all (no wheel filename, no `Tag:` line) is not judged.

The Pythons are the tags' narrowed by the wheel's own `Requires-Python` (left66): pip installs
a wheel only on a Python its METADATA's specifier admits (`check_requires_python`), so a
`py3-none-manylinux…` wheel holding `_C.cpython-311-….so` alone with `Requires-Python:
==3.11.*` installs on 3.11 alone, and imports there. A specifier pip cannot parse narrows
nothing (pip warns and installs the wheel). The field is the one `wheels` and `audit` read for
the wheel's identity, passed in (no second read of METADATA), and parsed only for a wheel with
a version-bound module.

The version is read from the name (`cpython-3XY`, ABI flags such as `t` and `d` aside; the
platform part is A125's concern); the module, from the installed path up to the file name's
first dot, in site-packages (purelib and platlib alike).
"""

from __future__ import annotations

import operator
from collections.abc import Iterable
from itertools import compress, repeat

from k3diff.lazyre import lazy
from k3diff.wheel.filename import parse_wheel_filename
from k3diff.wheel.installed import InstalledFile
from k3diff.wheel.requirespython import LAST_MINOR, python_admits
from k3diff.wheel.targets import ANY, TargetPythons, Version, version_number

_BOUND = lazy(r"\.(?:cpython-3(\d+)[a-z]*-[^/.]+|cp3(\d+)-win[^/.]*)\.(?:so|pyd)$")
_EXTENSION = (".so", ".pyd")
_MODULES = ("purelib", "platlib")
_PATH = operator.itemgetter(2)


def version_bound(
    wheel: str,
    joined: str,
    files: Iterable[InstalledFile],
    targets: TargetPythons,
    requires_python: str | None = None,
) -> list[tuple[str, str]]:
    """W629's extensions of the wheel named `wheel`, looked for only where a name holds a
    version's suffix (`joined`: its entry names joined by NULs) and the wheel is not abi3 (whose
    such names are A123/W625's); `requires_python`: its METADATA's field, as read for its
    identity."""
    if ".cpython-3" not in joined and ".cp3" not in joined:
        return []  # nearly every wheel but the native ones
    filename = parse_wheel_filename(wheel)
    if filename is not None and any("-abi3-" in tag for tag in filename.tags):
        return []
    return unimportable(files, targets, requires_python)


def unimportable(
    files: Iterable[InstalledFile], targets: TargetPythons, requires_python: str | None = None
) -> list[tuple[str, str]]:
    """(entry, why) for each extension file of a module whose files are all named for
    CPython versions, where the wheel's tags (narrowed by its `requires_python`) admit a
    version none of them is named for."""
    modules: dict[str, dict[Version, list[InstalledFile]]] = {}
    generic: set[str] = set()
    files = list(files)  # the extensions picked in C: a wheel of twelve thousand has a few
    for file in compress(files, map(str.endswith, map(_PATH, files), repeat(_EXTENSION))):
        if file.scheme not in _MODULES:
            continue
        head, _, name = file.path.rpartition("/")
        module = f"{head}/{name.partition('.')[0]}"
        found = _BOUND.search(name)
        if found is None:
            generic.add(module)
            continue
        version = (3, version_number(found.group(1) or found.group(2)))
        modules.setdefault(module, {}).setdefault(version, []).append(file)
    problems: list[tuple[str, str]] = []
    if all(module in generic for module in modules):
        return problems
    targets, said = installs_on(targets, requires_python)
    for module, versions in modules.items():
        if module in generic:
            continue
        missing = _missing(set(versions), targets)
        if missing is None:
            continue
        named = ", ".join(f"{v[0]}.{v[1]}" for v in sorted(versions))
        dotted = module.partition("/")[2].replace("/", ".")
        for version_files in versions.values():
            for file in version_files:
                problems.append(
                    (
                        file.entry,
                        f"named for CPython {named} alone, while its tags{said} install it "
                        f"on {_described(targets)}: on {missing} 'import {dotted}' finds no file "
                        "(no version-free .abi3.so or .so beside it)",
                    )
                )
    return problems


def installs_on(targets: TargetPythons, requires_python: str | None) -> tuple[TargetPythons, str]:
    """The Pythons pip installs the wheel on: its tags' (`targets`) narrowed by its
    `requires_python`; and, where that narrowed them, ` and Requires-Python SPEC` for the
    finding. Minor versions up to LAST_MINOR are judged one by one; a run of them reaching it
    from tags open in version stays open (`3.12 and later`)."""
    if not requires_python or targets is ANY:
        return targets, ""
    admits = python_admits(requires_python)
    minors = {m for m in range(LAST_MINOR + 1) if targets.admits((3, m)) and admits(m)}
    open_from = targets.open_from
    if open_from is not None and open_from[1] <= LAST_MINOR:
        start = LAST_MINOR + 1
        while start - 1 in minors:
            start -= 1
        open_from = (3, start) if start <= LAST_MINOR else None
    exact = {(3, m) for m in minors if open_from is None or m < open_from[1]}
    exact |= {v for v in targets.exact if v[1] > LAST_MINOR and admits(v[1])}
    narrowed = TargetPythons(frozenset(exact), open_from, targets.windows, targets.elsewhere)
    if narrowed == targets:
        return targets, ""
    return narrowed, f" and Requires-Python {requires_python[:80]!r}"


def _missing(named: set[Version], targets: TargetPythons) -> str | None:
    """The versions the tags admit that no file is named for, said (`3.0-3.10, 3.12 and
    later` for `py3`); None when there is none, or the tags could not be read (`ANY`)."""
    if targets is ANY:
        return None
    start = targets.open_from
    missing = _spans([v for v in sorted(targets.exact - named) if start is None or v < start])
    if targets.open_from is not None:
        low = targets.open_from[1]
        for _, minor in sorted(v for v in named if v >= targets.open_from):
            if minor > low:
                missing.append(_version((3, low), (3, minor - 1)))
            low = max(low, minor + 1)
        missing.append(f"{_version((3, low))} and later")
    return ", ".join(missing) if missing else None


def _described(targets: TargetPythons) -> str:
    """The versions `targets` admit (`TargetPythons.describe`), a run of three or more as one
    span (`3.0-3.11`: a Requires-Python below 3.12 narrows `py3` to twelve)."""
    parts = _spans(sorted(targets.exact))
    if targets.open_from is not None:
        parts.append(f"{_version(targets.open_from)} and later")
    return ", ".join(parts) or "none"


def _spans(versions: list[Version]) -> list[str]:
    """Sorted versions said one by one, a run of three or more consecutive ones as a span."""
    runs: list[list[Version]] = []
    for version in versions:
        if runs and runs[-1][-1] == (version[0], version[1] - 1):
            runs[-1].append(version)
        else:
            runs.append([version])
    said = []
    for run in runs:
        said += [_version(run[0], run[-1])] if len(run) > 2 else [_version(v) for v in run]
    return said


def _version(first: Version, last: Version | None = None) -> str:
    """`3.11`, or `3.0-3.10` from `first` to `last`."""
    said = f"{first[0]}.{first[1]}"
    return said if last is None or last == first else f"{said}-{last[0]}.{last[1]}"
