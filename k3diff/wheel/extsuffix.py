"""The ABI an extension module's file name names, read by its suffix (W629).

An import system finds an extension module `NAME` in a directory by the suffixes of its
`importlib.machinery.EXTENSION_SUFFIXES`, each naming the ABI it loads (PEP 3149):

* CPython on Linux and macOS (`Python/dynload_shlib.c`): `.{SOABI}.so`, `SOABI` being
  `cpython-3Y` with the build's ABI flags (`m` for pymalloc before 3.8, `d` for a debug build,
  `t` for a free-threaded one, PEP 703) and the platform (`.cpython-313t-x86_64-linux-gnu.so`,
  `.cpython-313-darwin.so`); on a debug build from 3.8 then `.{ALT_SOABI}.so`, the SOABI
  without its `d` (bpo-36722: a debug build loads the release build's extensions); then, on a
  build with the GIL, the stable ABI's `.abi3.so` (3.15 adds `.abi3-PLATFORM.so`); on 3.15 and
  later, either build, `.abi3t.so` and `.abi3t-PLATFORM.so` (PEP 803); then `.so`. A
  free-threaded 3.13 or 3.14 lists `.abi3.so` too, but an abi3 extension crashes it
  (cpython#120901), and 3.15 drops it (cpython#146636); pip never installs an abi3 tag there
  (packaging's `_abi3_applies`), so it is not counted.
* CPython on Windows (`Python/dynload_win.c`): `.cp3Y-PLATFORM.pyd`, `t` after the version on
  a free-threaded build (`.cp313t-win_amd64.pyd`), `_d` before it on a debug one
  (`_d.cp313-win_amd64.pyd`: `_C_d.cp313-win_amd64.pyd` is module `_C`'s); then `.pyd`
  (`_d.pyd` on a debug one: `_C_d.pyd` is module `_C`'s, for every debug build). A debug
  build finds no release build's name, and a release build none of a debug one's as the debug
  build's module; it finds `_C_d.pyd` as a module `_C_d` (`released`). MSYS2's MinGW build is
  a Windows build whose tagged suffix names its platform (`.cp312-mingw_x86_64_ucrt_gnu.pyd`).
* PyPy: `.pypy3Y-pp73-PLATFORM.so` (`.pyd` on Windows) alone: no stable ABI, no bare `.so`
  (pypy/pypy#4011). GraalPy: its own ABI's (`.graalpy242-311-native-x86_64-linux.so`).

The import system matches a suffix against the directory's listing as written
(`FileFinder._fill_cache`), on macOS too, whose file system ignores case; on Windows alone
(`sys.platform` `win…`) it lowers each name's part after its first dot first, so there
`_C.CP313-WIN_AMD64.PYD` is found as `_C`'s `.cp313-win_amd64.pyd` (`PYTHONCASEOK`, which
relaxes the module name's case too, is a user's setting, not read). A file's ABI is read as
packaging reads the running interpreter's from its `EXT_SUFFIX` (`tags._generic_abi`).
"""

from __future__ import annotations

from functools import cache
from typing import NamedTuple

from k3diff.lazyre import lazy
from k3diff.wheel.targets import version_number

Python = tuple[str, str]
"""An interpreter and its ABI, as packaging tags them: (`cp313`, `cp313t`), (`pp310`,
`pypy310_pp73`)."""

SUFFIX = lazy(r"\.([^./]+)\.(so|pyd)$")
"""A name's last two suffixes, the second `.so` or `.pyd`: the ABI's tag and the extension."""
_CPYTHON = lazy(r"cpython-3(\d+)([a-z]*)(?:-[^.]+)?")  # 3.2-3.4: `.cpython-34m.so`
_WINDOWS = lazy(r"cp3(\d+)(t?)-(?:win|mingw_)[^.]*")  # MSYS2's MinGW build: `extplatforms`
_STABLE = lazy(r"abi3(t?)(-[^.]+)?")
_PYPY = lazy(r"pypy3(\d+)-(pp\d+)(?:-[^.]+)?")
MARKS = (".cpython-3", ".cp3", ".abi3", ".pypy", ".graalpy", "_d.pyd")
"""What a name an ABI's suffix ends it holds, lower-cased."""
EXTENSIONS = (".so", ".pyd")
_DEBUG = "_d"
"""What a Windows debug build's suffixes start with (`_d.cp313-win_amd64.pyd`, `_d.pyd`)."""
_ALT_SOABI = 8
"""The first CPython 3 minor version whose debug build finds the release build's SOABI."""


class FileAbi(NamedTuple):
    """The ABI an extension's file name names, as its suffix says it."""

    kind: str
    """`cpython` (a POSIX SOABI), `windows` (a tagged `.pyd`), `debug` (Windows' untagged
    `_d.pyd`), `either` (a tagged `_C_d.cp313-win_amd64.pyd` read as module `_C_d`'s, which a
    release build finds as `_C_d` and a debug one as `_C`), `stable` (abi3 or abi3t), `pypy`,
    `graalpy`, or `cased` (an ABI's in another case, where the import system matches names as
    written)."""
    minor: int
    """The Python 3 minor version named; for `stable`, the first CPython that finds it."""
    abi: str
    """`cpython`, `windows`: the ABI flags (`t`, `d`); `stable`: `abi3` or `abi3t`; `pypy`,
    `graalpy`: the ABI tag (`pypy310_pp73`, `graalpy242_311_native`); `cased`: the suffix."""

    def finds(self, python: Python) -> bool:
        """True when the import system of `python` finds a file of this name."""
        interpreter, abi = python
        if self.kind == "cased":
            return False
        if self.kind == "pypy" or self.kind == "graalpy":
            return abi == self.abi
        if not interpreter.startswith("cp") or not abi.startswith(interpreter):
            return False
        minor, flags = version_number(interpreter[3:] or "0"), abi.removeprefix(interpreter)
        if self.kind == "stable":
            return minor >= self.minor and (self.abi == "abi3t" or "t" not in flags)
        if self.kind == "debug":
            return "d" in flags
        if self.kind == "either":  # the release build as `_C_d`, the debug one as `_C`
            return minor == self.minor and flags.removesuffix("m").replace("d", "") == self.abi
        if self.kind == "windows":  # no pymalloc flag in a .pyd's name
            flags = flags.removesuffix("m")
        elif minor >= _ALT_SOABI and "d" in flags and flags.replace("d", "") == self.abi:
            return minor == self.minor  # a debug build's ALT_SOABI: the release build's name
        return minor == self.minor and flags == self.abi

    def named(self) -> Python | str:
        """The one Python the name is for, or the ABI it is for said."""
        if self.kind == "cased":
            return (
                f"'.{self.abi}' (its suffix not in lower case, which Python on Linux, macOS and "
                "other POSIX systems does not load)"
            )
        if self.kind == "stable":
            return "CPython 3.15+ (abi3t)" if self.abi == "abi3t" else "the stable ABI (abi3)"
        if self.kind == "debug":
            return "debug CPython on Windows ('_d.pyd')"
        if self.kind == "pypy":
            return f"pp3{self.minor}", self.abi
        if self.kind == "graalpy":
            return f"GraalPy ({self.abi})"
        return f"cp3{self.minor}", f"cp3{self.minor}{self.abi}"


def file_abi(name: str) -> FileAbi | None:
    """The ABI a file name's suffix names, None for a suffix of no ABI (`.so`, `.pyd`) or one
    k3diff does not read."""
    return module_abi(name)[1]


def module_abi(name: str, fold: bool | None = None) -> tuple[str, FileAbi | None]:
    """The module a file name is for and the ABI its suffix names (`file_abi`); `fold`: True
    where the import system lowers the suffix (Windows), False where it matches it as written
    (a suffix in another case is then found by none: `cased`), None where k3diff does not know
    (read as written). A Windows debug build looks for `_d` before its suffixes
    (`dynload_win.c`: `_C_d.cp313-win_amd64.pyd` and `_C_d.pyd` are `_C`'s, for `cp313d`;
    left67: before, read as a module `_C_d` a release 3.13 finds); `released` reads such a name as
    its own module's too."""
    module, _, suffix = name.partition(".")
    abi = _suffix_abi(suffix.lower() if fold else suffix)
    if abi is None and fold is False:
        abi = _cased_abi(suffix)
    if module.endswith(_DEBUG) and module != _DEBUG:
        if abi is not None and abi.kind == "windows":
            return module.removesuffix(_DEBUG), abi._replace(abi=f"{abi.abi}d")
        if (suffix.lower() if fold else suffix) == "pyd":
            return module.removesuffix(_DEBUG), FileAbi("debug", 0, "d")
    return module, abi


def released(name: str, abi: FileAbi) -> tuple[str, FileAbi | None]:
    """A Windows debug name (`module_abi`: `_C_d.cp313-win_amd64.pyd`, `_C_d.pyd`) read as the
    module its whole stem names, where no file of `_C` is beside it: a release build finds
    `_C_d.cp313-win_amd64.pyd` and `_C_d.pyd` as module `_C_d` (its suffixes are
    `.cp313-win_amd64.pyd` and `.pyd`), the debug build as `_C`, so the name is either
    module's (w629c: read as a debug build's alone, the module failed on the release build pip
    installs the wheel on). The ABI then finds both builds (`either`), or for `_d.pyd` is None:
    a bare `.pyd` every build finds as one module or the other."""
    module = name.partition(".")[0]
    if abi.kind == "debug":
        return module, None
    return module, abi._replace(kind="either", abi=abi.abi.replace("d", ""))


def bare(name: str, fold: bool | None) -> str | None:
    """The extension a name of no ABI ends in (`.so` for `_C.so`, `.pyd` for `_C.pyd`, and for
    `_C.PYD` where the import system lowers it), which every CPython of its system finds;
    None for any other name."""
    suffix = name.partition(".")[2]
    suffix = suffix.lower() if fold else suffix
    return f".{suffix}" if f".{suffix}" in EXTENSIONS else None


@cache
def _cased_abi(suffix: str) -> FileAbi | None:
    """An ABI's suffix in another case (`.CPYTHON-313-….so`, `.cpython-313-….SO`), where the
    import system matches names as written: one no Python finds (left67c, abi68: the module
    was not judged, and passed)."""
    lowered = suffix.lower()
    read = None if lowered == suffix else _suffix_abi(lowered)
    return None if read is None else FileAbi("cased", 0, suffix)


@cache
def _suffix_abi(suffix: str) -> FileAbi | None:
    """`file_abi` of the part of a name after its module (read once: a wheel's hundreds of
    extensions share a few)."""
    found = SUFFIX.search(f".{suffix}")
    if found is None:
        return None
    tag, posix = found.group(1), found.group(2) == "so"
    if posix and (match := _CPYTHON.fullmatch(tag)):
        return FileAbi("cpython", version_number(match.group(1)), match.group(2))
    if not posix and (match := _WINDOWS.fullmatch(tag)):
        return FileAbi("windows", version_number(match.group(1)), match.group(2))
    if posix and (match := _STABLE.fullmatch(tag)):
        tagged = match.group(1) or match.group(2)  # abi3t, or a platform: 3.15's suffixes
        return FileAbi("stable", 15 if tagged else 2, f"abi3{match.group(1)}")
    if match := _PYPY.fullmatch(tag):
        return FileAbi(
            "pypy", version_number(match.group(1)), f"pypy3{match.group(1)}_{match.group(2)}"
        )
    if tag.startswith("graalpy"):  # packaging: the first three parts of its SOABI
        return FileAbi("graalpy", 0, "_".join(tag.split("-")[:3]).replace(".", "_"))
    return None
