"""Python files of the commit that its build leaves out of the wheel, by the configuration.

hatchling leaves out what ``exclude`` (the wheel target's, else the build's) and its defaults
(``*.py[cdo]``, ``/dist``) match, files outside a package (a directory without
``__init__.py``) under ``only-packages``, what is under a directory its walk never enters
(``__pycache__``, ``.venv`` …), and, unless ``ignore-vcs``, what the ``.gitignore`` and the
``.hgignore`` nearest the project (at or above it, within the repository) name, a tracked file
too, matched in one list with ``exclude`` and the defaults (`_hatchling`);
scikit-build-core what ``wheel.exclude`` matches at its wheel path. A real build (hatchling
1.33) of a commit whose ``exclude`` names ``src/pkg/testing`` shipped no ``pkg/testing/``: a
patch wheel adding the commit's ``fake_auth.py`` there matched, exit 0 (now W412), and the
wheel the commit builds, after a base that shipped it, failed W410 (now not said).

Only what k3diff reads for certain is claimed (`ignorepatterns`): a pattern it does not read,
an ``artifacts`` pattern (which brings a file back), a build hook, an override table, or
hatchling's ``force-include`` or a file scikit-build-core's ``wheel.force-include`` names
shipping it (never excluded; ``wheel.exclude`` does reach what CMake installs) leaves a file
unclaimed. hatchling reads those VCS files only where no pattern of them matches the build's own
directory path (a project built under ``/tmp/build/`` beside a ``build/`` pattern reads none),
which the commit does not show: its exclusions are W412 (failing, waivable) but never drop a W410.
"""

from __future__ import annotations

import posixpath
from collections.abc import Collection, Mapping
from dataclasses import dataclass

from k3diff.provenance.configdocuments import CONFIG_CAP, HATCH_FILE, hatch_document, toml_document
from k3diff.provenance.git import GitRepo, blob_sizes, iter_blobs
from k3diff.provenance.hatchconfig import build_hook, exclude_first
from k3diff.provenance.ignorepatterns import Patterns, compiled
from k3diff.provenance.lookup import Lookup
from k3diff.provenance.revisions import RepoNote

HATCH_DEFAULTS = ("*.py[cdo]", "/dist")
"""hatchling's global exclusions (``default_global_exclude``)."""
HATCH_PRUNED = frozenset(
    {"__pycache__", ".venv", ".git", ".hg", ".hatch", ".tox", ".nox", ".ruff_cache"}
    | {".pytest_cache", ".mypy_cache", ".pixi"}
)
"""The directories hatchling's walk never enters, whatever a pattern says
(``EXCLUDED_DIRECTORIES``, 1.33)."""
_PLATLIB = ("${SKBUILD_PLATLIB_DIR}", "${SKBUILD_PURELIB_DIR}")
_UNLESS_OWN = " (unless a pattern names the build's own directory)"
_UNLESS_OLDER = " (unless an older hatchling builds it)"
_UNLESS_ABOVE = (
    " (unless a .gitignore or .hgignore above the repository takes it back: hatchling before"
    " 1.22 reads one there, after exclude)"
)
_EITHER = " (unless the hatchling that builds it reads its exclude and VCS files the other way)"
"""`HATCH_PRUNED` is 1.33's list, which releases grew: a W412, never a W410 waived."""


@dataclass(frozen=True)
class _Rule:
    patterns: Patterns
    origin: str
    """``pyproject.toml [tool.hatch.build.targets.wheel] exclude`` …"""
    hedge: str | None
    """None where it leaves the file out whatever directory the build runs in, else what may
    take it back (`_UNLESS_OWN`: hatchling reads no VCS file where one of its patterns names
    the build's own directory)."""
    on_wheel_path: bool = False
    """Matched against the wheel path (scikit-build-core), not the project path."""
    also: Patterns | None = None
    """Where set, the rule holds only where these patterns leave the file out too."""


@dataclass(frozen=True)
class LeftOut:
    """What the build at the commit leaves out, as far as k3diff reads it."""

    rules: tuple[_Rule, ...] = ()
    only_packages: str | None = None
    """Where ``only-packages`` is set, its origin."""
    artifacts: Patterns | None = None
    project: str = ""
    walks: tuple[str, ...] | None = None
    """hatchling's: where its walk starts (``only-include``'s directories, each ending in '/';
    () for the project's root), below which it enters no `HATCH_PRUNED` directory."""
    exempt: frozenset[str] | None = None
    """scikit-build-core's: the wheel paths ``wheel.force-include`` names as files, the only
    ones of the files forced or CMake installs over the packages that ``wheel.exclude`` does
    not reach (``_wheelfile.build``'s ``exclude_exempt``); None (hatchling): it reaches none."""

    def why(self, lookup: Lookup, path: str) -> tuple[str, str | None] | None:
        """(what leaves wheel path `path` out, None for certain or what may take it back),
        or None."""
        repo = lookup.repo_path(path)
        placed = path in dict(lookup.layout.package_dirs)  # forced in, or installed by CMake
        if placed and (self.exempt is None or path in self.exempt):
            return None  # hatchling's forced files, scikit-build-core's forced files
        if not repo.startswith(self.project):
            return None
        if repo not in lookup.tree:
            return None  # a link's or a submodule's: where the build finds it is not read
        relative = repo[len(self.project) :]
        if not placed and (pruned := self._pruned(relative)) is not None:
            return f"hatchling, which never walks a {pruned} directory,", _UNLESS_OLDER
        if self.artifacts is not None and self.artifacts.excludes(relative) is not False:
            return None
        for rule in self.rules:
            if placed and not rule.on_wheel_path:
                continue
            matched = path if rule.on_wheel_path else relative
            if rule.patterns.excludes(matched) and (
                rule.also is None or rule.also.excludes(matched)
            ):
                return rule.origin, rule.hedge
        if placed:
            return None
        package = posixpath.join(posixpath.dirname(repo), "__init__.py")
        held = package in lookup.tree or package in lookup.links  # a link the build follows
        if self.only_packages is not None and not held:
            return f"{self.only_packages} (no __init__.py beside it)", None
        return None

    def _pruned(self, relative: str) -> str | None:
        """The `HATCH_PRUNED` directory hatchling's walk would have to enter for project path
        `relative`, if any (src73: ``pkg/__pycache__/x.py`` was read as shipped, and a patch
        shipping the commit's matched, exit 0)."""
        if self.walks is None:
            return None
        root = next((w for w in self.walks if relative.startswith(w)), None)
        if root is None and self.walks:
            return None
        directories = relative[len(root or "") :].split("/")[:-1]
        return next((d for d in directories if d in HATCH_PRUNED), None)

    def notes(self, lookup: Lookup, shipped: Collection[str]) -> tuple[RepoNote, ...]:
        """W412 for each of `shipped` (the patch's files matching the commit) left out."""
        notes = []
        for path in sorted(shipped):
            if (why := self.why(lookup, path)) is not None:
                unless = why[1] or ""
                message = (
                    f"{lookup.repo_path(path)} is at the source commit, but {why[0]} leaves it "
                    f"out of the wheel the commit builds{unless}: the patch wheel ships it"
                )
                notes.append(RepoNote("W412", message, path))
        return tuple(notes)

    def kept(self, lookup: Lookup, dropped: Collection[str]) -> list[str]:
        """`dropped` less the modules the build leaves out for certain (no W410 for them)."""
        return [p for p in dropped if (why := self.why(lookup, p)) is None or why[1] is not None]


def left_out(git: GitRepo, lookup: Lookup) -> LeftOut:
    """What the build of the project `lookup` reads the package from leaves out (its
    configuration and the ``.gitignore`` files above it read at once: one ``git`` call)."""
    project, tree = lookup.layout.project, lookup.tree
    names = (f"{project}pyproject.toml", f"{project}{HATCH_FILE}")
    if any(name in lookup.links for name in names) or names[0] not in tree:
        return LeftOut()
    ignores = {name: _vcs_files(project, name) for name in (".gitignore", ".hgignore")}
    contents = _read(git, tree, (*names, *ignores[".gitignore"], *ignores[".hgignore"]))
    label = names[0]
    document = toml_document(contents.get(names[0], b""), label)
    system = {} if not isinstance(document, Mapping) else document.get("build-system")
    if not isinstance(document, Mapping) or not isinstance(system, dict):
        return LeftOut()
    backend = None if "backend-path" in system else system.get("build-backend")
    if backend == "scikit_build_core.build":
        return _scikit_build(document, label, project)
    if backend != "hatchling.build":
        return LeftOut()
    files = {HATCH_FILE: contents[names[1]]} if names[1] in contents else {}
    hatch = hatch_document(document, files, project, False, names[1] in tree)
    if not isinstance(hatch, tuple):
        return LeftOut()
    found: list[str] = []
    lines: list[str] | None = []
    for name, places in ignores.items():
        path = next((p for p in places if p in tree or p in lookup.links), None)
        if path is None:
            continue
        found.append(path)
        if path not in contents or lines is None:  # a link, or over the cap: not read
            lines = None
            continue
        text = _lines(contents[path].decode("utf-8", "replace"))
        lines += text if name == ".gitignore" else _hg_glob(text)
    return _hatchling(lookup, *hatch, found, lines)


def _hatchling(
    lookup: Lookup,
    document: Mapping[str, object],
    label: str,
    vcs_files: list[str],
    vcs_lines: list[str] | None,
) -> LeftOut:
    """`vcs_files`: the ``.gitignore`` and ``.hgignore`` hatchling reads, `vcs_lines` their
    patterns in its order (None where one is not read). hatchling matches one list, its
    defaults, then these, then ``exclude``, the last matching pattern deciding: a VCS file's
    negation takes back a default (a real build, hatchling 1.33: ``!/dist`` in
    ``.gitignore`` shipped ``dist/d.py``, ``!*.pyc`` a ``.pyc``; k3diff said they were left
    out for certain, and a patch dropping ``dist/d.py`` passed without W410), an
    ``exclude`` negation a VCS file's pattern. Where a VCS file's patterns may not apply
    (`_UNLESS_OWN`), a file left out with them and without them is left out for certain."""
    tool = document.get("tool")
    hatch = tool.get("hatch") if isinstance(tool, dict) else None
    build = hatch.get("build", {}) if isinstance(hatch, dict) else {}
    targets = build.get("targets", {}) if isinstance(build, dict) else None
    target = targets.get("wheel", {}) if isinstance(targets, dict) else None
    if not isinstance(build, dict) or not isinstance(target, dict) or build_hook(build, target):
        return LeftOut()

    def option(key: str) -> tuple[object, str]:
        table = "tool.hatch.build.targets.wheel" if key in target else "tool.hatch.build"
        return (target if key in target else build).get(key), f"{label} [{table}] {key}"

    exclude, origin = option("exclude")
    artifacts = _strings(option("artifacts")[0])
    only, only_origin = option("only-packages")
    ignore_vcs, _ = option("ignore-vcs")
    patterns = _strings(exclude)
    if patterns is None or artifacts is None:
        return LeftOut()
    bare = compiled([*HATCH_DEFAULTS, *patterns])
    rules = [_Rule(bare, origin, None)]
    order = exclude_first(document)
    if not ignore_vcs and (vcs_files or order is not False):
        vcs = _Vcs(vcs_files, vcs_lines, both=len(vcs_files) == 2)
        rules = []
        if order is not True:  # hatchling 1.22 on: defaults, the VCS files, then exclude
            rules += _vcs_rules(bare, patterns, origin, vcs, older=False)
        if order is not False:  # before 1.22: defaults, exclude, then the VCS files
            rules += _vcs_rules(bare, patterns, origin, vcs, older=True)
        if order is None:  # either may build it: nothing claimed for certain
            rules = [_Rule(r.patterns, r.origin, r.hedge or _EITHER, also=r.also) for r in rules]
    return LeftOut(
        tuple(rules),
        only_origin if only is True else None,
        compiled(artifacts) if artifacts else None,
        lookup.layout.project,
        _walks(option("only-include")[0]),
    )


@dataclass(frozen=True)
class _Vcs:
    """The ``.gitignore`` and ``.hgignore`` of the repository hatchling reads (nearest the
    project first) and their patterns in its order (None where one is not read)."""

    files: list[str]
    lines: list[str] | None
    both: bool
    """Both were found in the repository: hatchling before 1.22 reads none above it."""


def _vcs_rules(
    bare: Patterns, patterns: list[str], origin: str, vcs: _Vcs, *, older: bool
) -> list[_Rule]:
    """The rules of the one list hatchling matches, the last matching pattern deciding:
    from 1.22 the VCS files' patterns then ``exclude`` (`bare` with the defaults), before it
    ``exclude`` then the VCS files', which it looks for up past the repository's root
    (``locate_file`` with no ``.git`` boundary): a file of the build machine's there, read
    last, may take an exclusion back (a real build, hatchling 1.21.1: a ``.gitignore`` above
    the checkout saying ``!src/pkg/testing/`` shipped what ``exclude`` named)."""
    shown = " and ".join(vcs.files) or "no .gitignore"
    unread = Patterns((), f"{shown} not read")
    lines = vcs.lines
    if not older:
        whole = unread if lines is None else compiled([*HATCH_DEFAULTS, *lines, *patterns])
        return [
            _Rule(whole, origin, None, also=bare),
            _Rule(whole, f"hatchling, by {shown},", _UNLESS_OWN),
            _Rule(bare, origin, f" (unless {shown} takes it back)"),
        ]
    above = None if vcs.both else _UNLESS_ABOVE
    if not vcs.files:
        return [_Rule(bare, origin, above)]
    whole = unread if lines is None else compiled([*HATCH_DEFAULTS, *patterns, *lines])
    # review73 (hatchling 1.21.1, a real build): exclude = ["!src/pkg/testing/"] and a
    # .gitignore saying src/pkg/testing/ left pkg/testing/ out, the VCS files read last.
    last = unread if lines is None else compiled(lines)
    return [
        _Rule(last, f"hatchling before 1.22, by {shown} (read after exclude),", above),
        _Rule(whole, origin, above, also=bare),
        _Rule(bare, origin, f" (unless {shown} takes it back)"),
    ]


def _scikit_build(document: Mapping[str, object], label: str, project: str) -> LeftOut:
    """``wheel.exclude``, matched at each wheel path (``_wheelfile.build``); none where an
    ``[[tool.scikit-build.overrides]]`` table may set it."""
    tool = document.get("tool")
    skbuild = tool.get("scikit-build") if isinstance(tool, dict) else None
    skbuild = skbuild if isinstance(skbuild, dict) else {}
    wheel = skbuild.get("wheel")
    exclude = _strings(wheel.get("exclude")) if isinstance(wheel, dict) else None
    if not exclude or "overrides" in skbuild:
        return LeftOut()
    origin = f"{label} [tool.scikit-build] wheel.exclude"
    rule = _Rule(compiled(exclude), origin, None, on_wheel_path=True)
    return LeftOut((rule,), project=project, exempt=_forced_files(wheel))


def _forced_files(wheel: object) -> frozenset[str]:
    """The wheel paths ``wheel.force-include`` copies to, normalised: a file's is exempt
    from ``wheel.exclude``, a directory's members are not, and what CMake installs never is
    (review72a: ``wheel.exclude = ["pkg/sub/auth.py"]`` left the file ``install(FILES …)``
    put there out of a real build's wheel, and a patch shipping it matched, exit 0)."""
    table = wheel.get("force-include") if isinstance(wheel, dict) else None
    destinations = table.values() if isinstance(table, dict) else ()
    places = set()
    for dest in (d for d in destinations if isinstance(d, str)):
        head, _, rest = dest.partition("/")
        places.add(posixpath.normpath(rest if head in _PLATLIB else dest))
    return frozenset(places)


def _lines(text: str) -> list[str]:
    """`text`'s lines as hatchling reads them (``readlines`` of a file opened in text mode:
    ``\\r\\n``, ``\\r`` and ``\\n`` end a line; ``str.splitlines`` also split at ``\\x85``,
    ``\\x0b`` …, where hatchling's pattern goes on)."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def _strings(value: object) -> list[str] | None:
    """`value` as a list of strings ([] for none), or None for anything else."""
    if value is None:
        return []
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    return None


def _walks(only_include: object) -> tuple[str, ...] | None:
    """Where hatchling's walk starts: ``only-include``'s directories (each ending in '/'), ()
    for the project's root where none is given; None where it is not read."""
    if only_include is None:
        return ()
    if not isinstance(only_include, list) or not all(isinstance(p, str) for p in only_include):
        return None
    return tuple(posixpath.normpath(p).strip("/") + "/" for p in only_include)


def _hg_glob(lines: list[str]) -> list[str]:
    """The ``.hgignore`` lines hatchling reads as patterns: those after a ``syntax: glob``
    line, until another ``syntax: …`` (its default, regexp, is not read)."""
    found, glob = [], False
    for line in lines:
        exact = line.strip()
        if exact.startswith("syntax: "):
            glob = exact == "syntax: glob"
        elif glob:
            found.append(line)
    return found


def _vcs_files(project: str, name: str) -> list[str]:
    """Where hatchling looks for ``.gitignore`` (or ``.hgignore``), nearest first: the
    project's directory, then each above it to the repository's root (``locate_file``,
    bounded by ``.git``; an ``.hgignore`` above the repository is not seen)."""
    places = [project]
    while places[-1]:
        parent = places[-1][:-1].rpartition("/")[0]
        places.append(parent + "/" if parent else "")
    return [f"{place}{name}" for place in places]


def _read(git: GitRepo, tree: Mapping[str, str], paths: Collection[str]) -> dict[str, bytes]:
    """Each of `paths` the commit holds within `CONFIG_CAP`, by path."""
    held = {path: tree[path] for path in paths if path in tree}
    sizes = blob_sizes(git, held.values())
    wanted = sorted({oid for oid in held.values() if sizes[oid] <= CONFIG_CAP})
    blobs = dict(iter_blobs(git, wanted))
    return {path: blobs[oid] for path, oid in held.items() if oid in blobs}
