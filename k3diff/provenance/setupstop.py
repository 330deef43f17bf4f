"""The source check's stops that need no wheel, asked before the wheels are compared.

A build setup k3diff cannot read (a ``setup.py`` running CMake, classic scikit-build,
py-build-cmake, a scikit-build-core CMake file not read) stops a `--source` run with exit 2,
but the stop came from the source check, after the whole wheel comparison (vLLM: ~19 s). The
repository's root configuration does not depend on the wheel, so it is read first, by the
same steps in the same order as `check.check_source` and `check.check_source_range` take
before it (the revision, the commit's tree, the root's build setup): the first stop they
would raise is raised at once, with the same message; nothing is kept, the check itself reads
it all again. With `--source-prefix` the check reads the build setup of the project holding
the given place, and of those above it, instead (`projectstops.cmake_placed`: a backend not
read, CMake it does not read; vllm76, review76a), and so does this."""

from __future__ import annotations

from pathlib import Path

from k3diff.provenance.buildconfig import project_directory, read_package_dirs
from k3diff.provenance.check import parse_range
from k3diff.provenance.git import check_revision_syntax, open_repo
from k3diff.provenance.prefix import normalize_prefix
from k3diff.provenance.projectstops import cmake_placed
from k3diff.provenance.revisions import resolve_revision
from k3diff.provenance.trees import list_tree


def stop_before_comparing(
    repo: Path, commit: str | None, commits: str | None, prefix: str | None
) -> None:
    """Raise the `SourceError` the source check of `commit` (or of NEW of `commits`, OLD..NEW)
    would raise reading the revision or the build setup (the root's, or with `prefix` the
    project's holding it); return where it would not."""
    if commit is not None:
        check_revision_syntax(str(repo), commit)
        git = open_repo(repo)
        new = resolve_revision(git, commit).commit
    else:
        assert commits is not None
        old_rev, new_rev = parse_range(str(repo), commits)
        git = open_repo(repo)
        resolve_revision(git, old_rev)
        new = resolve_revision(git, new_rev).commit
    listing = list_tree(git, new)
    if prefix is None:
        read_package_dirs(git, listing.files, listing.links)
        return
    tree, links = listing.files, listing.links
    cmake_placed(git, tree, links, project_directory(tree, links, normalize_prefix(prefix)))
