"""Where each wheel file is looked up in the commit, and the blob ids compared there.

The place comes, in this order of trust, from `--source-prefix` (the user's word), from the
build configuration at the commit (`k3diff.provenance.buildconfig`: setuptools' `package_dir`,
hatchling's `sources`, maturin's `python-source`, which path-based detection cannot see), or
from detection by paths (`k3diff.provenance.prefix`). The configuration read is the root's, or,
where it states no mapping or one that does not hold the wheel's files, that of the directory
holding a configuration file at or above the place detection chose (SGLang's `python/`); a
root configuration that maps the wheel's package gives way only to one that maps it too. A
configured place must hold most of the wheel's Python files, counted as detection counts them,
or the run stops: the configuration read is then not the one this wheel was built with.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

from k3diff.errors import SourceError
from k3diff.escape import shortened
from k3diff.provenance.blobs import WheelFiles, wheel_blob_id
from k3diff.provenance.buildconfig import read_package_dirs
from k3diff.provenance.configdocuments import configuration_files, project_directory
from k3diff.provenance.configstops import stop_unread_config
from k3diff.provenance.git import SHORT_ID_LENGTH, GitRepo
from k3diff.provenance.packagedirs import PackageDirs, Stated, Unread
from k3diff.provenance.prefix import detect_prefix, normalize_prefix
from k3diff.provenance.projectstops import cmake_placed, stop_between
from k3diff.provenance.revisions import RepoNote
from k3diff.provenance.skbuildentries import generated_places
from k3diff.provenance.trees import CommitTree, link_over


@dataclass(frozen=True)
class SourceLayout:
    """How a wheel path becomes a repository path: under a package's configured directory, or
    under the prefix."""

    prefix: str
    """Repository directory ('' or ending in '/') of every path no `package_dirs` entry covers."""
    package_dirs: tuple[tuple[str, str], ...] = ()
    """(wheel directory, repository directory), both ending in '/', deepest first: the
    configuration's mapping for each directory it names (``pkg/`` -> ``src/realname/``), or
    for a module file it names (flit's ``mod.py`` -> ``src/mod.py``)."""
    origin: str = "detected"
    """``detected``, ``given``, or where the configuration was read
    (``pyproject.toml [tool.setuptools.package-dir]``)."""
    unread: str | None = None
    """Why a configuration found was not read (detection decided instead), else None."""
    project: str = ""
    """Directory ('' or ending in '/') of the project that builds the wheel: where the
    configuration read is, or the deepest holding one at or above the prefix (where detection
    or the user placed the package); its configuration says which modules the build writes."""

    @functools.cached_property
    def _mapped(self) -> dict[str, str]:
        return dict(self.package_dirs)

    @functools.cached_property
    def _longest(self) -> int:
        return max(map(len, self._mapped), default=0)

    def repo_path(self, path: str) -> str:
        """The repository path wheel path `path` is compared with: under the deepest of its
        directories a package is mapped from, else under the prefix. Its directories are
        looked up, never the mapping scanned (review69b: 20,000 mapped packages, as a 256 KiB
        setup.cfg holds, took 44 s for 10,000 wheel files)."""
        if (entry := self._entry(path)) is not None:
            head, repo_dir = entry
            return repo_dir + path[len(head) :]
        return self.prefix + path

    def maps(self, path: str) -> bool:
        """Whether a `package_dirs` entry covers wheel path `path`."""
        return self._entry(path) is not None

    def _entry(self, path: str) -> tuple[str, str] | None:
        """(wheel directory, repository directory) of the deepest entry covering `path`. Only
        its directories as long as the longest entry at most are looked up (review70a: each
        of the 30,000 of a 60 KB wheel path was hashed whole, 2 s a path, whatever the
        mapping)."""
        mapped = self._mapped
        if (own := mapped.get(path)) is not None:  # a module file's own entry (flit's mod.py)
            return path, own
        at = path.rfind("/", 0, self._longest) if mapped else -1
        while at >= 0:
            head = path[: at + 1]
            if (repo_dir := mapped.get(head)) is not None:
                return head, repo_dir
            at = path.rfind("/", 0, at)
        return None

    def describe(self) -> str:
        """``src/realname/ for pkg/ (from pyproject.toml [tool.setuptools.package-dir])``."""
        root = self.prefix or "(repository root)"
        places = [f"{repo or '(repository root)'} for {wheel}" for wheel, repo in self.package_dirs]
        if self.prefix or not places:
            places.append(f"{root} otherwise" if places else root)
        how = self.origin if self.origin in ("detected", "given") else f"from {self.origin}"
        if self.unread is not None:
            how += f"; {self.unread}"
        return f"{', '.join(places)} ({how})"


def configured_layout(package_dirs: PackageDirs, project: str = "") -> SourceLayout:
    """The configuration's mapping as a layout: its root entry the prefix, the others deepest
    first. Without a root entry the prefix is the project's directory (`project`, '' or
    ending in '/'), where setuptools finds a package the mapping does not name (prov70b took
    the repository's root: a subproject's `package_dir` for another package compared the
    package with a stale copy at the root, exit 0)."""
    dirs = dict(package_dirs.dirs)
    mapped = sorted(
        ((wheel, repo) for wheel, repo in dirs.items() if wheel),
        key=lambda pair: (-pair[0].count("/"), pair[0]),
    )
    return SourceLayout(dirs.get("", project), tuple(mapped), package_dirs.origin, project=project)


@dataclass(frozen=True)
class Lookup:
    """The wheel's blob ids and the tree of the commit they are looked up in."""

    tree: Mapping[str, str]
    links: frozenset[str]
    wheel_blobs: Mapping[str, str]
    layout: SourceLayout
    submodules: frozenset[str] = frozenset()
    """Every submodule's path in the commit (`trees.CommitTree.submodules`)."""

    @classmethod
    def build(
        cls,
        git: GitRepo,
        commit: str,
        listing: CommitTree,
        config: Stated,
        files: WheelFiles,
        prefix: str | None,
        rankings: Sequence[Collection[str]],
        placed: tuple[tuple[str, str], ...] | None = None,
    ) -> Lookup:
        """`listing`: the commit's tree; `config`: the root's build configuration there (read
        once per run, `setupstop.read_start`; not read with a `prefix`); `rankings`: the wheel
        paths that say where the package lives, most trusted first; `placed`: with a `prefix`,
        the files CMake installs over the package as `read_start` read them (else read here)."""
        tree, links, unread = listing.files, listing.links, listing.unfollowed
        wheel_blobs = {path: wheel_blob_id(data, git.object_format) for path, data in files.items()}
        if prefix is not None:
            place = normalize_prefix(prefix)
            project = project_directory(tree, links, place)
            over = cmake_placed(git, tree, unread, project) if placed is None else placed
            given = SourceLayout(place, over, "given", project=project)
            return cls(tree, links, wheel_blobs, given, listing.submodules)
        label = f"{git.label}: commit {commit[:SHORT_ID_LENGTH]}"
        layout = _source_layout(git, tree, links, unread, config, wheel_blobs, rankings, label)
        return cls(tree, links, wheel_blobs, layout, listing.submodules)

    def repo_path(self, path: str) -> str:
        """The repository path wheel path `path` is compared with (`SourceLayout.repo_path`)."""
        return self.layout.repo_path(path)

    def dropped_notes(self, dropped: Collection[str]) -> tuple[RepoNote, ...]:
        """W410 for each module the base wheel shipped and the patch lacks that the commit
        still holds where the package lives (prov68: the patch could drop a module, a guard
        imported only if present, and the source check passed); a symbolic link there, or at
        a directory above it, counts, as the build follows it (newuser68, review69), and so
        does a submodule holding it, whose files a recursive checkout holds (review69): k3diff
        follows neither, so the note says the module is there only if they lead to it."""
        notes = []
        for path in sorted(dropped):
            held = self.repo_path(path)
            link, submodule = link_over(self.links, held), link_over(self.submodules, held)
            if held in self.tree or link is not None or submodule is not None:
                message = f"{_where_held(held, link, submodule)} (the base wheel shipped it)"
                notes.append(RepoNote("W410", message, path))
        return tuple(notes)

    def matching(self, commit: str) -> dict[str, str]:
        """Wheel path -> `commit`, for the files identical to the tree's."""
        tree = self.tree
        return {
            p: commit for p, blob in self.wheel_blobs.items() if tree.get(self.repo_path(p)) == blob
        }


def _where_held(held: str, link: str | None, submodule: str | None) -> str:
    """What the commit holds at `held` (`link`, `submodule`: `trees.link_over`'s), said no
    further than k3diff reads: a link is not followed and a submodule not read, so the module is
    there only if they lead to it (prov70: under a dangling link the note said the module was
    at the source commit)."""
    lacks = "the patch wheel lacks it"
    if link == held:
        return (
            f"{held} is a symbolic link at the source commit, which k3diff does not follow: a "
            f"checkout holds the module there if the link leads to a file, and {lacks}"
        )
    if link is not None:
        return (
            f"{held} is under the symbolic link {link} at the source commit, which k3diff does "
            "not follow: a checkout holds the module there if the link leads to a directory "
            f"holding it, and {lacks}"
        )
    if submodule is not None:
        return (
            f"{held} is in the submodule {submodule} at the source commit, whose files k3diff "
            f"does not read: a recursive checkout holds the module there if the submodule "
            f"does, and {lacks}"
        )
    return f"{held} is at the source commit, but {lacks}"


def _source_layout(
    git: GitRepo,
    tree: Mapping[str, str],
    links: frozenset[str],
    unfollowed: frozenset[str],
    config: Stated,
    checked: Mapping[str, str],
    rankings: Sequence[Collection[str]],
    label: str,
) -> SourceLayout:
    """The root's configured layout where it holds the wheel's files; else detection's place,
    or the configured layout of the project holding it (SGLang's ``python/pyproject.toml``),
    which must hold them. The root's configuration not holding them stops the run unless
    detection places them in a project of its own and the root's configuration builds another
    package; where it maps this wheel's package, only a project whose own configuration maps
    it too may stand (review70a: a stray ``setup.py`` beside a legacy copy made the copy the
    package, and a file reverted to it matched, exit 0). `unfollowed`: the commit's links and
    submodules, for the readers of what a project's build runs (`trees.CommitTree.unfollowed`)."""
    root = configured_layout(config) if isinstance(config, PackageDirs) else None
    generated = functools.cache(functools.partial(generated_places, git, tree, links))
    if root is not None and _shortfall(root, tree, links, checked, rankings, generated) is None:
        return root
    try:
        found = detect_prefix(tree, checked, rankings, label=label)
    except SourceError:
        if root is not None:
            raise _not_held(root, tree, links, checked, rankings, generated, label, "") from None
        raise
    project = project_directory(tree, links, found)
    if not project:
        _in_a_project(tree, links, found, label)
    stop_between(git, tree, unfollowed, project)  # submod77: a submodule's modules unread
    if project:  # the root's was read with it (`setupstop.read_start`)
        stop_unread_config(git, tree, unfollowed, project)
    stated = read_package_dirs(git, tree, unfollowed, project) if project else None
    paths = (*rankings, checked)
    claimed = root is not None and _maps(config, root, paths)
    if isinstance(stated, PackageDirs):
        layout = configured_layout(stated, project)
        if root is not None and claimed and not _maps(stated, layout, paths):
            raise _not_held(root, tree, links, checked, rankings, generated, label, found)
        if _shortfall(layout, tree, links, checked, rankings, generated) is not None:
            raise _not_held(layout, tree, links, checked, rankings, generated, label, found)
        return layout
    if root is not None and (claimed or not project):
        raise _not_held(root, tree, links, checked, rankings, generated, label, found)
    forced: tuple[tuple[str, str], ...] = ()
    if isinstance(stated, Unread):
        unread: str | None = stated.reason
        forced = stated.files
    elif root is not None:
        unread = f"{root.origin} builds the root's project, and {project} is a project of its own"
    else:
        unread = config.reason if isinstance(config, Unread) else None
        forced = config.files if isinstance(config, Unread) and not project else ()
    return SourceLayout(found, tuple(sorted(forced)), "detected", unread, project)


def _in_a_project(tree: Mapping[str, str], links: frozenset[str], found: str, label: str) -> None:
    """Stop where detection places the package in no project (no configuration file at or
    above it, none at the root) while the commit holds projects elsewhere: none of them builds
    it from there, and the one that does may map it to another directory (fuzz70: with
    SGLang's ``python/pyproject.toml`` mapping ``pkg`` to ``python/realname``, a complete old
    copy ``legacy/pkg/`` was taken for the package and a file reverted to it matched, exit 0)."""
    files = configuration_files(tree, links)
    if not files or any("/" not in path for path in files):
        return
    more = f" (and {len(files) - 1:,} more)" if len(files) > 1 else ""
    raise SourceError(
        f"{label}: detection by paths places the package at {found or '(repository root)'!r}, "
        f"which no configuration builds (no pyproject.toml, setup.cfg or setup.py there, above "
        f"it or at the root), while {shortened(files[0], 200)!r}{more} is another project's: "
        "the package's directory is not known; name it with --source-prefix"
    )


def _maps(stated: Stated, layout: SourceLayout, paths: Sequence[Collection[str]]) -> bool:
    """Whether configuration `stated` (as `layout`) maps the wheel's package: it names the root
    of every package (setuptools' ``""``, maturin's `python-source`), or a directory of one of
    the wheel's Python files (`paths`)."""
    if not isinstance(stated, PackageDirs):
        return False
    if any(not wheel for wheel, _ in stated.dirs):
        return True
    return any(layout.maps(path) for group in paths for path in group)


GeneratedPlaces = Callable[[str], tuple[frozenset[str], frozenset[str]]]
"""A project's directory -> `generated_places` of its scikit-build-core ``generate``."""


def _shortfall(
    layout: SourceLayout,
    tree: Mapping[str, str],
    links: frozenset[str],
    checked: Mapping[str, str],
    rankings: Sequence[Collection[str]],
    generated: GeneratedPlaces,
) -> tuple[int, int] | None:
    """None where `layout` holds most of the wheel's Python files (the first count, as
    detection's, under which any is found), else (how many it holds, of how many). A file
    its project's ``[[tool.scikit-build.generate]]`` writes is not counted: the build writes
    it, the commit need not hold it (review73b: ``src/pkg/__init__.py`` and a generated
    ``pkg/_version.py`` held 1 of 2, and a real build of scikit-build-core's own example
    stopped the run)."""
    installed, sourced = generated(layout.project)
    counts = [
        kept
        for paths in (*rankings, checked)
        if (kept := [p for p in paths if p not in installed and layout.repo_path(p) not in sourced])
    ]
    if not counts:
        return None
    held, of = 0, len(counts[0])
    for paths in counts:
        held = sum(1 for p in paths if layout.repo_path(p) in tree or layout.repo_path(p) in links)
        if held:
            of = len(paths)
            break
    return None if 2 * held > of else (held, of)


def _not_held(
    layout: SourceLayout,
    tree: Mapping[str, str],
    links: frozenset[str],
    checked: Mapping[str, str],
    rankings: Sequence[Collection[str]],
    generated: GeneratedPlaces,
    label: str,
    found: str,
) -> SourceError:
    """A configured layout that does not hold the wheel's files, and where detection finds
    them (`found`, '' for nowhere or the root)."""
    held, of = _shortfall(layout, tree, links, checked, rankings, generated) or (0, 0)
    elsewhere = (
        f"; detection by paths finds them under {shortened(repr(found), 200)}" if found else ""
    )
    place = shortened(layout.describe().rpartition(" (")[0], 200)  # setup.py's may be 100 KB
    return SourceError(
        f"{label}: {layout.origin} places the package at {place}, "
        f"which holds at most {held:,} of {of:,} of the wheel's Python files{elsewhere}: the "
        "configuration read does not build this wheel; name the package's directory with "
        "--source-prefix"
    )
