"""What the source check reads before any wheel file: the revisions, the commit's tree and the
root's build setup, read once per run, before the wheels are compared.

A build setup k3diff cannot read (a ``setup.py`` running CMake, classic scikit-build,
py-build-cmake, a scikit-build-core CMake file not read) stops a `--source` run with exit 2,
but the stop came from the source check, after the whole wheel comparison (vLLM: ~19 s; holds75).
None of it depends on the wheel, so `read_start` reads it first, and the check
(`check.check_source`, `check.check_source_range`) starts from what it read: the repository
opened, each revision resolved, one listing of the commit's tree and one read of the root's
configuration per run (setupstop76: the check read them all again, a second ``cat-file`` walk of
every tree of the commit). A check called without a start reads its own, by the same function,
so the first stop is the same either way. With `--source-prefix` the root's setup is not read: the build setup of the project holding
the given place, and of those above it, is (`projectstops.cmake_placed`: a backend not read,
CMake it does not read; vllm76, review76a), and its first stop raised."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from k3diff.errors import SourceError
from k3diff.provenance.buildconfig import read_package_dirs
from k3diff.provenance.configdocuments import project_directory
from k3diff.provenance.configstops import stop_unread_config
from k3diff.provenance.git import GitRepo, check_revision_syntax, open_repo
from k3diff.provenance.packagedirs import Stated
from k3diff.provenance.prefix import normalize_prefix
from k3diff.provenance.projectstops import cmake_placed
from k3diff.provenance.revisions import Revision, resolve_revision
from k3diff.provenance.trees import CommitTree, list_tree


@dataclass(frozen=True)
class SourceStart:
    """The repository, the revisions and the commit's root, as the source check starts from."""

    git: GitRepo
    """The repository opened (`git.open_repo`)."""
    revisions: tuple[Revision, ...]
    """How each revision given resolved: REV, or OLD then NEW of ``OLD..NEW``."""
    listing: CommitTree
    """Every file, link and submodule of the commit compared (REV, or NEW)."""
    config: Stated
    """The root's build configuration at that commit (`buildconfig.read_package_dirs`); None
    also with `--source-prefix`, which does not read it."""
    head: str | None = None
    """The repository's HEAD commit, for a single revision; None for a range, or where HEAD
    names no commit (setupstop76: the W401 step's ``REV..HEAD`` is empty where REV is it)."""
    placed: tuple[tuple[str, str], ...] | None = None
    """With `--source-prefix`, (wheel path, repository path) of each file a scikit-build-core
    CMake at or above the place installs (`projectstops.cmake_placed`), for `lookup.Lookup`
    not to read them again (cmake77); None without it."""

    @property
    def commit(self) -> str:
        """The full id of the commit compared: REV, or NEW."""
        return self.revisions[-1].commit


def read_start(
    repo: Path, commit: str | None, commits: str | None, prefix: str | None
) -> SourceStart:
    """Open `repo`, resolve `commit` (or OLD then NEW of `commits`), list the commit's tree and
    read the root's build setup (with a `prefix`, the build setup of the project holding it),
    raising the `SourceError` the first of them stops on."""
    if commit is not None:
        check_revision_syntax(str(repo), commit)
        git = open_repo(repo)
        revisions: tuple[Revision, ...] = (resolve_revision(git, commit),)
        head = revisions[0].commit if commit == "HEAD" else head_commit(git)
    else:
        assert commits is not None
        old_rev, new_rev = parse_range(str(repo), commits)
        git = open_repo(repo)
        old_end = resolve_revision(git, old_rev)
        revisions, head = (old_end, resolve_revision(git, new_rev)), None
    listing = list_tree(git, revisions[-1].commit)
    tree, links = listing.files, listing.unfollowed  # submod77: a submodule's files unread
    if prefix is None:
        stop_unread_config(git, tree, links, "")
        config, placed = read_package_dirs(git, tree, links), None
    else:
        project = project_directory(tree, links, normalize_prefix(prefix))
        config, placed = None, cmake_placed(git, tree, links, project)
    return SourceStart(git, revisions, listing, config, head, placed)


def head_commit(git: GitRepo) -> str | None:
    """The commit the repository's HEAD names; None where it names none (an unborn branch)."""
    code, out, _err = git.run(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"])
    commit = out.decode("ascii", "replace").strip()
    return commit if code == 0 and commit else None


def parse_range(repo_label: str, commits: str) -> tuple[str, str]:
    """Split ``OLD..NEW`` into its two revisions, refusing anything else."""
    if "..." in commits:
        raise SourceError(f"{repo_label}: range {commits!r}: use OLD..NEW, not OLD...NEW")
    parts = commits.split("..")
    if len(parts) != 2 or not all(parts):
        raise SourceError(f"{repo_label}: range {commits!r} is not of the form OLD..NEW")
    for rev in parts:
        check_revision_syntax(repo_label, rev)
    return parts[0], parts[1]
