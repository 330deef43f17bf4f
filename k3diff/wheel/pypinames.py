"""A wheel's file name as PyPI's upload reads it (warehouse's `forklift/legacy.py`,
`file_upload` and `_is_valid_dist_file`), where pip 26, twine check and `packaging` take it
(hunt80: each shape below passed `audit`, exit 0, and PyPI refuses the upload):

* a platform tag outside warehouse's `_valid_platform_tag`: `linux_x86_64` (a wheel not
  repaired by auditwheel), `macosx_11_1_arm64` (from macOS 11 the minor is 0), an unknown
  architecture (read in lower case, as packaging reads tags; PEP 783's `pyemscripten_X_Y_wasm32`
  passes); every tag of a compressed set counts ("Binary wheel ... has an unsupported
  platform tag");
* a name part that is not the project's normalised name with `_` (`Demo-1.0-...`,
  `demo.pkg-1.0-...`: "Filename ... should contain the normalized project name");
* no `NAME-VERSION.dist-info/WHEEL` or `/METADATA` spelt as the file name spells them
  (`demo-1.0.0-...whl` holding `demo-1.0.dist-info`): warehouse reads them by that literal
  path ("WHEEL not found at ...").

A wheel served by another index, which may take such a name, is waived per file (A141)."""

from __future__ import annotations

import re
from collections.abc import Collection

from packaging.utils import canonicalize_name
from packaging.version import Version

TAKEN_ELSEWHERE = (
    "PyPI refuses it on upload today, files uploaded before are still served; pip 26 installs "
    "it and twine check passes it"
)
"""Ends each sentence: who refuses the name, and who does not."""
_ALLOWED = frozenset(
    {
        "any",
        "win32",
        "win_arm64",
        "win_amd64",
        "win_ia64",
        "manylinux1_x86_64",
        "manylinux1_i686",
        "manylinux2010_x86_64",
        "manylinux2010_i686",
        "manylinux2014_x86_64",
        "manylinux2014_i686",
        "manylinux2014_aarch64",
        "manylinux2014_armv7l",
        "manylinux2014_ppc64",
        "manylinux2014_ppc64le",
        "manylinux2014_s390x",
        "linux_armv6l",
        "linux_armv7l",
    }
)
"""Platform tags warehouse takes as they are (`_allowed_platforms`)."""
_MACOS = re.compile(r"macosx_(?P<major>\d+)_(?P<minor>\d+)_(?P<arch>.*)")
_MACOS_ARCHES = frozenset(
    {"ppc", "ppc64", "i386", "x86_64", "arm64", "intel", "fat", "fat3", "fat64", "universal"}
    | {"universal2"}
)
_MACOS_MAJORS = frozenset({"11", "12", "13", "14", "15", "26"})
_IOS = re.compile(r"ios_(\d+)_(\d+)_(?P<arch>.*)_(iphoneos|iphonesimulator)")
_IOS_ARCHES = frozenset({"arm64", "x86_64"})
_ANDROID = re.compile(r"android_(\d+)_(?P<arch>.*)")
_ANDROID_ARCHES = frozenset({"armeabi_v7a", "arm64_v8a", "x86", "x86_64"})
_LINUX = re.compile(r"(?P<libc>(many|musl))linux_(\d+)_(\d+)_(?P<arch>.*)")
_LINUX_ARCHES = frozenset({"x86_64", "i686", "aarch64", "armv7l", "ppc64le", "s390x", "riscv64"})
_PYEMSCRIPTEN = re.compile(r"pyemscripten_\d+_\d+_wasm32")
"""PEP 783's Pyodide tag (warehouse since April 2026; review80b: A141 failed it)."""


def pypi_platform(tag: str) -> bool:
    """Whether PyPI's upload takes the platform tag (warehouse's `_valid_platform_tag`, with
    its `re.match` prefix matches), read in lower case as `packaging` reads a file name's tags
    (review80b: `MANYLINUX2014_X86_64` failed A141, and PyPI takes it)."""
    tag = tag.lower()
    if tag in _ALLOWED:
        return True
    macos = _MACOS.match(tag)
    if macos and macos["arch"] in _MACOS_ARCHES:
        return macos["major"] == "10" or (macos["major"] in _MACOS_MAJORS and macos["minor"] == "0")
    if m := _LINUX.match(tag):
        return m["arch"] in _LINUX_ARCHES | ({"ppc64"} if m["libc"] == "many" else set())
    if (m := _IOS.match(tag)) and m["arch"] in _IOS_ARCHES:
        return True
    if (m := _ANDROID.match(tag)) and m["arch"] in _ANDROID_ARCHES:
        return True
    return bool(_PYEMSCRIPTEN.match(tag))


def pypi_name_problems(filename: str, held: Collection[str] | None) -> list[str]:
    """One sentence per rule of PyPI's upload the wheel's file name breaks; `held` is the
    archive's entry names, None for the rules of the name alone (`report` holds a document to
    those: review80b). A name with fewer than four dashes, or ending in `.whl` twice, is no
    wheel filename PyPI takes (A126 says so)."""
    stem = filename.removesuffix(".whl")
    parts = stem.split("-")
    if len(parts) < 5 or stem == filename or stem.lower().endswith(".whl"):
        return []
    name, version = parts[0], parts[1]
    problems: list[str] = []
    normal = canonicalize_name(name).replace("-", "_")
    if name != normal:
        problems.append(
            f"the file name starts {name!r}, and PyPI takes only the normalised project name "
            f"{normal!r} there"
        )
    literal = f"{name}-{version}.dist-info"
    if held is not None and _spelt_otherwise(literal, held):
        problems.append(
            f"no {literal}/WHEEL or {literal}/METADATA: the .dist-info pip reads is spelt "
            "otherwise, and PyPI reads them at the path the file name spells"
        )
    refused = [tag for tag in dict.fromkeys(parts[-1].split(".")) if not pypi_platform(tag)]
    if refused:
        shown = ", ".join(repr(tag) for tag in refused)
        problems.append(f"platform tag {shown}, which PyPI does not take")
    return [f"{problem} ({TAKEN_ELSEWHERE})" for problem in problems]


def _spelt_otherwise(literal: str, held: Collection[str]) -> bool:
    """Whether the archive lacks `literal`'s WHEEL or METADATA while a `.dist-info` pip reads as
    the same name and version (or one naming no version) holds WHEEL (`demo-1.0.dist-info` for `demo-1.0.0`): one of
    another name or version is the filename's contradiction (W605), said there."""
    if all(f"{literal}/{file}" in held for file in ("WHEEL", "METADATA")):
        return False
    name, _, version = literal.removesuffix(".dist-info").partition("-")
    for entry in held:
        directory, _, file = entry.partition("/")
        if file != "WHEEL" or not directory.endswith(".dist-info") or directory == literal:
            continue
        other, _, other_version = directory.removesuffix(".dist-info").partition("-")
        if canonicalize_name(other) != canonicalize_name(name):
            continue
        # no version (`demo.dist-info`, `demo-.dist-info`): pip reads METADATA's, which W605
        # holds to the file name's (review80b: such a wheel passed, exit 0, PyPI refuses it)
        if not other_version or _same(other_version, version):
            return True
    return False


def _same(one: str, other: str) -> bool:
    """Whether two versions are one as pip reads them; a number past `int()`'s 4,300 digits is
    none (review80b: a `.dist-info` named so was an internal error, exit 2)."""
    try:
        return Version(one) == Version(other)
    except ValueError:  # InvalidVersion, or int() refusing a number over 4,300 digits
        return False
