"""A module the patch's new file shadows (W628): `pkg/ext/__init__.py` added beside an
`pkg/ext.py` the patch still installs. Python's path finder takes a directory with an
`__init__` before a module file of the same name (`FileFinder.find_spec`), so `import pkg.ext`
loads the package and the module's file, which a review sees unchanged, no longer runs. A
directory without `__init__` (a namespace portion) does not shadow: the module still wins. The
same holds for module files of one name in one directory, which the finder tries extensions
first, then source, then bytecode: `pkg/ext.py` added beside the base's sourceless
`pkg/ext.pyc` runs instead of it, and so does an extension added beside `pkg/ext.py`. The
mirror is W628 too: an `__init__` the patch removes unmasks the module file its package
shadowed, code that never ran in the base.

Only a module file the patch adds, or an `__init__` it removes, is looked at (a shadow the base
already had is not the patch's), so a pair with neither costs a pass over the entries outside
the identical runs, and one with some a screened pass over the installed paths of their
directories."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from k3diff.wheel.codes import Code, Finding
from k3diff.wheel.extplatforms import CaseRule
from k3diff.wheels.entry import EntryResult
from k3diff.wheels.entryruns import EntryResults
from k3diff.wheels.proof import Status

SITE = "site-packages/"
_MODULE_SUFFIXES = (".py", ".pyc", ".so", ".pyd")
"""A file the path finder may load as a module: source, sourceless bytecode, an extension
(`NAME.so`, `NAME.cpython-311-x86_64-linux-gnu.so`, `NAME.abi3.so`, `NAME.cp311-win_amd64.pyd`)."""
_WINDOWS_SUFFIXES = (*_MODULE_SUFFIXES, ".pyw")
"""Windows' too: `.pyw` is a source there (`SOURCE_SUFFIXES`)."""
_RANK = {".so": 0, ".pyd": 0, ".py": 1, ".pyw": 1, ".pyc": 2}
"""The order the path finder tries a directory's module files in (`FileFinder`'s loaders:
extensions, then source, then bytecode): a lower rank is loaded over a higher one."""


AS_WRITTEN = CaseRule(False, False)
"""Names read as written: Linux's import system and file system."""


def _module_name(filename: str, case: CaseRule = AS_WRITTEN) -> str | None:
    """The module a file in a package directory is importable as, or None when it is none, on
    some system `case` describes (`extplatforms.CaseRule`, of the tags the wheel installs by):
    where a file system opens paths in any case (`path_blind`: Windows, macOS) `FileFinder`
    checks a package's `__init__` by its path, so `__INIT__.py` is the package's `__init__`;
    where the import system lowers a file's suffix (`suffix_blind`: Windows) `ext.PY` and
    `ext.pyw` are module `ext`'s source. The module's own name it matches in the directory's
    listing, as written."""
    folded = filename.lower()
    suffixes = _WINDOWS_SUFFIXES if case.suffix_blind else _MODULE_SUFFIXES
    if case.path_blind and folded.endswith(suffixes) and folded.partition(".")[0] == "__init__":
        return "__init__"
    if not (folded if case.suffix_blind else filename).endswith(suffixes):
        return None
    name = filename.partition(".")[0]
    return name or None


def _rank(filename: str) -> int:
    return _RANK[filename[filename.rfind(".") :].lower()]


def _added(entries: Sequence[EntryResult], status: Status = Status.ADDED) -> list[EntryResult]:
    """The entries of `status` (added or missing: never an identical run's)."""
    if isinstance(entries, EntryResults):  # runs hold identical pairs only
        return [result for _, result in entries.singles if result.status is status]
    return [entry for entry in entries if entry.status is status]


def _installed(
    entries: Sequence[EntryResult], prefixes: tuple[str, ...]
) -> Iterator[tuple[str, bool]]:
    """Where pip installs each of the patch's entries under one of `prefixes` (a missing one
    installs nothing), and whether the patch adds it; the identical runs read from their
    columns, never built into results, and screened in C."""
    if not isinstance(entries, EntryResults):
        for e in entries:
            path = e.installed_path
            if e.status is not Status.MISSING and path is not None and path.startswith(prefixes):
                yield path, e.status is Status.ADDED
        return
    for _, result in entries.singles:
        path = result.installed_path
        if result.status is not Status.MISSING and path is not None and path.startswith(prefixes):
            yield path, result.status is Status.ADDED
    for run in entries.runs:
        for path in [p for p in run.installed_paths() if p is not None and p.startswith(prefixes)]:
            yield path, False


def _new_modules(entries: Sequence[EntryResult], case: CaseRule) -> list[tuple[EntryResult, str]]:
    return [
        (entry, path)
        for entry in _added(entries)
        if (path := entry.installed_path) is not None
        and path.startswith(SITE)
        and _module_name(path.rpartition("/")[2], case) is not None
    ]


def shadowed_modules(
    entries: Sequence[EntryResult], case: CaseRule, base_case: CaseRule | None = None
) -> Iterator[Finding]:
    """W628 for every package `__init__` the patch adds beside a module file of its name, and
    every module file it adds beside one of the base's that the path finder tries after it
    (`ext.py` or an extension beside a sourceless `ext.pyc`, an extension beside `ext.py`);
    and for every package `__init__` it removes (none left) beside a module file of the base's
    that the package shadowed, which now runs (`_unmasked`). `case`: how the systems the
    patch's tags name read a name's case (`_module_name`); `base_case`: the base's (None: as
    the patch's). A file the patch keeps, changed or not, that its tags alone make a module
    file (`pkg/ext/__INIT__.py`, `pkg/ext.PY` in a Linux base and a patch that adds Windows or
    macOS) is the patch's as if added (`_newly_read`)."""
    yield from _unmasked(entries, case)
    cased = [] if base_case is None else _newly_read(entries, case, base_case)
    added = _new_modules(entries, case) + cased
    if not added:
        return
    # Only the directories an added file sits in (its siblings) and a new package's parent
    # (its namesake module) can hold a file it shadows.
    wanted = {path.rpartition("/")[0] for _, path in added}
    wanted |= {
        path.rpartition("/")[0].rpartition("/")[0]
        for _, path in added
        if _module_name(path.rpartition("/")[2], case) == "__init__"
    }
    modules: dict[str, list[tuple[str, bool]]] = {}
    for path, new in _installed(entries, tuple(f"{head}/" for head in wanted)):
        head, _, filename = path.rpartition("/")
        if head not in wanted:
            continue
        name = _module_name(filename, case)
        if name is not None:
            modules.setdefault(f"{head}/{name}", []).append((path, new))
    cased_paths = {path for _, path in cased}
    for entry, path in added:
        head, _, filename = path.rpartition("/")
        name = _module_name(filename, case)
        kept = path in cased_paths
        already = kept and any(  # a package already, by an `__init__` the base's tags read
            _module_name(file.rpartition("/")[2], base_case or case) == "__init__"
            for file, _ in modules.get(f"{head}/__init__", ())
        )
        if name == "__init__" and path.count("/") >= 2 and not already:
            package = head
            shadowed = [
                file
                for file, _ in modules.get(package, ())
                if file != path and not file.startswith(package + "/")
            ]
            if shadowed:
                what = "package " + package[len(SITE) :] + "/"
                yield _finding(entry, path, package, shadowed, what, kept=kept)
        if name == "__init__" and head == SITE[:-1]:
            continue  # site-packages itself is no package
        rank = _rank(filename)
        over = [
            file
            for file, new in modules.get(f"{head}/{name}", ())
            if not new and _rank(file.rpartition("/")[2]) > rank
        ]
        if over:
            dotted = head if name == "__init__" else f"{head}/{name}"
            # An extension beside its namesake (Cython compiling its own `.py`) is a native
            # change: `--allow-native-changes` covers it, never a new `.py` or `__init__`.
            native = rank == _RANK[".so"]
            yield _finding(entry, path, dotted, over, path[len(SITE) :], native, kept)


def _newly_read(
    entries: Sequence[EntryResult], case: CaseRule, base_case: CaseRule
) -> list[tuple[EntryResult, str]]:
    """The entries the patch keeps, changed or not, that its tags alone make a module file,
    with their installed paths: a package's `__init__` only where paths open in any case
    (`pkg/ext/__INIT__.py`), a source only where suffixes are lowered (`pkg/ext.PY`,
    `pkg/ext.pyw`), read so under the patch's `case` and not the base's (w629c: a Linux base's
    harmless `__INIT__.py`, unchanged in a patch that adds Windows tags, was not reported,
    though the patch now installs where it makes `pkg/ext` a package)."""
    if case == base_case or (base_case.path_blind and base_case.suffix_blind):
        return []  # nearly every pair: the same tags' systems, or every case read already

    def read(path: str | None) -> bool:
        if path is None or not path.startswith(SITE):
            return False
        filename = path.rpartition("/")[2]
        now = _module_name(filename, case)
        return now is not None and now != _module_name(filename, base_case)

    kept = (Status.ADDED, Status.MISSING)
    if not isinstance(entries, EntryResults):
        return [(e, str(e.installed_path)) for e in entries
                if e.status not in kept and read(e.installed_path)]  # fmt: skip
    found = [
        (result, str(result.installed_path))
        for _, result in entries.singles
        if result.status not in kept and read(result.installed_path)
    ]
    for run in entries.runs:
        paths = run.installed_paths()
        found += [(run.result(n), str(path)) for n, path in enumerate(paths) if read(path)]
    return found


def _finding(
    entry: EntryResult,
    path: str,
    module: str,
    shadowed: list[str],
    what: str,
    native: bool = False,
    kept: bool = False,
) -> Finding:
    """`kept`: a file the patch keeps from its base, which the patch's tags alone read as a
    module file (`_newly_read`)."""
    files = ", ".join(file.removeprefix(SITE) for file in sorted(shadowed))
    dotted = module.removeprefix(SITE).replace("/", ".")
    package = what.endswith("/")
    if kept:
        kind = f"makes {what}" if package else "is a module file"
        lead = (
            f"the patch's tags add a system (Windows, macOS) where {path.removeprefix(SITE)}, "
            f"kept from a base whose tags installed it on none such, {kind}"
        )
    else:
        lead = f"the patch adds {what}"
    loaded = "the package" if package else "it" if kept else "the new file"
    return Finding(
        Code.W628,
        entry.patch_path or entry.path,
        f"{lead} beside {files}: 'import {dotted}' loads {loaded}, and {files} no longer runs",
        native=native,
    )


def _unmasked(entries: Sequence[EntryResult], case: CaseRule) -> Iterator[Finding]:
    """The mirror of a new package: the patch removes `pkg/ext/__init__.py` and keeps the
    base's `pkg/ext.py`, which the package shadowed (it never ran) and `import pkg.ext` now
    loads, listed identical. A package that keeps another `__init__` still shadows it."""
    removed = [
        (entry, path)
        for entry in _added(entries, Status.MISSING)
        if (path := entry.installed_path) is not None
        and path.startswith(SITE)
        and path.count("/") >= 2
        and _module_name(path.rpartition("/")[2], case) == "__init__"
    ]
    if not removed:
        return
    packages = {path.rpartition("/")[0] for _, path in removed}
    wanted = packages | {package.rpartition("/")[0] for package in packages}
    files: dict[str, list[tuple[str, bool]]] = {}
    for path, new in _installed(entries, tuple(f"{head}/" for head in wanted)):
        head, _, filename = path.rpartition("/")
        name = _module_name(filename, case)
        if head in wanted and name is not None:
            files.setdefault(f"{head}/{name}", []).append((path, new))
    for entry, path in removed:
        package = path.rpartition("/")[0]
        if package not in packages or f"{package}/__init__" in files:
            continue  # said once a package; another __init__ keeps it a package
        packages.discard(package)
        now = sorted(file for file, new in files.get(package, ()) if not new)
        if now:
            shown = ", ".join(file.removeprefix(SITE) for file in now)
            dotted = package.removeprefix(SITE).replace("/", ".")
            yield Finding(
                Code.W628,
                entry.base_path or entry.path,
                f"the patch removes {path.removeprefix(SITE)} and keeps {shown}, which the "
                f"package shadowed: 'import {dotted}' now loads {shown}, code that never ran "
                "in the base",
            )
