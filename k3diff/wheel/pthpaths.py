"""The wheel's own files a `.pth` path line puts on `sys.path`, from which `site` imports
`sitecustomize` and `usercustomize` at every start as it does from site-packages' top.

`site.addpackage` strips a path line's trailing whitespace, joins it to site-packages and
normalises it (`site.makepath`), and appends it when it exists: a directory of the wheel
(`demo_extra`, `./demo_extra/`, `lib/../demo_extra`; opened in any case where paths are), whose
customize modules `site` then imports (`casereads.customize_module`, read from there), or a file
of the wheel, which `zipimport` reads as an archive whatever its name, so any customize module it
holds runs: k3diff does not read inside it and counts the file itself. An absolute line, or one
that leaves site-packages, names no file of the wheel. review69d: a patch adding `demo.pth`
naming `demo_extra` and `demo_extra/sitecustomize.py` (or a zip `demo_extra.dat` holding one)
passed, exit 0, and a venv's `python -c pass` ran it.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Iterator

from k3diff.wheel.casereads import customize_module
from k3diff.wheel.extplatforms import CaseRule
from k3diff.wheel.installed import InstalledFile
from k3diff.wheel.pth import PthLine


def added_directories(lines: Iterable[PthLine]) -> frozenset[str]:
    """The paths below site-packages that path lines add (`demo_extra`), a backslash read as
    Windows' separator."""
    found = set()
    for line in lines:
        text = line.text.rstrip().replace("\\", "/")
        if line.executable or text.startswith("/") or ":" in text:
            continue
        directory = posixpath.normpath(text)
        if directory not in (".", "..") and not directory.startswith("../"):
            found.add(directory)
    return frozenset(found)


def on_pth_paths(
    files: Iterable[InstalledFile], lines: Iterable[PthLine], case: CaseRule
) -> Iterator[tuple[InstalledFile, str]]:
    """Each file `site` may import a customize module from, by the path lines `lines`, and how."""
    fold = str.lower if case.path_blind else str
    added = {f"site-packages/{fold(path)}" for path in added_directories(lines)}
    for file in files if added else ():
        path = fold(file.path)
        if path in added:
            yield (
                file,
                "on sys.path by a .pth: site imports sitecustomize from it as a zip (not read)",
            )
            continue
        top = next((top for top in added if path.startswith(f"{top}/")), None)
        # By segments, not characters: folding may change a name's length ('İ'.lower() is two).
        rest = file.path.split("/", top.count("/") + 1)[-1] if top is not None else ""
        if top is not None and customize_module(rest, case):
            name = rest.split("/")[0].split(".")[0]
            yield file, f"{name}: imported by site at every start ({top} on sys.path by a .pth)"
