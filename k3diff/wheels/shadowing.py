"""A module the patch's new package shadows (W628): `pkg/ext/__init__.py` added beside an
`pkg/ext.py` the patch still installs. Python's path finder takes a directory with an
`__init__` before a module file of the same name (`FileFinder.find_spec`), so `import pkg.ext`
loads the package and the module's file, which a review sees unchanged, no longer runs. A
directory without `__init__` (a namespace portion) does not shadow: the module still wins.

Only a package whose `__init__` the patch adds is looked at (a shadow the base already had is
not the patch's), so a pair that adds no `__init__` costs one pass over the entries outside the
identical runs, and one that adds some a pass over the installed paths."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from k3diff.wheel.codes import Code, Finding
from k3diff.wheels.entry import EntryResult
from k3diff.wheels.entryruns import EntryResults
from k3diff.wheels.proof import Status

SITE = "site-packages/"
_MODULE_SUFFIXES = (".py", ".pyc", ".so", ".pyd")
"""A file the path finder may load as a module: source, sourceless bytecode, an extension
(`NAME.so`, `NAME.cpython-311-x86_64-linux-gnu.so`, `NAME.abi3.so`, `NAME.cp311-win_amd64.pyd`)."""


def _module_name(filename: str) -> str | None:
    """The module a file in a package directory is importable as, or None when it is none."""
    if not filename.endswith(_MODULE_SUFFIXES):
        return None
    name = filename.partition(".")[0]
    return name or None


def _added(entries: Sequence[EntryResult]) -> list[EntryResult]:
    if isinstance(entries, EntryResults):  # runs hold identical pairs only
        return [result for _, result in entries.singles if result.status is Status.ADDED]
    return [entry for entry in entries if entry.status is Status.ADDED]


def _installed(entries: Sequence[EntryResult]) -> Iterator[str | None]:
    """Where pip installs each of the patch's entries (a missing one installs nothing); the
    identical runs read from their columns, never built into results."""
    if not isinstance(entries, EntryResults):
        yield from (e.installed_path for e in entries if e.status is not Status.MISSING)
        return
    for _, result in entries.singles:
        if result.status is not Status.MISSING:
            yield result.installed_path
    for run in entries.runs:
        yield from run.installed_paths()


def shadowed_modules(entries: Sequence[EntryResult]) -> Iterator[Finding]:
    """W628 for every package `__init__` the patch adds beside a module file of its name."""
    inits = [
        (entry, path)
        for entry in _added(entries)
        if (path := entry.installed_path) is not None
        and path.startswith(SITE)
        and path.count("/") >= 2
        and _module_name(path.rpartition("/")[2]) == "__init__"
    ]
    if not inits:
        return
    modules: dict[str, list[str]] = {}
    for path in _installed(entries):
        if path is None or not path.startswith(SITE):
            continue
        head, _, filename = path.rpartition("/")
        name = _module_name(filename)
        if name is not None and name != "__init__":
            modules.setdefault(f"{head}/{name}", []).append(path)
    for entry, path in inits:
        package = path.rpartition("/")[0]
        shadowed = [
            file
            for file in modules.get(package, ())
            if file != path and not file.startswith(package + "/")
        ]
        if shadowed:
            files = ", ".join(file.removeprefix(SITE) for file in sorted(shadowed))
            dotted = package.removeprefix(SITE).replace("/", ".")
            yield Finding(
                Code.W628,
                entry.patch_path or entry.path,
                f"the patch adds package {package.removeprefix(SITE)}/ beside {files}: "
                f"'import {dotted}' loads the package, and {files} no longer runs",
            )
