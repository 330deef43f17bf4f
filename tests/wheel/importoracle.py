"""pip and CPython's import system as W629's oracle: whether a wheel pip installs for one
target Python leaves a module that Python's import system finds.

`installs_importable` runs pip 26 (`pip install --target DIR --no-deps --only-binary=:all:
--python-version --implementation cp --abi --platform`: pip's own tag check for that Python),
then `importlib.machinery.FileFinder` over the installed package directory with the target's
extension suffixes, as CPython's C sources list them (`Target.suffixes`). The finder runs in a
child process told it is on the target's system (`sys.platform`), so that its own directory
cache is filled as there (Windows lowers each name's suffix, `FileFinder._fill_cache`), and
whose file lookups ignore case where the target's file system does (NTFS, APFS): the one part
of the target a Linux test machine is not.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

_FINDER = """
import importlib._bootstrap_external as external, importlib.machinery as machinery, os, sys
directory, module, platform, sources, *suffixes = sys.argv[1:]
if platform != sys.platform:
    sys.platform = platform
    def isfile(path):  # a file system that ignores case (NTFS, APFS)
        head, _, name = path.rpartition(os.sep)
        names = {name.lower(): name for name in os.listdir(head)} if os.path.isdir(head) else {}
        return os.path.isfile(os.path.join(head, names.get(name.lower(), name)))
    external._path_isfile = isfile
loaders = [(machinery.ExtensionFileLoader, suffixes)]
if sources:
    loaders += [(machinery.SourceFileLoader, sources.split(",")),
                (machinery.SourcelessFileLoader, [".pyc"])]
finder = machinery.FileFinder(directory, *loaders)
spec = finder.find_spec(module)
if spec is None or not spec.origin:
    print("missing")
else:
    print(os.path.relpath(spec.origin, directory) if sources else "found")
"""


@dataclass(frozen=True)
class Target:
    """One Python pip may install a wheel for."""

    version: str
    """`3.13`."""
    abis: tuple[str, ...]
    """What packaging lists for it (`cp313`; a debug build `cp313d` and `cp313`)."""
    platform: str
    """A platform tag of its system."""
    sys_platform: str
    """Its `sys.platform`: `linux`, `darwin`, `win32`."""
    suffixes: tuple[str, ...]
    """Its `EXTENSION_SUFFIXES`: `Python/dynload_shlib.c` (SOABI, a debug build's ALT_SOABI
    from 3.8, the stable ABI's, `.so`) or `Python/dynload_win.c` (the tagged `.pyd`, then
    `.pyd`; `_d` before each on a debug build)."""

    @property
    def sources(self) -> tuple[str, ...]:
        """Its `SOURCE_SUFFIXES`: `.py`, and `.pyw` on Windows."""
        return (".py", ".pyw") if self.sys_platform == "win32" else (".py",)


LINUX = "manylinux_2_17_x86_64"
LINUX_313 = Target(
    "3.13",
    ("cp313",),
    LINUX,
    "linux",
    (".cpython-313-x86_64-linux-gnu.so", ".abi3.so", ".so"),
)
LINUX_313D = Target(
    "3.13",
    ("cp313d", "cp313"),
    LINUX,
    "linux",
    (".cpython-313d-x86_64-linux-gnu.so", ".cpython-313-x86_64-linux-gnu.so", ".abi3.so", ".so"),
)
MAC_313 = Target(
    "3.13",
    ("cp313",),
    "macosx_11_0_arm64",
    "darwin",
    (".cpython-313-darwin.so", ".abi3.so", ".so"),
)
WINDOWS_313 = Target("3.13", ("cp313",), "win_amd64", "win32", (".cp313-win_amd64.pyd", ".pyd"))
CYGWIN_312 = Target("3.12", ("cp312",), "cygwin_3_5_x86_64", "cygwin", (".dll",))
"""Cygwin's CPython: `dynload_shlib.c` lists `.dll` alone under `__CYGWIN__` (no `.so`); its
file system, NTFS, opens a path in any case."""
MSYS_312 = Target("3.12", ("cp312",), "msys_3_5_x86_64", "msys", (".dll",))
"""MSYS2's own CPython (its runtime a Cygwin fork, `__CYGWIN__` defined): as Cygwin's."""
FREEBSD_312 = Target(
    "3.12",
    ("cp312",),
    "freebsd_14_0_release_amd64",
    "linux",
    (".cpython-312.so", ".abi3.so", ".so"),
)
"""FreeBSD's CPython (SOABI of no platform): its file systems match case and its `sys.platform`
(`freebsd14`) is none the finder treats apart, so the finder runs as on Linux."""
WINDOWS_313D = Target(
    "3.13", ("cp313d", "cp313"), "win_amd64", "win32", ("_d.cp313-win_amd64.pyd", "_d.pyd")
)


def installs_importable(wheel: Path, target: Target, package: str, module: str) -> bool | None:
    """None where pip refuses the wheel for `target`; else whether the import system there
    finds extension module `module` in the installed `package` directory."""
    found = installed_origin(wheel, target, package, module, sources=False)
    return None if found is None else found == "found"


def installed_origin(
    wheel: Path, target: Target, package: str, module: str, sources: bool = True
) -> str | None:
    """None where pip refuses the wheel for `target`; else the file the import system there
    loads for `module` in the installed `package` directory (`package` "" for site-packages),
    its path below that directory (`ext/__init__.py`, `_C.PY`), looking for extensions, then
    sources (`Target.sources`), then bytecode, as `FileFinder` does; `missing` where it finds
    none. `sources` False: extensions alone, and `found` for any."""
    with tempfile.TemporaryDirectory() as directory:
        command = [
            sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-compile",
            "--no-index", "--disable-pip-version-check", "--only-binary=:all:",
            f"--python-version={target.version}", "--implementation=cp",
            *(f"--abi={abi}" for abi in target.abis), f"--platform={target.platform}",
            "--target", directory, str(wheel),
        ]  # fmt: skip
        env = {**os.environ, "PIP_NO_INPUT": "1", "PIP_CONFIG_FILE": os.devnull}
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
        if done.returncode != 0:
            assert "is not a supported wheel" in done.stderr, done.stderr
            return None
        found = subprocess.run(
            [
                sys.executable, "-I", "-c", _FINDER, str(Path(directory) / package), module,
                target.sys_platform, ",".join(target.sources) if sources else "",
                *target.suffixes,
            ],
            capture_output=True, text=True, check=True, timeout=60,
        )  # fmt: skip
        return found.stdout.strip()
