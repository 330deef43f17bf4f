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

Each system the patch installs on is judged apart (`casereads.module_name`): a finding holds
if it holds on any. Only a module file the patch adds, an `__init__` it removes, or a file it
keeps that a system only its tags name reads as a module file (`_newly_read`) is looked at (a
shadow the base already had is not the patch's), so a pair with none costs a pass over the
entries outside the identical runs (all of them where the patch's tags add a system that reads
names in another way), and one with some a screened pass over the installed paths of their
directories."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace

from k3diff.wheel.casereads import module_name
from k3diff.wheel.codes import Code, Finding
from k3diff.wheel.extplatforms import CaseRule
from k3diff.wheels.entry import EntryResult
from k3diff.wheels.entryruns import EntryResults
from k3diff.wheels.proof import Status

SITE = "site-packages/"
_RANK = {".so": 0, ".pyd": 0, ".dll": 0, ".py": 1, ".pyw": 2, ".pyc": 3}
"""The order the path finder tries a directory's module files in (`FileFinder`'s loaders:
extensions, then source, `.py` before `.pyw`, then bytecode): a lower rank is loaded over a
higher one."""


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


def shadowed_modules(
    entries: Sequence[EntryResult], case: CaseRule, base_case: CaseRule | None = None
) -> Iterator[Finding]:
    """W628 for every package `__init__` the patch adds beside a module file of its name, and
    every module file it adds beside one of the base's that the path finder tries after it
    (`ext.py` or an extension beside a sourceless `ext.pyc`, an extension beside `ext.py`);
    and for every package `__init__` it removes (none left) beside a module file of the base's
    that the package shadowed, which now runs (`_unmasked`). Judged on each system the patch
    installs on apart (`case.systems()`, `module_name`): an `__init__` in another case that
    keeps a package on macOS and Windows keeps none on Linux, where the module runs (review69:
    one rule for every system read it as kept, exit 0); each finding said once. A file the
    patch keeps, changed or not, that a system only its tags name reads as a module file, and
    no system of the base's (`base_case`; None: the patch's) as that module, is the patch's
    there as if added (`_newly_read`: a Linux base's `pkg/ext/__INIT__.py` or `pkg/ext.PY` in
    a patch that adds Windows or macOS); and a kept `__init__` every system of the base's read
    as one, which such a system reads as none, unmasks the module beside its package there as
    a removed one does (a Windows base's `pkg/ext/__init__.pyw` in a patch that adds Linux)."""
    added, removed = _added(entries), _added(entries, Status.MISSING)
    kept = _newly_read(entries, case, base_case or case)
    if not added and not removed and not kept:
        return
    listing = _listing(entries, (*added, *removed, *(entry for entry, _, _ in kept)))
    found: dict[tuple[str, str], tuple[Finding, dict[str, None]]] = {}
    for system in case.systems():
        news = [entry for entry, systems, _ in kept if system in systems]
        unread = [entry for entry, _, systems in kept if system in systems]
        for finding in (
            *_unmasked(listing, removed, system),
            *_unmasked(listing, unread, system, kept=True),
            *_shadows(listing, added, system),
            *_shadows(listing, news, system, base_case),
        ):
            found.setdefault((finding.path, finding.detail), (finding, {}))[1][
                case.named(system)
            ] = None
    for finding, names in found.values():
        yield _named(finding, [name for name in names if name])


_ADDED = "\0added\0"
"""Where a kept file's finding names the systems the patch's tags add that it holds on."""


def _named(finding: Finding, names: list[str]) -> Finding:
    """The finding, the systems it holds on named where it says `_ADDED` (as W629 and W630
    name them: `win_amd64`, `darwin`, `x86_64-linux-gnu`, `Windows (any)`)."""
    if _ADDED not in finding.detail:
        return finding
    said = ", ".join(names)
    systems = f"systems ({said})" if "," in said else f"a system ({said})" if said else "a system"
    return replace(finding, detail=finding.detail.replace(_ADDED, systems))


def _newly_read(
    entries: Sequence[EntryResult], case: CaseRule, base_case: CaseRule
) -> list[tuple[EntryResult, tuple[CaseRule, ...], tuple[CaseRule, ...]]]:
    """The entries the patch keeps, changed or not, that a system of `case` only the patch's
    tags name reads anew, with those systems: the ones that read it as a module file and none
    of `base_case`'s as that module (an `__init__` in another case where paths open in any
    case, `pkg/ext/__INIT__.py`; a source whose suffix Windows lowers or lists, `pkg/ext.PY`,
    `pkg/ext.pyw`; an extension the system loads; w629c: a Linux base's harmless
    `__INIT__.py`, unchanged in a patch that adds Windows tags, was not reported, though the
    patch now installs where it makes `pkg/ext` a package); and the ones that read as no
    `__init__` one that each of the base's read as its package's (`pkg/ext/__INIT__.pyc` of a
    macOS or Windows base, in a patch that adds Linux)."""
    before = base_case.systems()
    new = tuple(system for system in case.systems() if system not in before)
    if not new:
        return []  # nearly every pair: the patch's systems read names as the base's did

    def read(path: str | None) -> tuple[tuple[CaseRule, ...], tuple[CaseRule, ...]]:
        if path is None or not path.startswith(SITE):
            return (), ()
        filename = path.rpartition("/")[2]
        olds = {module_name(filename, system) for system in before}
        names = [(system, module_name(filename, system)) for system in new]
        gained = tuple(system for system, name in names if name is not None and name not in olds)
        if olds != {"__init__"}:
            return gained, ()
        return gained, tuple(system for system, name in names if name != "__init__")

    unkept = (Status.ADDED, Status.MISSING)
    singles = entries.singles if isinstance(entries, EntryResults) else enumerate(entries)
    found = [
        (entry, *systems)
        for _, entry in singles
        if entry.status not in unkept and any(systems := read(entry.installed_path))
    ]
    for run in entries.runs if isinstance(entries, EntryResults) else ():
        for n, path in enumerate(run.installed_paths()):  # a run's result built where read
            if any(systems := read(path)):
                found.append((run.result(n), *systems))
    return found


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
        files = listing.get((head, _stem(name)), ())
        if found := [(p, new) for f, p, new in files if module_name(f, case) == name]:
            modules[key] = found
    return modules


def _shadows(
    listing: Listing,
    candidates: Sequence[EntryResult],
    case: CaseRule,
    base_case: CaseRule | None = None,
) -> Iterator[Finding]:
    """W628 for the files the patch adds (`candidates`) that shadow on the system of `case`;
    with `base_case`, files it keeps that only this system reads so (`_newly_read`), which make
    no package new where an `__init__` some system of the base's read is there."""
    added = [
        (entry, path, name)
        for entry in candidates
        if (path := entry.installed_path) is not None
        and path.startswith(SITE)
        and (name := module_name(path.rpartition("/")[2], case)) is not None
    ]
    if not added:
        return
    # Each added file's namesakes beside it, and a new package's namesake module in its parent.
    wanted = {f"{path.rpartition('/')[0]}/{name}" for _, path, name in added}
    wanted |= {path.rpartition("/")[0] for _, path, name in added if name == "__init__"}
    modules = _modules(listing, wanted, case)
    for entry, path, name in added:
        head, _, filename = path.rpartition("/")
        if name == "__init__" and path.count("/") >= 2 and not _already(modules, head, base_case):
            package = head
            shadowed = [
                file
                for file, _ in modules.get(package, ())
                if file != path and not file.startswith(package + "/")
            ]
            if shadowed:
                what = "package " + package[len(SITE) :] + "/"
                yield _finding(entry, path, package, shadowed, what, kept=base_case is not None)
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
            # An extension added beside its namesake (Cython compiling its own `.py`) is a
            # native change: `--allow-native-changes` covers it, never a new `.py` or
            # `__init__`, nor a kept extension the patch's tags alone make load (no native
            # change: an unchanged file that never ran now does).
            native = rank == _RANK[".so"] and base_case is None
            yield _finding(
                entry, path, dotted, over, path[len(SITE) :], native, base_case is not None
            )


def _already(
    modules: dict[str, list[tuple[str, bool]]], package: str, base_case: CaseRule | None
) -> bool:
    """Whether `package` was a package before a kept file made it one (`base_case`: the base's
    rule, None for a file the patch adds): an `__init__` there that some system of the base's
    read as one, which the finder takes as this one's too (`pkg/ext/__init__.py` beside a kept
    `pkg/ext/__INIT__.pyc`)."""
    return base_case is not None and any(
        module_name(file.rpartition("/")[2], system) == "__init__"
        for file, _ in modules.get(f"{package}/__init__", ())
        for system in base_case.systems()
    )


def _finding(
    entry: EntryResult,
    path: str,
    module: str,
    shadowed: list[str],
    what: str,
    native: bool = False,
    kept: bool = False,
) -> Finding:
    """`kept`: a file the patch keeps from its base, which a system only the patch's tags name
    reads as a module file (`_newly_read`)."""
    files = ", ".join(file.removeprefix(SITE) for file in sorted(shadowed))
    dotted = module.removeprefix(SITE).replace("/", ".")
    package = what.endswith("/")
    if kept:
        kind = f"makes {what}" if package else "is a module file"
        lead = (
            f"the patch's tags add {_ADDED} where {path.removeprefix(SITE)}, "
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


def _unmasked(
    listing: Listing, candidates: Sequence[EntryResult], case: CaseRule, kept: bool = False
) -> Iterator[Finding]:
    """The mirror of a new package: the patch removes `pkg/ext/__init__.py` (one of
    `candidates`, the entries it lacks) and keeps the base's `pkg/ext.py`, which the package
    shadowed (it never ran) and `import pkg.ext` now loads, listed identical. A package that
    keeps another `__init__` on the system of `case` still shadows it there. `kept`: the
    candidates are `__init__` files the patch keeps, which this system, one only its tags
    name, reads as none (`_newly_read`)."""
    removed = [
        (entry, path)
        for entry in candidates
        if (path := entry.installed_path) is not None
        and path.startswith(SITE)
        and path.count("/") >= 2
        and (kept or module_name(path.rpartition("/")[2], case) == "__init__")
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
            lead = (
                f"the patch's tags add {_ADDED} where {path.removeprefix(SITE)}, kept from a "
                "base whose every system read it as its package's __init__, is none,"
                if kept
                else f"the patch removes {path.removeprefix(SITE)}"
            )
            yield Finding(
                Code.W628,
                entry.base_path or entry.path,
                f"{lead} and keeps {shown}, which the package shadowed: 'import {dotted}' now "
                f"loads {shown}, code that never ran in the base",
            )
