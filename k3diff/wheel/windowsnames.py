"""Installed paths Windows cannot write as they are named (W619).

pip writes each file of a wheel with `open(path, "wb")` under the environment's prefix, and on
Windows Win32 reads the path before any file system does. A path component that is

* a DOS device name (`CON`, `PRN`, `AUX`, `NUL`, `COM1`-`COM9`, `LPT1`-`LPT9`, the `COM`/`LPT`
  forms with the Latin-1 superscript digits `¹ ² ³`, which ntdll's `iswdigit` counts as digits,
  and the console's `CONIN$`, `CONOUT$`), in any case, before its first dot and after the
  spaces before that dot (`nul.py`, `con .py`, `COM¹.txt`, `aux.tar.gz`): Windows 10 and the
  Windows Servers built on it open the device instead of a file, with or without an extension;
  Windows 11 still does for `NUL` and for the bare names in some paths, and SMB shares refuse
  them on every version. pip's write goes into the device, or fails, and the installed tree
  lacks the file RECORD lists (CPython's `ntpath.isreserved`, 3.13, reserves the same names;
  Microsoft's "Naming Files, Paths, and Namespaces" lists them; `COM0`/`LPT0` are not devices:
  ntdll takes only 1-9 and the three superscripts);
* holds a colon: NTFS reads `NAME:STREAM[:TYPE]` as a data stream of `NAME` (`util.py:x` writes
  a stream beside `util.py`'s contents, `util.py::$DATA` is `util.py` itself, `pkg:x` a stream of
  the directory), Win32 reads a leading `C:` as a drive, FAT and exFAT refuse the name: no file
  of that name is written;
* holds `" * < > ? |`: Win32 refuses the name, and pip's install stops there;
* ends in a dot or a space (`util.py.`, `pkg /`): Win32 drops them, so pip writes another name
  (`util.py`), a module Python imports where on Linux the file is inert data.

Control characters are W614's and backslashes W607's. The check reads every installed path of
the one installed view (`k3diff.wheel.installed`), whatever the wheel's tags say, as W615's
Windows names do: a `manylinux` wheel is installed onto Windows file systems too (`pip install
--platform manylinux2014_x86_64 --target` on Windows, for a Lambda layer; a share).
"""

from __future__ import annotations

import ntpath
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from k3diff.lazyre import lazy
from k3diff.wheel.installed import _DOT_END, InstalledFile

if TYPE_CHECKING:  # built only where two scripts are one file on Windows
    from k3diff.wheel.collision import Collision

DEVICE_NAMES = frozenset(
    {"CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"}
    | {f"{port}{digit}" for port in ("COM", "LPT") for digit in "123456789\xb9\xb2\xb3"}
)
"""The DOS device names, upper case: CPython's table (`ntpath._reserved_names`, 3.13), kept here
because Python 3.11 has no function for it that is not deprecated (`PureWindowsPath.is_reserved`
holds the same table, reads the last component only, and is deprecated since 3.13)."""

REFUSED = '"*:<>?|'
"""Characters Win32 refuses in a name (the colon: a stream's, or refused) besides control
characters (W614) and the separators."""

_DEVICE_AFTER_SLASH = (
    lazy(r"/CO(?:N(?:IN\$|OUT\$)?|M[1-9\xb9\xb2\xb3]) *[./]"),
    lazy(r"/PRN *[./]"),
    lazy(r"/AUX *[./]"),
    lazy(r"/NUL *[./]"),
    lazy(r"/LPT[1-9\xb9\xb2\xb3] *[./]"),
)
"""A device name as a component, in names upper-cased and each between slashes. Patterns that
each start with a literal of two characters or more (`re` searches such a prefix in C before
it tries the rest; one pattern of them all starts with `/` and tries the rest at every slash:
≈ 1.5 against 3.7 ms on torch's 12,249 names)."""


def may_hold_windows_names(joined: str, *, dot_ends: bool | None = None) -> bool:
    """Whether a name of `joined` (names joined by NULs; no name holds one) may have a component
    Windows cannot write (`component_problem`): true of the names joined when it is true of one
    of them (each test matches within one name). `dot_ends`: whether `joined` holds a dot
    before a slash or a NUL, when the caller searched already."""
    if any(character in joined for character in REFUSED) or joined.endswith((".", " ")):
        return True
    if dot_ends is None:
        dot_ends = _DOT_END.search(joined) is not None
    if dot_ends or (" " in joined and (" /" in joined or " \0" in joined)):
        return True
    bounded = "/" + joined.upper().replace("\0", "/") + "/"
    return any(pattern.search(bounded) for pattern in _DEVICE_AFTER_SLASH)


def component_problem(component: str) -> str | None:
    """Why Windows cannot write a file or directory named `component`, None when it can."""
    stem = component.partition(".")[0].partition(":")[0].rstrip(" ")
    if stem.upper() in DEVICE_NAMES:
        return (
            f"{component!r} is the DOS device name {stem.upper()}: Windows 10 and its Servers "
            "open the device instead of a file (with or without an extension; Windows 11 "
            "still for NUL), SMB shares refuse the name, so pip writes into the device or fails"
        )
    if ":" in component:
        return (
            f"{component!r} holds a colon, which Win32 reads as a drive (C:) or NTFS as a data "
            "stream (NAME:STREAM of NAME, NAME::$DATA as NAME itself), and FAT and exFAT refuse: "
            "no file of this name is written"
        )
    refused = sorted(set(REFUSED).intersection(component))
    if refused:
        return f"{component!r} holds {refused[0]!r}, which Windows refuses: pip's install stops"
    if component[-1:] in (".", " ") and component not in (".", ".."):
        kept = component.rstrip(". ")
        written = repr(kept) if kept else "nothing (the name is only dots and spaces)"
        return f"{component!r} ends in a dot or a space, which Windows drops: pip writes {written}"
    return None


def path_problem(path: str) -> str | None:
    """Why Windows cannot write `path` (an installed path) as named: its first component that
    it cannot write (`component_problem`), None when it can write every one."""
    for component in path.split("/"):
        problem = component_problem(component)
        if problem is not None:
            return problem
    return None


def windows_script(path: str) -> str:
    """The path pip writes a generated script `path` to on Windows: distlib's launcher,
    `NAME.exe`, a `.py…` extension of the name dropped first (`ScriptMaker._write_script`:
    `tool.` is `tool..exe`, which Windows writes as named; `nul.py` is `nul.exe`, a device)."""
    head, _, name = path.rpartition("/")
    stem, ext = ntpath.splitext(name)
    exe = f"{stem if ext.startswith('.py') else name}.exe"
    return f"{head}/{exe}" if head else exe


def script_collisions(files: Sequence[InstalledFile]) -> list[Collision]:
    """Scripts Windows holds as one file whose installed paths differ by more than case: a
    generated script under its Windows name (`windows_script`), beside another or beside a
    `.data/scripts/` file of that name. `tool = m:main` and `tool.py = m:evil` are `bin/tool`
    and `bin/tool.py` on Linux, both `Scripts\\tool.exe` on Windows, where `tool` runs the one
    pip writes last (W615; paths equal but for case are `installed`'s)."""
    if not files or not files[-1].generated:  # pip generates its scripts after every file
        return []
    groups: dict[str, list[InstalledFile]] = {}
    for file in files:
        if file.generated or file.scheme == "scripts":
            key = windows_script(file.path) if file.generated else file.path
            groups.setdefault(key.lower(), []).append(file)
    found = []
    for group in groups.values():
        if len({file.path.lower() for file in group}) > 1:
            from k3diff.wheel.collision import Collision, CollisionKind  # only when one file

            group.sort(key=lambda file: file.order)
            last = group[-1]
            path = windows_script(last.path) if last.generated else last.path
            entries = tuple(file.entry for file in group)
            found.append(Collision(path, CollisionKind.WINDOWS_SCRIPT, entries))
    return found


def apart_on_windows(collision: Collision, files: Iterable[InstalledFile]) -> bool:
    """Whether `collision`, a group of generated scripts alone that `installed` folds as
    Windows reads names (`tool` and `tool.`, which drops the dot), is in fact two files there:
    pip writes them as `tool.exe` and `tool..exe` (`windows_script`)."""
    from k3diff.wheel.collision import CollisionKind, windows_keys

    if collision.kind is not CollisionKind.WINDOWS:
        return False
    generated = {file.entry: file.path for file in files if file.generated}
    if not all(entry in generated for entry in collision.entries):
        return False
    keys = windows_keys([windows_script(generated[e]).lower() for e in collision.entries])
    return len(set(keys)) == len(keys)


def windows_refusals(
    files: Iterable[InstalledFile], names_clear: bool
) -> list[tuple[str, str, str]]:
    """(finding path, installed path, why) for every file of `files` Windows cannot write as
    named: the archive path of an entry, the installed path of a script pip generates (judged
    by the name pip gives it on Windows: `windows_script`).
    `names_clear`: `may_hold_windows_names` of the archive's names was false, so only the
    components the installed view adds to an entry's name are tested: the headers directory
    named for the project, a generated script's name."""
    found = []
    for file in files:
        if names_clear and not (file.generated or file.scheme == "headers"):
            continue
        problem = path_problem(windows_script(file.path) if file.generated else file.path)
        if problem is not None:
            found.append((file.path if file.generated else file.entry, file.path, problem))
    return found
