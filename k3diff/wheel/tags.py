"""PEP 425 compatibility tags: compressed tag sets expanded, and written back compressed.

A wheel filename and every WHEEL `Tag:` line may hold a compressed tag set: `py2.py3-none-any`
is two tags, and maturin writes `Tag: cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64`
on one line. Tags are compared as the expanded sets, with `packaging.tags.parse_tag` (what pip
uses), so a compressed and an expanded spelling of the same set are equal.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from math import prod

from packaging.tags import parse_tag

from k3diff.lazyre import lazy

MAX_TAGS = 4096
"""The most tags the compressed tag sets of one wheel (all its WHEEL `Tag:` lines together; a
filename, at most 255 bytes, names at most about 64,000) are expanded to. `py2.py3-none-…` with a dozen platforms is a few dozen; a
hostile `Tag:` line of a few kilobytes names billions (its parts multiply), and packaging builds
each one. A set past what is left of the cap stands for itself, as a malformed one does: the
filename's tags are then not among WHEEL's (W605, failing), and a patch whose tags cannot be
read installs nowhere k3diff can name (W630)."""


def _count(text: str) -> int:
    """How many tags the compressed set `text` names (1 when it is not three parts)."""
    parts = text.split("-")
    return prod(part.count(".") + 1 for part in parts) if len(parts) == 3 else 1


def expand(tag_set: str) -> frozenset[str]:
    """The tags of one compressed tag set (`PY-ABI-PLATFORM`, each part `.`-separated).

    Tags are lower case, as packaging writes them; a malformed set (not three parts), or one
    naming more than `MAX_TAGS`, stands for itself, so it can still be shown and compared."""
    text = tag_set.strip()
    if _count(text) > MAX_TAGS:
        return frozenset({text.lower()})
    try:
        return frozenset(str(tag) for tag in parse_tag(text))
    except ValueError:
        return frozenset({text.lower()}) if text else frozenset()


def expand_all(tag_sets: Iterable[str]) -> frozenset[str]:
    """The union of the expanded tag sets (every `Tag:` line of a WHEEL file), at most
    `MAX_TAGS` of them expanded in all: a set past what is left stands for itself."""
    tags: set[str] = set()
    room = MAX_TAGS
    for tag_set in tag_sets:
        count = _count(tag_set.strip())
        if count > room:
            tags.add(tag_set.strip().lower())
            continue
        room -= count
        tags |= expand(tag_set)
    return frozenset(tags)


def compress(tags: Iterable[str]) -> str:
    """A valid spelling of the tags as compressed tag sets, joined by `, ` when one set cannot
    hold them all: tags sharing their interpreter and ABI parts share one set, and sets with the
    same platforms merge their ABI and then their interpreter parts."""
    by_head: dict[tuple[str, str], set[str]] = defaultdict(set)
    loose: list[str] = []
    for tag in tags:
        parts = tag.split("-")
        if len(parts) == 3:
            by_head[(parts[0], parts[1])].add(parts[2])
        else:
            loose.append(tag)
    by_platforms: dict[tuple[str, frozenset[str]], set[str]] = defaultdict(set)
    for (python, abi), platforms in by_head.items():
        by_platforms[(python, frozenset(platforms))].add(abi)
    by_rest: dict[tuple[frozenset[str], frozenset[str]], set[str]] = defaultdict(set)
    for (python, platform_set), abis in by_platforms.items():
        by_rest[(frozenset(abis), platform_set)].add(python)
    sets = [
        f"{'.'.join(sorted(pythons))}-{'.'.join(sorted(abis))}-{'.'.join(sorted(platforms))}"
        for (abis, platforms), pythons in by_rest.items()
    ]
    return ", ".join(sorted(sets) + sorted(loose))


_LINUX_PROMISE = lazy(r"(?:manylinux1|manylinux2010|manylinux2014|(?:many|musl)linux_\d+_\d+)_")
_PYTHON_2 = lazy(r"[a-z]+2\d*")
_CPYTHON_3 = lazy(r"cp3(\d+)")


def never_selected(tag: str) -> bool:
    """True for a tag of a Python 2 interpreter (`py2`, `cp27`, `pp273`): pip 26 runs on
    Python 3 only, and no Python 3's supported tags hold one."""
    return _PYTHON_2.fullmatch(tag.partition("-")[0]) is not None


def wider_tags(tag: str) -> frozenset[str]:
    """The tags supported wherever `tag` is (itself among them), as packaging's `sys_tags`,
    which pip 26 uses, lists them: a manylinux or musllinux platform's plain `linux_ARCH`
    (listed after a Linux's manylinux/musllinux tags), for the `none` ABI the interpreter's
    `any` platform (listed for every interpreter a `none` tag is listed for), and for a CPython
    tag of its own ABI (`cp311-cp311`, not `cp313-cp313t`) or of the stable ABI (`cp311-abi3`)
    the stable ABI of its version and every older one down to `cp32` and, for the former, the
    version's `none` ABI (`cpython_tags` lists them for every such interpreter):
    `cp311-cp311-manylinux2014_x86_64` -> `cp311-cp311-linux_x86_64`, `cp311-abi3-...`,
    `cp38-abi3-...`, `cp311-none-...`; `py3-none-manylinux1_x86_64` -> `py3-none-linux_x86_64`,
    `py3-none-any`."""
    parts = tag.split("-")
    if len(parts) != 3:
        return frozenset({tag})
    python, abi, platform = parts
    platforms = {platform}
    match = _LINUX_PROMISE.match(platform)
    if match is not None:
        platforms.add(f"linux_{platform[match.end() :]}")
    wider = {f"{python}-{abi}-{name}" for name in platforms}
    if abi == "none":
        wider.add(f"{python}-none-any")
    cpython = _CPYTHON_3.fullmatch(python)
    if cpython is not None and abi in (python, "abi3"):
        minor = int(cpython.group(1))
        for name in platforms:
            wider.update(f"cp3{older}-abi3-{name}" for older in range(2, minor + 1))
            if abi == python:
                wider.add(f"{python}-none-{name}")
    return frozenset(wider)


_IMAGE_FORMATS = (
    ("manylinux", "elf"), ("musllinux", "elf"), ("linux", "elf"), ("android", "elf"),
    ("win", "pe"), ("macosx", "mach-o"), ("ios", "mach-o"),
)  # fmt: skip
_ELF_MACHINES = (
    ("x86_64", "elf64:62"), ("i686", "elf32:3"), ("i386", "elf32:3"), ("x86", "elf32:3"),
    ("aarch64", "elf64:183"), ("arm64_v8a", "elf64:183"), ("armv7l", "elf32:40"),
    ("armv6l", "elf32:40"), ("armeabi_v7a", "elf32:40"), ("ppc64le", "elf64:21"),
    ("ppc64", "elf64be:21"), ("s390x", "elf64be:22"), ("riscv64", "elf64:243"),
    ("loongarch64", "elf64:258"),
)  # fmt: skip
"""A Linux platform tag's architecture and the ELF its kernel runs: class, byte order (big
endian `be`) and machine (`e_machine`), as `native.sniff.executable_image` names one. The
kernel reads every header in its own class and order: an ELF64 of EM_386, an x32 ELF32 of
EM_X86_64 or a big-endian ppc64 image on ppc64le is ENOEXEC there."""


def image_formats(tags: Iterable[str]) -> frozenset[str]:
    """The executable image the platform of each tag loads: an ELF of the tag's class, byte
    order and machine for `linux`, `manylinux`, `musllinux` and `android` (`elf64:62` for
    x86_64, `elf32:3` for i686, `elf64be:21` for ppc64), a PE for `win*`, a Mach-O for
    `macosx` and `ios` (their machines not told apart: Windows and macOS run other
    architectures' programs under emulation); a platform of none of them (`any`,
    `freebsd_...`), or a Linux one of an architecture not listed, stands for itself, which no
    image is. A native program a wheel ships runs only where it is the one image of this set:
    elsewhere the loader refuses it (ENOEXEC), and `execvp` hands the file to `/bin/sh`
    (`native.sniff.image_format` names an image so)."""
    formats = set()
    for tag in tags:
        platform = tag.rpartition("-")[2]
        found = next((fmt for prefix, fmt in _IMAGE_FORMATS if platform.startswith(prefix)), None)
        if found == "elf":
            images = (image for arch, image in _ELF_MACHINES if platform.endswith(f"_{arch}"))
            found = next(images, None)
        formats.add(found or platform)
    return frozenset(formats)


def wheel_image_formats(filename_tags: Iterable[str], wheel_tags: Iterable[str]) -> frozenset[str]:
    """`image_formats` of every tag a wheel's filename (what pip selects it by) or its WHEEL
    `Tag:` lines (compressed sets, expanded) name."""
    return image_formats({*filename_tags, *expand_all(wheel_tags)})
