"""The Pythons and platforms a wheel installs on, from its tags, as pip selects wheels.

pip accepts `pyXY` (and `py3`) on CPython 3.Y and every later 3.x, `cpXY-abi3` on 3.Y and later,
other `cpXY` / `ppXY` tags on that one version. Paths that depend on the installing Python
(`.data/data/lib/pythonX.Y/site-packages/`, the headers directory `include/site/pythonX.Y/`, the
`pipX.Y` / `easy_install-X.Y` scripts pip generates) are judged against that set: a path is
site-packages on a Python only when its version is that Python's.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from typing import NamedTuple

Version = tuple[int, int]

_INTERPRETER = re.compile(r"(py|cp|pp)(\d)(\d*)$")


class TargetPythons(NamedTuple):
    """Which CPython versions and platforms a wheel's tags admit. (A NamedTuple, as immutable:
    every `wheels` and `audit` run defines it, where a frozen dataclass's generated methods cost
    ≈ 0.6 ms to compile; issue 41.)"""

    exact: frozenset[Version] = frozenset()
    """Versions admitted one by one (`cp312-cp312`)."""
    open_from: Version | None = None
    """Every 3.x from this one on is admitted (`py3`: 3.0; `cp38-abi3`: 3.8); None if not."""
    windows: bool = True
    """Some tag installs on Windows (a `win*` or `any` platform)."""
    elsewhere: bool = True
    """Some tag installs on a platform other than Windows."""
    mac: bool = True
    """Some tag installs on macOS (a `macosx_…` or `any` platform)."""
    linux: bool = True
    """Some tag installs on Linux (a `linux`, `manylinux`, `musllinux` or `any` platform): on
    Debian and Ubuntu, site-packages is `dist-packages`."""
    mingw: bool = True
    """Some tag installs on MSYS2's MinGW Python (a `mingw_…` or `any` platform): a Windows
    build, reading paths as Windows does, with the POSIX layout (`lib/python3.Y/site-packages`)."""

    def admits(self, version: Version) -> bool:
        """True when a tag of the wheel installs on this Python version."""
        if version in self.exact:
            return True
        return self.open_from is not None and version >= self.open_from

    @property
    def only(self) -> Version | None:
        """The one Python version the wheel installs on, None when several (or unknown)."""
        if self.open_from is None and len(self.exact) == 1:
            return next(iter(self.exact))
        return None

    @property
    def several(self) -> bool:
        """The wheel installs on more than one Python version."""
        return self.open_from is not None or len(self.exact) > 1

    def version_text(self) -> str:
        """X.Y of the Python whose paths k3diff spells: the wheel's one Python, else the
        running interpreter's (what pip on it writes)."""
        version = self.only or (sys.version_info[0], sys.version_info[1])
        return f"{version[0]}.{version[1]}"

    def describe(self) -> str:
        """The admitted versions, for a finding."""
        parts = [f"{major}.{minor}" for major, minor in sorted(self.exact)]
        if self.open_from is not None:
            parts.append(f"{self.open_from[0]}.{self.open_from[1]} and later")
        return ", ".join(parts) or "none"


ANY = TargetPythons(open_from=(3, 0))
"""What k3diff assumes of a wheel whose tags it cannot read."""


NO_SUCH_VERSION = 10**9
"""A version number of more digits than `MAX_VERSION_DIGITS` reads as this: no Python has it
(Python refuses to convert thousands of digits, and no real version has ten)."""
MAX_VERSION_DIGITS = 9


def version_number(digits: str) -> int:
    """A version number as a tag or path writes it (`3`, `12`); one of more than
    `MAX_VERSION_DIGITS` digits is `NO_SUCH_VERSION`, never a traceback."""
    return int(digits) if len(digits) <= MAX_VERSION_DIGITS else NO_SUCH_VERSION


def target_pythons(tags: Iterable[str]) -> TargetPythons:
    """The Pythons and platforms of expanded tags (`cp312-cp312-manylinux_2_17_x86_64`)."""
    exact: set[Version] = set()
    open_from: Version | None = None
    windows = elsewhere = mac = linux = mingw = False
    seen = False
    for tag in tags:
        parts = tag.split("-")
        if len(parts) != 3:
            continue
        interpreter, abi, platform = parts
        match = _INTERPRETER.match(interpreter)
        if match is None or match.group(2) != "3":
            continue
        seen = True
        minor = version_number(match.group(3)) if match.group(3) else None
        if minor is None or match.group(1) == "py" or abi == "abi3":
            start = (3, minor or 0)
            open_from = start if open_from is None else min(open_from, start)
        else:
            exact.add((3, minor))
        windows = windows or platform == "any" or platform.startswith("win")
        elsewhere = elsewhere or not platform.startswith("win")
        mac = mac or platform == "any" or platform.startswith("macosx_")
        linux = linux or platform == "any" or "linux" in platform
        mingw = mingw or platform == "any" or platform.startswith("mingw_")
    if not seen:
        return ANY
    return TargetPythons(frozenset(exact), open_from, windows, elsewhere, mac, linux, mingw)
