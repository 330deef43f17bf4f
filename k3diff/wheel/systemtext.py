"""The systems a patch's tags drop (`wheel.systems`), said compactly for W630's detail:
`CPython 3.9-3.10, 3.12+ on glibc 2.17+ x86_64; CPython 3.11 on macOS 11-13 arm64`."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from itertools import groupby

from k3diff.wheel.systems import INTERPRETER, MAX_SYSTEMS, Dropped, minor_of
from k3diff.wheel.tagplatforms import Platform, next_ios_release, next_mac_release


def describe(found: Dropped, limit: int = 6, *, tags_name_no_platform: bool = False) -> str:
    """The dropped systems said compactly, `CPython 3.9-3.10, 3.12+ on glibc 2.17+ x86_64`:
    the versions of each interpreter kind on one platform (`CPython 3.8, PyPy 3.8 on …`), and
    runs of a platform's versions that drop the same ones; `+` when a run reaches the newest version checked, which stands
    for every later one. Past `limit` parts, how many more; and how many systems went
    unchecked (`MAX_SYSTEMS`). Where `tags_name_no_platform` (both wheels' tags say `any`),
    the `any` systems are every platform, and said so."""
    minors: dict[tuple[str, Platform], set[int]] = defaultdict(set)
    for system in found.systems:
        kind = kind_of(system.interpreter, system.abi)
        minors[(kind, system.platform)].add(minor_of(system.interpreter))
    by_platform: dict[str, list[str]] = {}  # one platform's kinds said together, in order
    ordered = sorted(minors.items(), key=lambda i: (i[0][0].lower(), i[0][1]))  # CPython first
    for (kind, (family, arch)), group in groupby(ordered, key=lambda i: (i[0][0], i[0][1][:2])):
        top = found.tops.get((family, "" if family == "macos" else arch))
        runs: list[tuple[str, list[tuple[int, ...]]]] = []
        for (_, platform), versions in group:
            text = _versions(versions, found.horizon, kind)
            if runs and runs[-1][0] == text and _after(family, runs[-1][1][-1]) == platform[2]:
                runs[-1][1].append(platform.version)
            else:
                runs.append((text, [platform.version]))
        for text, run in runs:
            where = _platform_text(family, arch, run, top)
            if family == "any" and tags_name_no_platform:
                where = "every platform (both wheels' tags say 'any')"
            by_platform.setdefault(where, []).append(f"{kind} {text}")
    said = [f"{', '.join(kinds)} on {platform}" for platform, kinds in by_platform.items()]
    if len(said) > limit:
        said = [*said[:limit], f"and {len(said) - limit} more"]
    unchecked = ""
    if found.unchecked:
        unchecked = (
            f" (up to {found.unchecked:,} more systems not checked: k3diff's cap {MAX_SYSTEMS:,})"
        )
    return "; ".join(said) + unchecked


_BUILDS = {"": "", "t": "free-threaded ", "d": "debug ", "td": "free-threaded debug "}
"""A CPython build by its ABI flags (PEP 3149's `d`, PEP 703's `t`)."""


def pythons(found: Iterable[tuple[str, str]], horizon: int) -> str:
    """Pythons (interpreter, ABI) said as W630 says a platform's, `CPython 3.0-3.10, 3.12+,
    PyPy 3.6-3.11`: each kind's versions, a CPython run reaching `horizon` open (W629)."""
    minors: dict[str, set[int]] = defaultdict(set)
    for interpreter, abi in found:
        minors[kind_of(interpreter, abi)].add(minor_of(interpreter))
    ordered = sorted(minors.items(), key=lambda item: item[0].lower())  # CPython builds first
    return ", ".join(f"{kind} {_versions(v, horizon, kind)}" for kind, v in ordered)


def kind_of(interpreter: str, abi: str) -> str:
    """The interpreter kind, its ABI where it is not the version's default build's: `CPython`,
    `free-threaded CPython`, `debug CPython` (`cp313d`), `PyPy`, `GraalPy` (every release)."""
    match = INTERPRETER.fullmatch(interpreter)
    name = match.group(1) if match else interpreter
    if name == "cp" and abi.startswith(interpreter):
        flags = abi.removeprefix(interpreter)
        flags = flags[:-1] if flags.endswith("m") else flags  # pymalloc's, before 3.8
        build = _BUILDS.get(flags)
        if build is not None:
            return f"{build}CPython"
    if name == "cp":
        return f"CPython (ABI {abi})"
    if name == "pp" and abi == f"pypy{interpreter.removeprefix('pp')}_pp73":
        return "PyPy"
    if name == "graalpy" and abi == "none":
        return "GraalPy"
    label = {"pp": "PyPy", "graalpy": "GraalPy", "ip": "IronPython", "jy": "Jython"}.get(name)
    return f"{label or interpreter} ({abi})"


def _versions(minors: Iterable[int], horizon: int, kind: str) -> str:
    """`3.9-3.10, 3.12+`: runs of consecutive minors, a CPython one reaching the horizon open."""
    runs: list[list[int]] = []
    for minor in sorted(minors):
        if runs and runs[-1][-1] + 1 == minor:
            runs[-1].append(minor)
        else:
            runs.append([minor])
    texts = []
    for run in runs:
        if run[-1] >= horizon and "CPython" in kind:
            texts.append(f"3.{run[0]}+")
        elif len(run) == 1:
            texts.append(f"3.{run[0]}")
        else:
            texts.append(f"3.{run[0]}-3.{run[-1]}")
    return ", ".join(texts)


def _after(family: str, version: tuple[int, ...]) -> tuple[int, ...]:
    """The next version of a platform family: glibc 2.18 after 2.17, macOS 11 after 10.15, 26
    after 15."""
    if family == "macos":
        return next_mac_release(version)
    if family == "ios":
        return next_ios_release(version)
    return (*version[:-1], version[-1] + 1) if version else ()


def _platform_text(
    family: str, arch: str, run: list[tuple[int, ...]], top: tuple[int, ...] | None
) -> str:
    if family == "any":
        return "platforms no tag names (the base's 'any')"
    if family == "exact" and arch.startswith("linux_"):
        return f"{arch} alone (a Linux of neither glibc nor musl)"
    if family == "exact":
        return arch
    first, last = _version_text(family, run[0]), _version_text(family, run[-1])
    span = f"{first}+" if run[-1] == top else first
    if first != last and run[-1] != top:
        span = f"{first}-{last}"
    name = {"glibc": "glibc", "musl": "musl", "macos": "macOS", "ios": "iOS"}.get(family)
    name = name or "Android API level"
    return f"{name} {span} {arch}"


def _version_text(family: str, version: tuple[int, ...]) -> str:
    if family == "macos" and version[0] >= 11:
        return str(version[0])
    return ".".join(map(str, version))
