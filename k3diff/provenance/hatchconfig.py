"""Where hatchling's wheel target takes its files from, read from a parsed pyproject.toml.

hatchling walks the directories its selection names (``only-include``, else ``packages``) and
ships each file at the path its ``sources`` rewrite gives:

* ``sources`` maps project directories to wheel directories (``"src/realname" = "pkg"``: the
  wheel's ``pkg/auth.py`` is ``src/realname/auth.py``); its list form maps each to the wheel's
  root (``sources = ["src"]``: ``src/pkg/`` ships as ``pkg/``);
* each of ``packages`` whose own directory no source names adds its parent as a source mapped
  to the root (``packages = ["src/pkg"]`` ships ``src/pkg/`` as ``pkg/``);
* the sources are tried in sorted order and the first a path starts with rewrites it, so a
  source under another (``src/`` and ``src/impl/``) never applies.

Each option is the wheel target's (``[tool.hatch.build.targets.wheel]``) where it states it,
else the build's (``[tool.hatch.build]``). Without ``packages`` or ``only-include`` hatchling
chooses by the project's name (default file selection): detection by paths decides, and
``sources`` stated then is `Unread`. So is what cannot be put as wheel directory -> project
directory: a selected file (``only-include = ["mod.py"]``), two directories shipped as one, a
path that leaves the project. A ``force-include`` entry (project path -> wheel path, the
destination rewritten by ``sources`` too) ships its file, or each file of its directory, after
the selected ones, the later copy winning: each is mapped from its own place (`_forced_over`).
A build hook (``[tool.hatch.build.hooks.<name>]``, the wheel target's ``hooks``) other than
hatch-vcs' version file runs code that may ship files the configuration does not say: the
settings are `Unread`. hatchling reads ``hatch.toml`` beside ``pyproject.toml`` over
``[tool.hatch]`` (`configdocuments.hatch_document` merges it before this reader).
"""

from __future__ import annotations

import bisect
import posixpath
from collections.abc import Callable, Iterator, Mapping

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import Specifier
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from k3diff.escape import shortened
from k3diff.provenance.packagedirs import PackageDirs, Stated, Unread, forced_files

PATH_CAP = 4096
"""Longest path read from the configuration (characters; Linux's PATH_MAX): a longer one names
no file of a commit, and looking up each of its directories would cost its length squared."""
_TARGET = "tool.hatch.build.targets.wheel"
_BUILD = "tool.hatch.build"


def from_hatch(
    document: Mapping[str, object],
    label: str,
    is_file: Callable[[str], bool],
    files_under: Callable[[str], list[str]],
) -> Stated:
    """The wheel target's layout (`is_file`: whether a project path is a file of the commit;
    `files_under`: the project paths of the commit's files under a directory, '' the root)."""
    tool = document.get("tool")
    hatch = tool.get("hatch") if isinstance(tool, dict) else None
    build = hatch.get("build", {}) if isinstance(hatch, dict) else {}
    targets = build.get("targets", {}) if isinstance(build, dict) else None
    target = targets.get("wheel", {}) if isinstance(targets, dict) else None
    if not isinstance(build, dict) or not isinstance(target, dict):
        return Unread(f"{label}'s [{_BUILD}] or [{_TARGET}] is not a table, not read")
    options = _Options(label, build, target)
    if (hook := build_hook(build, target)) is not None:
        return Unread(
            f"{label} [{shortened(hook, 200)}] configures a build hook, which may ship files the "
            "configuration does not say (force-include, artifacts, files it writes): not read"
        )
    packages = options.paths("packages")
    if isinstance(packages, Unread):
        return packages
    only_include = options.paths("only-include")
    if isinstance(only_include, Unread):
        return only_include
    sources = options.sources()
    if isinstance(sources, Unread):
        return sources
    forced = options.get("force-include")
    if forced is not None and not (
        isinstance(forced, dict) and all(isinstance(v, str) for v in forced.values())
    ):
        return Unread(f"{options.origin()}: force-include is not a table of paths, not read")
    if forced and any(len(k) > PATH_CAP or len(v) > PATH_CAP for k, v in forced.items()):
        return Unread(
            f"{options.origin()}: force-include names a path over {PATH_CAP:,} characters"
        )
    selected = only_include or packages
    if not selected:
        if options.used:
            return Unread(
                f"{options.origin()} without packages or only-include: hatchling selects the "
                "files by the project's name, which is not read",
                _forced_anyway(forced or {}, sources, is_file, files_under),
            )
        return None
    for package in packages:
        parent = posixpath.dirname(package)
        if parent and package + "/" not in sources:
            sources[parent + "/"] = ""
    for path in selected:
        if is_file(path):
            return Unread(f"{options.origin()} selects the file {path}, not a directory: not read")
    layout = _layout(selected, sources, options.origin())
    return _forced_over(layout, forced or {}, sources, is_file, files_under)


def _forced_over(
    stated: Stated,
    forced: Mapping[str, str],
    sources: Mapping[str, str],
    is_file: Callable[[str], bool],
    files_under: Callable[[str], list[str]],
) -> Stated:
    """`stated` with each file a ``force-include`` entry (project path -> wheel path, the
    destination rewritten by ``sources``) ships mapped from its own place
    (`packagedirs.forced_files`), or `Unread`."""
    if not isinstance(stated, PackageDirs) or not forced:
        return stated
    keys = sorted(sources)
    places = (
        (
            _forced_place(dest, sources, keys),
            _forced_source(source),
            shortened(f"{source!r} to {dest!r}", 400),
        )
        for source, dest in forced.items()
    )
    files = forced_files(places, dict(stated.dirs), is_file, files_under)
    if isinstance(files, str):
        return Unread(f"{stated.origin}: force-include copies {shortened(files, 600)}: not read")
    dirs = dict(stated.dirs) | files
    return PackageDirs(tuple(sorted(dirs.items())), stated.origin)


def _forced_anyway(
    forced: Mapping[str, str],
    sources: Mapping[str, str],
    is_file: Callable[[str], bool],
    files_under: Callable[[str], list[str]],
) -> tuple[tuple[str, str], ...]:
    """The files `forced` ships, each from its place, where the selection is not read: they
    stand over whatever detection places there (`Unread.files`); none where an entry is not
    read either."""
    stated = _forced_over(PackageDirs((), ""), forced, sources, is_file, files_under)
    return stated.dirs if isinstance(stated, PackageDirs) else ()


VERSION_HOOK_KEYS = frozenset(
    {"version-file", "template", "enable-by-default", "dependencies"}
    | {"require-runtime-dependencies", "require-runtime-features"}
)
"""hatch-vcs' build hook settings: it writes `version-file` only, which `versionconfig` reads
(a module the build writes) and no other file."""


def build_hook(build: Mapping[str, object], target: Mapping[str, object]) -> str | None:
    """The table of a build hook the wheel's build runs other than hatch-vcs' version file,
    if any: each of the build's ``hooks`` and the wheel target's (the target's in place of the
    build's of the same name) runs, a custom one's ``hatch_build.py`` (or its ``path``) or a
    plugin's code, and may add ``force_include`` entries and artifacts or rewrite files
    (review71d: with a custom hook forcing a fixed file over a legacy copy the packages named,
    the legacy copy was compared and a wheel reverting to it matched, exit 0). One whose
    ``enable-by-default`` is false counts too: an environment variable of the build enables
    it (``HATCH_BUILD_HOOKS_ENABLE``), which the commit does not show."""
    hooks: dict[str, tuple[str, object]] = {}
    for table, config in (
        ("tool.hatch.build.hooks", build.get("hooks")),
        ("tool.hatch.build.targets.wheel.hooks", target.get("hooks")),
    ):
        if config is None:
            continue
        if not isinstance(config, dict):
            return table
        hooks |= {name: (f"{table}.{name}", value) for name, value in config.items()}
    for name, (table, value) in sorted(hooks.items()):
        if name != "vcs" or not isinstance(value, dict) or not set(value) <= VERSION_HOOK_KEYS:
            return table
    return None


def _layout(selected: list[str], sources: Mapping[str, str], origin: str) -> Stated:
    """wheel directory -> project directory for each selected directory, and for each source
    inside one that rewrites its own files (sources and directories end in '/')."""

    def first_source(path: str) -> str | None:
        """The source hatchling rewrites `path` by: of those it starts with, the first in
        sorted order, which is the shortest (looked up by `path`'s directories, never by
        scanning every source: a 256 KiB table may hold 20,000)."""
        return next((d for d in _directories(path) if d in sources), None)

    roots = {root + "/" for root in selected}
    pairs = []
    for root in sorted(roots):
        source = first_source(root)
        pairs.append((root if source is None else sources[source] + root[len(source) :], root))
    for source, wheel in sorted(sources.items()):
        inside = any(d in roots for d in _directories(source) if d != source)
        if inside and first_source(source) == source:
            pairs.append((wheel, source))
    entries: dict[str, str] = {}
    for wheel, repo in pairs:
        if entries.setdefault(wheel, repo) != repo:
            shown = wheel or "the wheel's root"
            return Unread(f"{origin} ships both {entries[wheel]} and {repo} as {shown}: not read")
    return PackageDirs(tuple(sorted(entries.items())), origin)


def _forced_place(dest: str, sources: Mapping[str, str], keys: list[str]) -> str:
    """The wheel path a ``force-include`` destination lands at: normalised as hatchling does
    (`_relative`), then rewritten by the first source its path starts with, as each file is;
    '' (the root, never read) for one leaving the project, or a directory some source under it
    rewrites in part (`keys`: the sources, sorted)."""
    wheel = _relative(dest)
    if not wheel:
        return ""
    inside = wheel + "/"
    at = bisect.bisect_right(keys, inside)
    if at < len(keys) and keys[at].startswith(inside):
        return ""
    source = next((d for d in _directories(inside) if d in sources), None)
    return wheel if source is None else (sources[source] + inside[len(source) :]).rstrip("/")


def _forced_source(path: str) -> str | None:
    """A ``force-include`` source as hatchling resolves it, relative to the project ('.' its
    root), or None for one outside it, absolute or in a home directory (``~``)."""
    if path.startswith(("~", "/")) or "\\" in path or "\0" in path:
        return None
    cleaned = posixpath.normpath(path)
    return None if cleaned == ".." or cleaned.startswith("../") else cleaned


def _directories(path: str) -> Iterator[str]:
    """'' and each directory `path` starts with, shortest first (`path` itself when it ends
    in '/')."""
    yield ""
    at = path.find("/")
    while at >= 0:
        yield path[: at + 1]
        at = path.find("/", at + 1)


class _Options:
    """The wheel target's options, each the target's or else the build's, and which were used."""

    def __init__(
        self, label: str, build: Mapping[str, object], target: Mapping[str, object]
    ) -> None:
        self.label, self.build, self.target = label, build, target
        self.used: dict[str, list[str]] = {}
        """table -> the keys read from it, for the origin."""

    def get(self, key: str) -> object:
        table, config = (_TARGET, self.target) if key in self.target else (_BUILD, self.build)
        if key not in config:
            return None
        self.used.setdefault(table, []).append(key)
        return config[key]

    def origin(self) -> str:
        """``pyproject.toml [tool.hatch.build.targets.wheel] packages and sources``."""
        tables = [f"[{table}] {' and '.join(keys)}" for table, keys in sorted(self.used.items())]
        return f"{self.label} {', '.join(tables)}"

    def paths(self, key: str) -> list[str] | Unread:
        """`packages` or `only-include`: project paths, normalised as hatchling does."""
        value = self.get(key)
        if value is None:
            return []
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            return Unread(f"{self.origin()}: {key} is not a list of paths, not read")
        if any(len(v) > PATH_CAP for v in value):
            return Unread(f"{self.origin()}: {key} names a path over {PATH_CAP:,} characters")
        paths = [_relative(v) for v in value]
        for given, path in zip(value, paths, strict=True):
            if not path:  # hatchling walks the whole project for '.', and refuses '..'
                return Unread(
                    f"{self.origin()}: {key} names {given!r}, not a directory in the project"
                )
        return sorted(p for p in paths if p)

    def sources(self) -> dict[str, str] | Unread:
        """`sources`: project directory -> wheel directory, each '' or ending in '/'."""
        value = self.get("sources")
        if value is None:
            return {}
        if isinstance(value, list) and all(isinstance(v, str) and v for v in value):
            value = dict.fromkeys(value, "")
        if not isinstance(value, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in value.items()
        ):
            return Unread(f"{self.origin()}: sources is not a list or table of paths, not read")
        if any(len(k) > PATH_CAP or len(v) > PATH_CAP for k, v in value.items()):
            return Unread(f"{self.origin()}: sources names a path over {PATH_CAP:,} characters")
        sources = {}
        for source, wheel in value.items():
            repo, shipped = _relative(source), _relative(wheel)
            if repo is None or shipped is None or (source and not repo):  # '.' matches nothing
                return Unread(
                    f"{self.origin()}: sources maps {source!r} to {wheel!r}, not a directory in "
                    "the project to one in the wheel"
                )
            sources[repo + "/" if repo else ""] = shipped + "/" if shipped else ""
        return sources


def _relative(path: str) -> str | None:
    """`path` normalised as hatchling normalises it (`os.path.normpath`, then '/' stripped at
    both ends: ``/src/realname`` is ``src/realname``, review70a: it was not read, and detection
    took a legacy copy), '' for the project's root; None for one outside it (``..``, ``~``),
    or one holding a backslash or NUL."""
    if path.startswith("~") or "\\" in path or "\0" in path:
        return None
    cleaned = posixpath.normpath(path).strip("/")
    if cleaned == ".":
        return ""
    if cleaned == ".." or cleaned.startswith("../"):
        return None
    return cleaned


_NEW_ORDER = Version("1.22")
"""The first hatchling reading ``exclude`` after the VCS files (1.21.1 reads it before)."""


def exclude_first(document: Mapping[str, object]) -> bool | None:
    """Whether the hatchling `document`'s ``[build-system] requires`` installs reads
    ``exclude`` before the VCS files: True where every version it allows is before 1.22
    (``hatchling<1.22``, ``==1.21.1``, ``~=1.21.0``), False where it allows a later one (the
    newest is what an isolated build installs), None where k3diff cannot say (a marker, a
    URL, a requirement that is not one)."""
    system = document.get("build-system")
    requires = system.get("requires") if isinstance(system, dict) else None
    if not isinstance(requires, list) or not all(isinstance(r, str) for r in requires):
        return None
    capped = False
    for line in requires:
        try:
            requirement = Requirement(line)
        except InvalidRequirement:
            return None
        if canonicalize_name(requirement.name) != "hatchling":
            continue
        if requirement.marker is not None or requirement.url:
            return None
        capped = capped or any(_below(spec) for spec in requirement.specifier)
    return capped


def _below(spec: Specifier) -> bool:
    """Whether `spec` allows only versions before `_NEW_ORDER`."""
    operator, text = spec.operator, spec.version
    try:
        if operator in ("==", "~=") and (operator == "~=" or text.endswith(".*")):
            release = Version(text.removesuffix(".*")).release
            prefix = release[:-1] if operator == "~=" else release
            return prefix < (_NEW_ORDER.release + (0,) * len(prefix))[: len(prefix)]
        version = Version(text)
    except InvalidVersion:
        return False
    if operator == "<":
        return version <= _NEW_ORDER
    return operator in ("<=", "==", "===") and version < _NEW_ORDER
