"""The systems a wheel's tags install on, and the base's systems a patch's tags drop (W630).

A system is an interpreter of one Python version and ABI (`cp311` with ABI `cp311`, free-threaded
`cp313t`, PyPy's `pp310` with `pypy310_pp73`) on one platform (glibc 2.17 on x86_64, musl 1.2 on
aarch64, macOS 14 on arm64, iOS 13.0 on `arm64_iphoneos`, Android API level 24 on `arm64_v8a`,
`win_amd64`, or a platform no tag names). A wheel installs on a system when one of its tags is
among the tags the system supports, as packaging's `sys_tags` (what pip 26 selects wheels by)
lists them there: `cpython_tags` or `generic_tags`, then `compatible_tags`, over the system's
platforms. Those are packaging's `_linux_platforms` for a Linux (`manylinux_2_Y` for every Y up
to the glibc's, with the legacy `manylinux1` = 2.5, `manylinux2010` = 2.12 and `manylinux2014`
= 2.17, from 2.5 on x86_64/i686 and 2.17 elsewhere, on the architectures packaging lists them
on; `musllinux_1_Y` likewise; then `linux_ARCH`), `mac_platforms` for macOS, `ios_platforms`
and `android_platforms` (every earlier release's tags too), and the platform itself for any
other (`win_amd64`; a base's `linux_ARCH` stands for each glibc, each musl and a Linux of
neither, which takes `linux_ARCH` alone).

The systems checked come from the base's tags, so the check is finite and exact: each base tag
gives the interpreters it names (`py3`: CPython 3.Y up to a horizon one past the newest version
either side names, at least 3.20, its free-threaded builds from 3.13, and PyPy from 3.6 to 3.11
or the newest either side names, for `compatible_tags` lists `py3` on every interpreter;
`cpXY-abi3`: the default CPython builds from 3.Y, `cpXY-abi3t` the free-threaded ones;
`cp311-cp311`: CPython 3.11 of that ABI, `cp313-none` both builds of 3.13; `pp310-pypy310_pp73`
or `pp310-none`: that PyPy; Python 2 tags, which pip 26 never selects, none) on the platforms
its platform names, from its own version up to the newest version of that platform family
either side names (a glibc past every named one supports what that one does, so the last stands
for all later ones: `+`; macOS always up to 11, the first that runs arm64). A system the base
installs on and the patch does not is dropped: pip installs the base there and not the patch.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from functools import cache
from itertools import chain
from typing import NamedTuple

from packaging.tags import compatible_tags, cpython_tags, generic_tags

from k3diff.lazyre import lazy
from k3diff.wheel.requirespython import open_from, python_admits, python_lost
from k3diff.wheel.tagplatforms import (
    NEWEST,
    Platform,
    family_tops,
    number,
    platform_tags,
    platforms,
    versioned,
)

HORIZON = 20
"""CPython 3.20: the newest minor version a system is made for, unless a tag names a newer."""
MAX_SYSTEMS = 100_000
"""The most systems checked for one pair (a real release's tags give a few hundred); past it
the first are checked and the finding says how many more there may be. The work is linear in
the tags and bounded by this cap however many versions or platforms a hostile tag set names
(review66b: 14,000 platform tags once took minutes)."""

FREE = 13
"""CPython 3.13: the first with a free-threaded build (`cp313t`)."""
PYPY = 11
"""PyPy 3.11: the newest PyPy a system is made for, unless a tag names a newer (PyPy from 3.6,
the first with the `pp73` ABI)."""

GRAALPY_FIRST = 10
"""GraalPy 23.0's Python, 3.10: the first GraalPy release."""
GRAALPY = 12
"""GraalPy 25's Python, 3.12: the newest GraalPy a system is made for, unless a tag names a
newer."""

INTERPRETER = lazy(r"([a-z]+)(\d)(\d*)")
_FLAGS = lazy(r"[a-z]*")
"""A CPython build's ABI flags after its version (`cp313t`, `cp37m`)."""
_SLOT = "k3diff-platform"
"""A stand-in platform: the tags packaging lists on it are the ones listed on every platform."""


class System(NamedTuple):
    """An interpreter of one Python version and ABI on one platform."""

    interpreter: str
    """The interpreter tag: `cp311`, `pp310`."""
    abi: str
    """Its ABI tag: `cp311`, `cp313t`, `pypy310_pp73` (`none` when the tag names none)."""
    platform: Platform


class Dropped(NamedTuple):
    """The base's systems the patch's tags drop, and the bounds they were checked up to."""

    systems: list[System]
    """Each system the base's tags install on and the patch's do not, sorted."""
    horizon: int
    """The newest CPython minor version checked: one dropped stands for every later one."""
    tops: dict[tuple[str, str], tuple[int, ...]]
    """Per platform family and architecture (macOS: every one), the newest version checked,
    which stands for every later one."""
    unchecked: int = 0
    """Systems past `MAX_SYSTEMS`, not checked (at most this many)."""


def dropped(
    base: Iterable[str],
    patch: Iterable[str],
    requires_python: str | None = None,
    patch_requires_python: str | None = None,
) -> Dropped:
    """The systems the `base` tags install on and the `patch` tags do not (expanded tags).
    A Python the base's `requires_python` excludes is not one pip installs the base on, and
    one the patch's `patch_requires_python` excludes is one pip does not install the patch on
    (narrow77: a narrowed Requires-Python passed); a version is admitted as
    `requirespython.python_admits` reads it, and a specifier packaging cannot read excludes
    nothing, as pip 26 ignores it with a warning."""
    base_tags, patch_tags = frozenset(base), frozenset(patch)
    parsed = [parts for parts in (t.split("-") for t in base_tags | patch_tags) if len(parts) == 3]
    newest = _Newest.of({python for python, _, _ in parsed})  # each part read once
    # Judged up to where either side's specifier stops changing its answer (left67).
    horizon = max(
        open_from(text, newest.horizon) if text else newest.horizon
        for text in (requires_python, patch_requires_python)
    )
    newest = newest._replace(horizon=horizon)
    tops = family_tops({platform for _, _, platform in parsed})
    checked, unchecked = _systems(base_tags, newest, tops)
    admitted, python_gone = (
        python_admits(requires_python),
        python_lost(requires_python, patch_requires_python),
    )
    base_installs, patch_installs = _Installs(base_tags), _Installs(patch_tags)
    by_platform: dict[Platform, list[System]] = defaultdict(list)
    for system in checked:
        by_platform[system.platform].append(system)
    lost = []
    for platform, systems in by_platform.items():  # each platform's tags listed once
        names = platform_tags(platform)
        lost += [
            s
            for s in systems
            if admitted(minor_of(s.interpreter))
            and base_installs(s, names)
            and (python_gone(minor_of(s.interpreter)) or not patch_installs(s, names))
        ]
    return Dropped(sorted(lost), newest.horizon, tops, unchecked)


def installs_on(tags: Iterable[str], horizon: int = HORIZON) -> tuple[list[tuple[str, str]], int]:
    """The (interpreter, ABI) of each Python the expanded `tags` install on, on some platform
    (W629, `k3diff.wheel.versionbound`): those their Python and ABI parts name, as a base's
    systems are made, where packaging lists one of the parts for that interpreter; and the
    horizon, the newest CPython minor version made (at least `horizon`), which stands for
    every later one. A part tagged `any` counts where packaging lists it with `any` alone
    (`cp313-none-any`, `py3-none-any`): `cp313-cp313-any` and `cp313-abi3-any` install on no
    Python, pip 26 refuses them everywhere (left68: read as CPython 3.13's)."""
    named, newest = _named_on(tags, horizon)
    return sorted(i for i, listed in named.items() if listed), newest.horizon


def names_python(tags: Iterable[str]) -> bool:
    """True when the tags' Python and ABI parts name some Python 3, whether or not packaging
    lists them anywhere (`cp313-cp313-any` names CPython 3.13; `py2-none-any` none)."""
    return bool(_named_on(tags, HORIZON)[0])


def _named_on(tags: Iterable[str], horizon: int) -> tuple[dict[tuple[str, str], bool], _Newest]:
    """Each (interpreter, ABI) the tags' parts name, whether some tag installs on it, and the
    newest versions made."""
    index = _index(frozenset(t for t in tags if t.count("-") == 2))
    heads = {pair for pairs in index.values() for pair in pairs}
    newest = _Newest.of({python for python, _ in heads}, horizon)
    named = {i for python, abi in heads for i in _interpreters(python, abi, newest)}
    return {i: _listed(i, index) for i in named}, newest


def _listed(interpreter: tuple[str, str], index: dict[str, set[tuple[str, str]]]) -> bool:
    """True when packaging lists one of the `index`'s parts for `interpreter` on its
    platform: with `any`, those it lists there, on any other, those it lists on a platform."""
    heads, anywhere = _supported(*interpreter)
    return any(
        not (anywhere if platform == "any" else heads).isdisjoint(pairs)
        for platform, pairs in index.items()
    )


class _Newest(NamedTuple):
    """The newest version of each interpreter kind a system is made for."""

    horizon: int
    """CPython: `HORIZON`, or one past the newest a tag names."""
    pypy: int
    """PyPy: `PYPY`, or the newest a tag names."""
    graalpy: int
    """GraalPy: `GRAALPY`, or the newest a tag names."""

    @classmethod
    def of(cls, pythons: Iterable[str], horizon: int = HORIZON) -> _Newest:
        """The bounds for the interpreter parts `pythons` of some tags (each capped: `NEWEST`)."""
        minors = [(python, minor_of(python)) for python in pythons]
        return cls(
            min(max([horizon, *(minor + 1 for _, minor in minors)]), NEWEST),
            min(max([PYPY, *(m for p, m in minors if p.startswith("pp"))]), NEWEST),
            min(max([GRAALPY, *(m for p, m in minors if p.startswith("graalpy"))]), NEWEST),
        )


def _systems(
    base_tags: frozenset[str], newest: _Newest, tops: dict[tuple[str, str], tuple[int, ...]]
) -> tuple[list[System], int]:
    """The systems the base's tags name, sorted, at most `MAX_SYSTEMS`, and how many more at
    most (a system two tags name may be counted twice). Each (Python, ABI) part's platforms
    are reduced to the oldest version of each family and architecture first (`_oldest`), and
    parts of the same platforms share them, so the work is the systems', not the tags'."""
    heads: dict[tuple[str, str], set[str]] = defaultdict(set)
    for parts in (t.split("-") for t in base_tags):
        if len(parts) == 3:
            heads[(parts[0], parts[1])].add(parts[2])
    groups: dict[tuple[str, ...], set[tuple[str, str]]] = defaultdict(set)
    for (python, abi), tags in heads.items():
        interpreters = set(_interpreters(python, abi, newest))
        if interpreters:
            groups[_oldest(tags)] |= interpreters
    systems: set[System] = set()
    unchecked = 0
    for named in sorted(groups):
        each = sorted({p for tag in named for p in platforms(tag, tops)})
        for interpreter, abi in sorted(groups[named]):
            room = max(MAX_SYSTEMS - len(systems), 0)
            systems.update(System(interpreter, abi, p) for p in each[:room])
            unchecked += max(len(each) - room, 0)
    return sorted(systems), unchecked


def _oldest(platforms: Iterable[str]) -> tuple[str, ...]:
    """The platform tags whose systems hold all the others': of several versions of one
    family and architecture (each checked from its own version up to the newest named), the
    oldest alone (glibc and musl per major version; an iOS minor past 9, which `ios_platforms`
    lists only for its own release, kept)."""
    oldest: dict[tuple[object, ...], tuple[tuple[int, ...], str]] = {}
    kept = set()
    for platform in platforms:
        found = versioned(platform)
        if found is None or (found[0] == "ios" and found[2][1] > 9):
            kept.add(platform)
            continue
        family, arch, version = found
        key = (family, arch, version[0]) if family in ("glibc", "musl") else (family, arch)
        if key not in oldest or version < oldest[key][0]:
            oldest[key] = (version, platform)
    return tuple(sorted(kept | {platform for _, platform in oldest.values()}))


class _Installs:
    """Whether tags install on a system, remembering per interpreter (Python and ABI) the
    platform tags its Python and ABI parts are named on."""

    def __init__(self, tags: frozenset[str]) -> None:
        self.index = _index(tags)
        self.named: dict[tuple[str, str], tuple[frozenset[str], bool]] = {}

    def __call__(self, system: System, names: frozenset[str]) -> bool:
        """True when the tags install on `system`, whose platform lists the tags `names`."""
        key = (system.interpreter, system.abi)
        if key not in self.named:
            heads, anywhere = _supported(*key)
            on = frozenset(p for p, pairs in self.index.items() if not heads.isdisjoint(pairs))
            self.named[key] = (on, not anywhere.isdisjoint(self.index.get("any", ())))
        on, any_platform = self.named[key]
        return any_platform or not on.isdisjoint(names)


def _index(tags: frozenset[str]) -> dict[str, set[tuple[str, str]]]:
    """The tags' (Python, ABI) parts by platform."""
    index: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for tag in tags:
        python, _, rest = tag.partition("-")
        abi, _, platform = rest.partition("-")
        index[platform].add((python, abi))
    return index


def minor_of(python: str) -> int:
    """The minor version an interpreter tag names (`cp311`: 11; `py3`: 0), capped (`number`)."""
    match = INTERPRETER.fullmatch(python)
    return number(match.group(3)) if match and match.group(2) == "3" and match.group(3) else 0


def _interpreters(python: str, abi: str, newest: _Newest) -> Iterator[tuple[str, str]]:
    """(interpreter, ABI) of each system a base tag's Python and ABI parts name: `py3` every
    CPython (default and free-threaded), PyPy and GraalPy from its version on (each up to the
    newest a tag names, at least `newest`'s); `cpXY-none` both CPython builds of 3.Y; abi3 the
    default builds, abi3t the free-threaded ones (which exist from 3.13). A GraalPy system's ABI
    is `none`: it stands for every GraalPy release of that Python, whose ABI tags name the
    release (`graalpy242_311_native`)."""
    match = INTERPRETER.fullmatch(python)
    if match is None or match.group(2) != "3":
        return  # Python 2, which pip 26 never selects, or no interpreter packaging names
    kind, minor = match.group(1), number(match.group(3) or "0")
    horizon = newest.horizon
    if minor > NEWEST:
        return
    if kind == "py" or (kind == "cp" and abi == "abi3"):
        yield from ((f"cp3{v}", _default_abi(v)) for v in range(minor, horizon + 1))
    if kind == "py" or (kind == "cp" and abi == "abi3t"):
        yield from ((f"cp3{v}", f"cp3{v}t") for v in range(max(minor, FREE), horizon + 1))
    if kind == "py":
        yield from ((f"pp3{v}", f"pypy3{v}_pp73") for v in range(max(minor, 6), newest.pypy + 1))
        graalpy = range(max(minor, GRAALPY_FIRST), newest.graalpy + 1)
        yield from ((f"graalpy3{v}", "none") for v in graalpy)
    elif kind == "cp" and abi == "none":
        yield python, _default_abi(minor)
        if minor >= FREE:
            yield python, f"cp3{minor}t"
    elif kind == "cp" and abi.startswith(python) and _FLAGS.fullmatch(abi[len(python) :]):
        yield python, abi  # a build's own ABI (`cp311-cp312`, of a compressed set, is none)
    elif kind == "pp" and abi == "none" and match.group(3):
        yield python, f"pypy{python.removeprefix('pp')}_pp73"  # every PyPy has its own ABI
    elif kind != "cp" and match.group(3):
        yield python, abi


def _default_abi(minor: int) -> str:
    """The ABI of a default CPython 3.Y build (pymalloc's `m` before 3.8)."""
    return f"cp3{minor}" + ("m" if 3 <= minor < 8 else "")


@cache
def _supported(
    interpreter: str, abi: str
) -> tuple[frozenset[tuple[str, str]], frozenset[tuple[str, str]]]:
    """The (Python, ABI) parts packaging lists on each platform of a system of this
    interpreter, and those it lists on `any`, whatever the platforms."""
    match = INTERPRETER.fullmatch(interpreter)
    assert match is not None
    version = (3, int(match.group(3))) if match.group(3) else (3,)
    if match.group(1) == "cp":
        own = cpython_tags(version, [abi], [_SLOT])
    else:
        own = generic_tags(interpreter, [] if abi == "none" else [abi], [_SLOT])
    listed = list(chain(own, compatible_tags(version, interpreter, [_SLOT])))
    heads = frozenset((t.interpreter, t.abi) for t in listed if t.platform == _SLOT)
    return heads, frozenset((t.interpreter, t.abi) for t in listed if t.platform == "any")
