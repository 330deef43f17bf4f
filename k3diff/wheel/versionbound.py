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
whose tags k3diff cannot read at all (no wheel filename, no `Tag:` line) is not judged, nor a
Python the wheel's Requires-Python excludes (pip refuses the wheel there; review66b).

The version is read from the name (`cpython-3XY`, ABI flags such as `t` and `d` aside; the
platform part is A125's concern); the module, from the installed path up to the file name's
first dot, in site-packages (purelib and platlib alike).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from email.parser import HeaderParser

from k3diff.lazyre import lazy
from k3diff.wheel.filename import parse_wheel_filename
from k3diff.wheel.installed import InstalledFile
from k3diff.wheel.targets import ANY, TargetPythons, Version, version_number

_BOUND = lazy(r"\.(?:cpython-3(\d+)[a-z]*-[^/.]+|cp3(\d+)-win[^/.]*)\.(?:so|pyd)$")
_EXTENSION = (".so", ".pyd")
_LAST = 99
"""Python 3.99: an open-ended tag's versions are judged up to it, which stands for every later."""
_MODULES = ("purelib", "platlib")


def version_bound(
    wheel: str,
    joined: str,
    files: Iterable[InstalledFile],
    targets: TargetPythons,
    metadata: Callable[[], str | None] = lambda: None,
) -> list[tuple[str, str]]:
    """W629's extensions of the wheel named `wheel`, looked for only where a name holds a
    version's suffix (`joined`: its entry names joined by NULs) and the wheel is not abi3 (whose
    such names are A123/W625's); `metadata` reads its METADATA, whose Requires-Python bounds the
    versions pip installs it on."""
    if ".cpython-3" not in joined and ".cp3" not in joined:
        return []  # nearly every wheel but the native ones
    filename = parse_wheel_filename(wheel)
    if filename is not None and any("-abi3-" in tag for tag in filename.tags):
        return []
    return unimportable(files, targets, _requires_python(metadata()))


def _requires_python(metadata: str | None) -> Callable[[Version], bool]:
    """Whether the METADATA's Requires-Python admits a version (its first or a late micro
    release: pip refuses the wheel on any other); one absent or unreadable admits every one."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    value = HeaderParser().parsestr(metadata or "", headersonly=True).get("Requires-Python")
    try:
        specifier = SpecifierSet(str(value or ""))
    except InvalidSpecifier:
        specifier = SpecifierSet()
    return lambda v: any(specifier.contains(f"{v[0]}.{v[1]}.{micro}") for micro in (0, 99))


def unimportable(
    files: Iterable[InstalledFile],
    targets: TargetPythons,
    admitted: Callable[[Version], bool] = lambda _: True,
) -> list[tuple[str, str]]:
    """(entry, why) for each extension file of a module whose files are all named for
    CPython versions, where the wheel's tags admit a version none of them is named for (and
    its Requires-Python, `admitted`, does too)."""
    modules: dict[str, dict[Version, list[InstalledFile]]] = {}
    generic: set[str] = set()
    for file in files:
        if file.scheme not in _MODULES or not file.path.endswith(_EXTENSION):
            continue
        head, _, name = file.path.rpartition("/")
        module = f"{head}/{name.partition('.')[0]}"
        found = _BOUND.search(name)
        if found is None:
            generic.add(module)
            continue
        version = (3, version_number(found.group(1) or found.group(2)))
        modules.setdefault(module, {}).setdefault(version, []).append(file)
    problems = []
    for module, versions in modules.items():
        if module in generic:
            continue
        missing = _missing(set(versions), targets, admitted)
        if missing is None:
            continue
        named = ", ".join(f"{v[0]}.{v[1]}" for v in sorted(versions))
        dotted = module.partition("/")[2].replace("/", ".")
        for version_files in versions.values():
            for file in version_files:
                problems.append(
                    (
                        file.entry,
                        f"named for CPython {named} alone, while its tags install it on "
                        f"{targets.describe()}: on {missing} 'import {dotted}' finds no file "
                        "(no version-free .abi3.so or .so beside it)",
                    )
                )
    return problems


def _missing(
    named: set[Version], targets: TargetPythons, admitted: Callable[[Version], bool]
) -> str | None:
    """The versions the tags and Requires-Python admit that no file is named for, said
    (`3.0-3.10, 3.12 and later` for `py3`); None when there is none, or the tags could not be
    read (`ANY`)."""
    if targets is ANY:
        return None
    start = targets.open_from
    exact = sorted(targets.exact - named)
    missing = [_version(v) for v in exact if (start is None or v < start) and admitted(v)]
    if start is not None:
        runs: list[list[Version]] = []
        for minor in range(start[1], _LAST + 1):
            version = (3, minor)
            if version in named or not admitted(version):
                continue
            if runs and runs[-1][-1][1] + 1 == minor:
                runs[-1].append(version)
            else:
                runs.append([version])
        missing += [
            f"{_version(run[0])} and later" if run[-1][1] == _LAST else _version(run[0], run[-1])
            for run in runs
        ]
    return ", ".join(missing) if missing else None


def _version(first: Version, last: Version | None = None) -> str:
    """`3.11`, or `3.0-3.10` from `first` to `last`."""
    said = f"{first[0]}.{first[1]}"
    return said if last is None or last == first else f"{said}-{last[0]}.{last[1]}"
