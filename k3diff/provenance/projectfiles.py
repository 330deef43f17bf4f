"""The files of the project that builds the wheel, at the commit, as the version readers read
them (`builtversion`, `setupversion`): capped, a symbolic link not followed, a path that leaves
the repository not read."""

from __future__ import annotations

import posixpath
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

from k3diff.provenance.configdocuments import CONFIG_CAP
from k3diff.provenance.git import GitRepo, blob_sizes, iter_blobs
from k3diff.provenance.trees import link_over
from k3diff.provenance.versionsources import Said


@dataclass(frozen=True)
class Built:
    """The version the commit's build writes, and where its configuration says it."""

    version: str
    origin: str
    """``pyproject.toml [project] version``, ``src/pkg/__init__.py (pyproject.toml
    [tool.hatch.version] path)``."""


@dataclass(frozen=True)
class ProjectFiles:
    """The files of the building project at the commit, read on demand and capped."""

    git: GitRepo
    tree: Mapping[str, str]
    links: Collection[str]
    directory: str
    """The project's directory ('' or ending in '/')."""
    submodules: frozenset[str] = frozenset()
    """Every submodule's path in the commit (`trees.CommitTree.submodules`)."""
    _read: dict[str, bytes | Said] = field(default_factory=dict, compare=False, repr=False)
    """What `read` and `prefetch` read, by path."""
    in_submodules: dict[str, str] = field(default_factory=dict, compare=False, repr=False)
    """Path -> submodule of each file `read` was asked for that lies in a submodule: a
    recursive checkout holds another repository's file there, which k3diff does not read
    (source78: a version read from one was said "not checked", exit 0)."""

    def path(self, relative: object) -> str | None:
        """`relative` (a string) as a repository path under the project; None for no string,
        or one that leaves the repository."""
        if not isinstance(relative, str) or not relative.strip() or "\0" in relative:
            return None
        if relative.startswith(("/", "~")) or "\\" in relative or len(relative) > 4096:
            return None
        joined = posixpath.normpath(self.directory + relative.strip())
        return None if joined == ".." or joined.startswith(("../", "/")) else joined

    def holds(self, path: str) -> bool:
        """Whether a checkout of the commit has a file at `path`: a blob, a link, or one in a
        submodule (another repository's, which `read` says is not read)."""
        return (
            path in self.tree or path in self.links or link_over(self.submodules, path) is not None
        )

    def read(self, path: str) -> bytes | Said:
        """The file at repository path `path`, or why it is not read."""
        if path in self.links:
            return Said(f"{path} is a symbolic link, not read")
        if path not in self.tree:
            if (submodule := link_over(self.submodules, path)) is not None:
                self.in_submodules[path] = submodule
                return Said(
                    f"{path} is in the submodule {submodule}, whose files k3diff does not read"
                )
            return Said(f"the commit holds no file {path}")
        if path not in self._read:
            self.prefetch([path])
        return self._read[path]

    def prefetch(self, paths: Collection[str]) -> None:
        """Read those of `paths` the commit holds as files, together: one size check and one
        read for all (each git call costs some 5 ms; read one by one, a setup.cfg project's
        version took six)."""
        wanted = {p: self.tree[p] for p in paths if p in self.tree and p not in self._read}
        sizes = blob_sizes(self.git, wanted.values())
        over = {p for p, oid in wanted.items() if sizes[oid] > CONFIG_CAP}
        for path in over:
            self._read[path] = Said(f"{path} is over {CONFIG_CAP // 1024} KiB, not read")
        small = sorted({oid for p, oid in wanted.items() if p not in over})
        contents = dict(iter_blobs(self.git, small))
        for path, oid in wanted.items():
            if path not in over:
                self._read[path] = contents[oid]

    def named(self, relative: object, setting: str) -> tuple[str, bytes] | Said:
        """(repository path, bytes) of the project file `setting` names as `relative`."""
        path = self.path(relative)
        if path is None:
            return Said(f"{setting} names no file in the repository")
        data = self.read(path)
        return data if isinstance(data, Said) else (path, data)
