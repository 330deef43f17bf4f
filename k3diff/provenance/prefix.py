"""Where in the repository the wheel's package lives (``''``, ``src/``, ``python/`` …).

Every directory of the commit's tree under which a wheel path exists is a candidate. The winner
is the one under which the most of the wheel's Python files exist, counted first over the paths
that say where the package lives (the caller's `layout`, most trusted first: the base wheel's
Python files, then the patch wheel's, checked or not) and last over the checked files
themselves; then the shallowest, then the alphabetically first. The wheel's content plays no
part: when it did (ties broken on "most files match", over the checked files alone), a patch
that changed one file to the bytes of an old copy kept in the repository
(``tests/fixtures/v0_9/pkg/auth.py``) had that copy chosen as the package, and passed (review67).

A count the patch alone controls must not choose between places either: the candidates that
equal the winner on every count up to the first one it scores on (the base wheel's files, when
any of them is in the tree) must hold the same version of every checked file, or the run stops
and the user names the directory (``--source-prefix``): otherwise a patch that adds modules an
old full copy of the package has could outnumber the real one.

Nor may a place that holds only scraps of the package be taken for it: the winner must hold most
(more than half) of the paths of the count that decided it, or the run stops. A package shipped
under other names than the repository's (setuptools' ``package_dir``: ``src/pkg_impl/`` shipped as
``pkg/``) is found nowhere under its wheel paths, and an old copy of one of its files kept as
``tests/fixtures/pkg/auth.py`` was then the only candidate, chosen, and a patch reverting that file
to it matched (prov68).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from k3diff.errors import SourceError


def detect_prefix(
    tree: Mapping[str, str],
    checked: Mapping[str, str],
    layout: Sequence[Collection[str]] = (),
    *,
    label: str = "repository",
) -> str:
    """The repository directory the wheel's files live under (see the module docstring):
    `tree` maps repository paths to blob ids, `checked` the checked wheel paths to theirs;
    SourceError (prefixed with `label`) when candidates tie on different versions of a file."""
    rankings = [frozenset(paths) for paths in (*layout, checked)]
    anywhere = frozenset().union(*rankings)
    # Only a suffix as long as some wheel path can be one: a deep tree's long paths are not
    # sliced at every '/' (a path of 2,000 levels would cost 4 MB of copies per file).
    longest = max(map(len, anywhere), default=0)
    found: dict[str, list[int]] = {}
    for repo_path in tree:
        start = len(repo_path) - longest
        if start > 0:  # the first suffix boundary at or after it (just after a '/')
            start = repo_path.find("/", start - 1) + 1
            if start == 0:
                continue
        else:
            start = 0
        while True:
            rest = repo_path[start:]
            if rest in anywhere:
                tally = found.setdefault(repo_path[:start], [0] * len(rankings))
                for at, paths in enumerate(rankings):
                    tally[at] += rest in paths
            start = repo_path.find("/", start) + 1
            if start == 0:
                break
    if not found:
        return ""
    best = max(found.values())
    # The first count the winner scores on decides: candidates equal to it up to there are
    # contenders (the later, less trusted counts must not pick among them), and they must agree.
    decided = next((at + 1 for at, count in enumerate(best) if count), len(best))
    contenders = sorted(
        (p for p, tally in found.items() if tally[:decided] == best[:decided]), key=_shallow_first
    )
    for path in sorted(checked):
        if len({tree.get(prefix + path) for prefix in contenders}) > 1:
            raise SourceError(_ambiguous(label, contenders, path))
    winner = min((p for p, tally in found.items() if tally == best), key=_shallow_first)
    held, of = best[decided - 1], len(rankings[decided - 1])
    if 2 * held <= of:  # scraps of the package, not the package (see the module docstring)
        raise SourceError(_scattered(label, winner, held, of, decided - 1 < len(layout)))
    return winner


def _shallow_first(prefix: str) -> tuple[int, str]:
    return prefix.count("/"), prefix


_SHOWN = 3
"""Contending directories named in the error (a hostile tree may hold thousands of copies)."""


def _ambiguous(label: str, contenders: Sequence[str], path: str) -> str:
    shown = [repr(p) if p else "the repository root" for p in contenders[:_SHOWN]]
    if len(contenders) > _SHOWN:
        shown.append(f"{len(contenders) - _SHOWN:,} other directories")
    places = ", ".join(shown[:-1]) + f" and {shown[-1]}"
    return (
        f"{label}: the wheel's Python files are found as much under {places}, which hold "
        f"different versions of {path}: name the package's directory with --source-prefix"
    )


def _scattered(label: str, winner: str, held: int, of: int, wheel: bool) -> str:
    place = repr(winner) if winner else "the repository root"
    files = "the wheel's Python files" if wheel else "the checked files"
    return (
        f"{label}: no directory holds most of {files} under their wheel paths (at most {held:,} "
        f"of {of:,}, under {place}): the package is laid out under other names (package_dir?) "
        "or is not in this commit; name the package's directory with --source-prefix"
    )


def normalize_prefix(prefix: str) -> str:
    """'' or a repository directory ending in '/', whatever slashes the user typed."""
    cleaned = prefix.strip().removeprefix("./").strip("/")
    return f"{cleaned}/" if cleaned else ""
