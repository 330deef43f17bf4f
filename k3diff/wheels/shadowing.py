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

from collections.abc import Iterable, Iterator, Sequence

from k3diff.wheel.casereads import listed_name
from k3diff.wheel.codes import Code, Finding
from k3diff.wheel.extplatforms import CaseRule
from k3diff.wheel.extsuffix import EXTENSIONS, bare, module_abi
from k3diff.wheels.entry import EntryResult
from k3diff.wheels.entryruns import EntryResults
from k3diff.wheels.proof import Status

SITE = "site-packages/"
_POSIX_SUFFIXES = (".py", ".pyc", ".so")
"""A file the path finder on Linux or macOS may load as a module: source, sourceless bytecode,
an extension (`NAME.so`, `NAME.cpython-311-x86_64-linux-gnu.so`, `NAME.abi3.so`)."""
_WINDOWS_SUFFIXES = (".py", ".pyw", ".pyc", ".pyd")
"""On Windows: `.pyw` is source too (importlib's `SOURCE_SUFFIXES` there), and an extension is
a `.pyd` (`NAME.cp311-win_amd64.pyd`), never a `.so`."""
_RANK = {".so": 0, ".pyd": 0, ".py": 1, ".pyw": 2, ".pyc": 3}
"""The order the path finder tries a directory's module files in (`FileFinder`'s loaders:
extensions, then source, `.py` before `.pyw`, then bytecode): a lower rank is loaded over a
higher one."""


def _module_name(filename: str, case: CaseRule) -> str | None:
    """The module a file in a package directory is importable as on the one system `case`
    describes, or None when it is none. Windows lowers a name's suffix, after its first dot,
    before it matches it (`FileFinder._fill_cache`), reads `.pyw` as source and loads `.pyd`
    extensions alone; Linux and macOS load `.so` alone (review69: a `.pyd` kept a package on
    Linux, a `.so` on Windows, and the module it had shadowed ran unsaid). Where paths open in
    any case (macOS, Windows), `FileFinder` checks a package's `__init__` by its path, so
    `__INIT__.py` is the package's `__init__` (the module's own name it matches in the
    directory's listing, as written)."""
    filename = listed_name(filename, case)
    folded = filename.lower()
    if case.path_blind and folded.partition(".")[0] == "__init__" and _loads(folded, case):
        return "__init__"  # opened by its path, in any case
    if not _loads(filename, case):
        return None
    return filename.partition(".")[0] or None


def _loads(filename: str, case: CaseRule) -> bool:
    """Whether a loader of the system of `case` takes a file of this name: its suffix one of the
    loaders', an extension's one some Python there loads (`_loaded_extension`)."""
    suffixes = _WINDOWS_SUFFIXES if case.suffix_blind else _POSIX_SUFFIXES
    return filename.endswith(suffixes) and (
        not filename.endswith(EXTENSIONS) or _loaded_extension(filename, case)
    )


def _loaded_extension(filename: str, case: CaseRule) -> bool:
    """Whether some Python of the system of `case` loads a `.so` or `.pyd` as an extension: a
    bare one, or one whose suffix names an ABI (`extsuffix.module_abi`); `m.foo.so` or
    `m.CPYTHON-311-x86_64-linux-gnu.so` no Python loads (review69: a kept `__init__.foo.so` kept
    the package, and the module it had shadowed ran unsaid)."""
    if bare(filename, case.suffix_blind) is not None:
        return True
    abi = module_abi(filename, case.suffix_blind)[1]
    return abi is not None and abi.kind != "cased"


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


def shadowed_modules(entries: Sequence[EntryResult], case: CaseRule) -> Iterator[Finding]:
    """W628 for every package `__init__` the patch adds beside a module file of its name, and
    every module file it adds beside one of the base's that the path finder tries after it
    (`ext.py` or an extension beside a sourceless `ext.pyc`, an extension beside `ext.py`);
    and for every package `__init__` it removes (none left) beside a module file of the base's
    that the package shadowed, which now runs (`_unmasked`). Judged on each system the patch
    installs on apart (`case.systems()`, `_module_name`): an `__init__` in another case that
    keeps a package on macOS and Windows keeps none on Linux, where the module runs (review69:
    one rule for every system read it as kept, exit 0); each finding said once."""
    added, removed = _added(entries), _added(entries, Status.MISSING)
    if not added and not removed:
        return
    listing = _listing(entries, (*added, *removed))
    found: dict[tuple[str, str], Finding] = {}
    for system in case.systems():
        for finding in (*_unmasked(listing, removed, system), *_shadows(listing, added, system)):
            found.setdefault((finding.path, finding.detail), finding)
    yield from found.values()


Listing = dict[tuple[str, str], list[tuple[str, str, bool]]]
"""(directory, the module name some system may read a file as: its name before the first dot,
`__init__` in any case) -> (file name, installed path, whether the patch adds it) of each file
the patch installs there."""


def _listing(entries: Sequence[EntryResult], changed: Sequence[EntryResult]) -> Listing:
    """The patch's files in every directory a shadow may involve on any system, read once for
    all: the directory of each file it adds or lacks (`changed`: its siblings), and the parent
    of each `__init__` in any case (its namesake module)."""
    heads: set[str] = set()
    for entry in changed:
        path = entry.installed_path
        if path is not None and path.startswith(SITE):
            head, _, filename = path.rpartition("/")
            heads.add(head)
            if _stem(filename) == "__init__":
                heads.add(head.rpartition("/")[0])
    listing: Listing = {}
    for path, new in _installed(entries, tuple(f"{head}/" for head in heads)):
        head, _, filename = path.rpartition("/")
        if head in heads:
            listing.setdefault((head, _stem(filename)), []).append((filename, path, new))
    return listing


def _stem(filename: str) -> str:
    stem = filename.partition(".")[0]
    return "__init__" if len(stem) == 8 and stem.lower() == "__init__" else stem


def _modules(
    listing: Listing, keys: Iterable[str], case: CaseRule
) -> dict[str, list[tuple[str, bool]]]:
    """`DIRECTORY/MODULE` (each of `keys`) -> (installed path, whether the patch adds it) of
    each file there the system of `case` may load as that module."""
    modules: dict[str, list[tuple[str, bool]]] = {}
    for key in keys:
        head, _, name = key.rpartition("/")
        files = listing.get((head, name), ())
        if found := [(p, new) for f, p, new in files if _module_name(f, case) == name]:
            modules[key] = found
    return modules


def _shadows(
    listing: Listing, candidates: Sequence[EntryResult], case: CaseRule
) -> Iterator[Finding]:
    """W628 for the files the patch adds (`candidates`) that shadow on the system of `case`."""
    added = [
        (entry, path, name)
        for entry in candidates
        if (path := entry.installed_path) is not None
        and path.startswith(SITE)
        and (name := _module_name(path.rpartition("/")[2], case)) is not None
    ]
    if not added:
        return
    # Each added file's namesakes beside it, and a new package's namesake module in its parent.
    wanted = {f"{path.rpartition('/')[0]}/{name}" for _, path, name in added}
    wanted |= {path.rpartition("/")[0] for _, path, name in added if name == "__init__"}
    modules = _modules(listing, wanted, case)
    for entry, path, name in added:
        head, _, filename = path.rpartition("/")
        if name == "__init__" and path.count("/") >= 2:
            package = head
            shadowed = [
                file
                for file, _ in modules.get(package, ())
                if file != path and not file.startswith(package + "/")
            ]
            if shadowed:
                yield _finding(
                    entry, path, package, shadowed, "package " + package[len(SITE) :] + "/"
                )
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
            yield _finding(entry, path, dotted, over, path[len(SITE) :], native)


def _finding(
    entry: EntryResult,
    path: str,
    module: str,
    shadowed: list[str],
    what: str,
    native: bool = False,
) -> Finding:
    files = ", ".join(file.removeprefix(SITE) for file in sorted(shadowed))
    dotted = module.removeprefix(SITE).replace("/", ".")
    return Finding(
        Code.W628,
        entry.patch_path or entry.path,
        f"the patch adds {what} beside {files}: 'import {dotted}' loads the "
        f"{'package' if what.endswith('/') else 'new file'}, and {files} no longer runs",
        native=native,
    )


def _unmasked(
    listing: Listing, candidates: Sequence[EntryResult], case: CaseRule
) -> Iterator[Finding]:
    """The mirror of a new package: the patch removes `pkg/ext/__init__.py` (one of
    `candidates`, the entries it lacks) and keeps the base's `pkg/ext.py`, which the package
    shadowed (it never ran) and `import pkg.ext` now loads, listed identical. A package that
    keeps another `__init__` on the system of `case` still shadows it there."""
    removed = [
        (entry, path)
        for entry in candidates
        if (path := entry.installed_path) is not None
        and path.startswith(SITE)
        and path.count("/") >= 2
        and _module_name(path.rpartition("/")[2], case) == "__init__"
    ]
    if not removed:
        return
    packages = {path.rpartition("/")[0] for _, path in removed}
    files = _modules(listing, packages | {f"{package}/__init__" for package in packages}, case)
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
