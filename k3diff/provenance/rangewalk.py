"""For a range ``OLD..NEW``: the newest commit of the range holding each wanted file's version.

The candidates are the commits of ``git rev-list --topo-order NEW ^OLD`` (newest first)
followed by OLD itself: git's ``OLD..NEW`` excludes OLD, but a wheel built from OLD is exactly
the stale build the range check exists to catch, so OLD is the oldest candidate.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping, Sequence

from k3diff.errors import SourceError
from k3diff.provenance.git import GitRepo, edge_changes
from k3diff.provenance.trees import list_tree


def newest_matches(
    git: GitRepo,
    spec: str,
    ends: tuple[str, str],
    history: Sequence[tuple[str, tuple[str, ...]]],
    new_tree: Mapping[str, str],
    wanted: Mapping[str, str],
) -> dict[str, str]:
    """For each repo path in `wanted`, the newest candidate commit holding blob `wanted[path]`.

    Blob ids are carried from NEW down the history: a parent's version of a path is the child's
    unless the edge between them changes it. So a path needs checking only at NEW and where an
    edge changes it, and the first hit in topological order is the newest.
    """
    old, new = ends
    if not wanted:
        return {}
    edges = [(commit, parent) for commit, parents in history for parent in parents]
    try:  # diff-tree need only look under the directory the wanted paths share
        under = posixpath.commonpath(wanted)
    except ValueError:  # absolute and relative paths mixed: no single pathspec covers both
        under = ""
    changes = iter(edge_changes(git, edges, under, wanted))
    states: dict[str, dict[str, str | None]] = {new: {p: new_tree.get(p) for p in wanted}}
    touched: dict[str, Iterable[str]] = {}
    found: dict[str, str] = {}
    for commit, parents in history:
        values = states[commit]
        _record_hits(found, commit, values, touched.pop(commit, ()), wanted)
        for parent in parents:
            diff = next(changes)
            if parent not in states:
                states[parent], touched[parent] = _parent_state(values, diff, wanted)
    if old in states:
        _record_hits(found, old, states[old], touched.pop(old, wanted), wanted)
    elif git.shallow:
        raise SourceError(
            f"{git.label}: range {spec!r}: the history from NEW back to OLD is cut off in this "
            "shallow clone; fetch more history (git fetch --unshallow)"
        )
    else:  # OLD is not an ancestor of NEW: read its tree directly
        old_tree = list_tree(git, old).files
        _record_hits(found, old, {p: old_tree.get(p) for p in wanted}, wanted, wanted)
    return found


def _parent_state(
    values: dict[str, str | None], diff: Mapping[str, tuple[str | None, str | None]],
    wanted: Mapping[str, str],
) -> tuple[dict[str, str | None], list[str]]:  # fmt: skip
    changed = [path for path in diff if path in wanted]
    if not changed:
        return values, changed  # shared: nobody mutates a state once built
    parent_values = dict(values)
    for path in changed:
        parent_values[path] = diff[path][0]
    return parent_values, changed


def _record_hits(
    found: dict[str, str],
    commit: str,
    values: Mapping[str, str | None],
    paths: Iterable[str],
    wanted: Mapping[str, str],
) -> None:
    for path in paths:
        if path not in found and values[path] == wanted[path]:
            found[path] = commit
