"""A wheels document given with its two wheels is believed only as far as `k3diff wheels`, run again
on them with the document's own settings, writes the same document (forge61, forge62).

A `k3diff.wheels/1` document is checked against itself (`k3diff.documents.checks`), but what it
does not hold (the wheels' RECORD, their contents) cannot be re-derived from it: a W302 deleted, or
relabelled W501, with the verdict edited to pass, agrees with itself (review61a). Where both wheels
the document names (by SHA-256) are among `report`'s inputs, `wheels` runs again on them
(`wheelsrerun`) and the two documents are compared whole, naming the first field that differs
(exit 2). The settings are
the ones the document records in `rerun` (forge62: the policy, the waivers as parsed and the day
they were judged on, the protected commands, `--explain`, `--file-hash`, and the source check's
commits by full id), under the wheels' names as the document gives them (a waiver's `artifact` glob
matches those). A `--source` document is checked against its repository too when a directory among
the inputs holds the recorded commit (`wheelsource`); without one, `wheels` runs again without
`--source` and the document's source claims are its word alone (the bundle says so); a stated
commit the directory lacks is said so, not as a difference (`wheelsource.stated_not_held`). A
document written before `rerun` is run again with the settings its findings show
(`--allow-native-changes`, `--allow-bytecode`, `--select`, `--ignore`, `--explain`); one made with
`--waivers` or `--source` is refused with its wheels. A wheel it (or a release set's pair, or a set
of files' wheel on one side only) records, given under its name but rebuilt since, is named with
every other input changed (`changedinputs`, report67). A wheels document read without its wheels is
judged from itself alone, and the bundle says so (`alone_qualification`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from k3diff.bundle import changedinputs, runagain, wheelsource
from k3diff.bundle.changedinputs import changed_unpaired, changed_wheels
from k3diff.bundle.difference import first_difference, older_lacks
from k3diff.bundle.givenfiles import Copies, inputs_read
from k3diff.bundle.stale import problem
from k3diff.bundle.wheelnames import digests_given, named_copies
from k3diff.bundle.wheelsrerun import wheels_again
from k3diff.docbody import Kind
from k3diff.documents.read import Document
from k3diff.errors import InputError

OLDER = frozenset({"rerun"})
"""What a document written before forge62 lacks that `wheels` writes today: its settings,
which its rerun infers from its findings instead (as before)."""
ADDED = (
    *("base.stated_commits", "patch.stated_commits", "base.not_commits", "patch.not_commits"),
    *("provenance.prefix_from", "provenance.package_dir", "provenance.package_dir_unread"),
    "provenance.head_commit",
)
"""Fields added since `rerun`, in order (claim67: each wheel's stated commits; w408b: values in
a commit's place that are none; prov69: where the build configuration placed the package;
setupstop76: the clone's HEAD); a document lacking them is older (`older_lacks`)."""

WheelRead = tuple[str, str, int]
"""A wheel `report` ran `wheels` again on: its name as given, SHA-256 and size in bytes."""


class Checked(NamedTuple):
    """A wheels document `wheels`, run again, reproduced."""

    wheels: tuple[WheelRead, ...]
    """The two wheels it was run again on (the bundle lists them among its inputs)."""
    repository: str | None
    """The repository (as given) its source check was run again in; None when none was."""
    source_alone: bool
    """It checked `--source`, and its source claims were judged from the document alone."""
    by_name: bool = False
    """It records no SHA-256 (`--no-file-hash`): its wheels were found by name and size."""
    names: tuple[wheelsource.NameCheck, ...] = ()
    """Its revision names, checked in the repository given (`wheelsource.names_checked`)."""
    storage: tuple[str, ...] = ()
    """Where the repository given stores the commit's history otherwise, a qualification."""


def _check_one(
    name: str,
    body: dict[str, Any],
    given: dict[str, tuple[Path, int]],
    repos: Sequence[Path],
    stale: list[runagain.StaleDocument],
    whole: tuple[str, dict[str, Any], list[list[str]] | None] | None = None,
    claimed: frozenset[str] = frozenset(),
    copies: Copies | None = None,
) -> tuple[Checked, set[Path]] | None:
    """`wheels` run again on the two wheels a wheels document (`body`: one given, or a pair of
    a release set) names, when both are `given`: what it was run on, and the files it tied;
    the refusal added to `stale` where it does not reproduce the document, naming the command that writes it
    again (a pair's: `whole`, its release set's name, body and sides as given to `report`:
    `runagain.given_sides`). None: its wheels are not given. `copies`: every wheel given of
    each SHA-256 (`givenfiles.Copies`), the one of the file name recorded run again on."""
    digests = digests_given(body, given)
    if digests is None or whole is not None:  # a wheel changed since (report67), or none given
        # (a pair of a set's directories: a side's wheel the other side holds, changed in its own)
        changed = changed_wheels(name, body, given, stale, whole, claimed, repos)
        if changed is not None:  # refused: not run again
            return Checked((), None, False), changed
        if digests is None:
            return None
    held = {d: (copies or {}).get(d, (given[d][0],)) for d in digests}
    paths = named_copies(body, digests, held)
    if isinstance(paths, str):  # not run again: what it reads off a name would be read off another
        files = tuple(dict.fromkeys(path for d in digests for path in held[d]))
        document = name if whole is None else whole[0]
        stale.append(runagain.StaleDocument(f"{name}: {paths}", document, files))
        return Checked((), None, False), set(files)
    tied = set(paths)
    again = wheels_again(body, *paths, name, repos)
    if again.repository is not None:
        tied.add(again.repository)
    stated, found, recorded, now = wheelsource.compared(
        body, again.document, again.source_alone, again.repository is not None
    )
    difference = (
        found
        if isinstance(found, str)
        else first_difference(
            stated,
            found,
            may_lack=(frozenset() if "rerun" in body else OLDER) | older_lacks(body, ADDED),
        )
    )
    unheld = wheelsource.stated_not_held(name, body, again.document, again.repository)
    if difference is not None and unheld:  # the clone lacks a stated commit (prov69)
        stale.append(runagain.StaleDocument(unheld, name))
    elif difference is not None:
        used = f" and the repository {again.repository}" if again.repository else ""
        if whole is None:
            written, command = name, runagain.wheels_args(body, *paths, again.repository)
        else:  # a pair is written by its release set's command
            written, body_of_set, sides = whole
            command = runagain.wheelset_args(body_of_set, sides, again.repository)
        stale.append(
            runagain.refusal(
                name,
                "wheels",
                f"wheels run again on {paths[0]} and {paths[1]}{used}",
                difference,
                "give the document the wheels it was made from, or "
                + runagain.again(command, written, "wheels"),
                document=written,
            )
        )
    inputs = inputs_read(given, zip(digests, paths, strict=True))
    repository = None if again.repository is None else str(again.repository)
    by_name = body["base"].get("sha256") is None
    names = (
        ()
        if again.repository is None
        else wheelsource.names_checked(again.repository, body.get("provenance"))
    )
    said = name if whole is None else whole[0]  # a set's pairs share the repository: said once
    storage = wheelsource.storage_said(said, repository, recorded, now)
    return Checked(inputs, repository, again.source_alone, by_name, names, storage), tied


def _check_set(
    name: str,
    body: dict[str, Any],
    given: dict[str, tuple[Path, int]],
    repos: Sequence[Path],
    stale: list[runagain.StaleDocument],
    directories: tuple[Path, Path] | None = None,
    claimed: frozenset[str] = frozenset(),
    copies: Copies | None = None,
) -> tuple[Checked, set[Path]] | None:
    """Every pair of a release set run again as a single pair is (rerun62), named
    `set.json pairs[1] (patch/x.whl)`; a wheel given that the set lists on one side only (by
    SHA-256) is tied to it. None: none of its pairs' wheels given; InputError for some only.
    `directories`: the set's two directories among `report`'s inputs, which its command names."""
    pairs = body.get("pairs")
    pairs = pairs if isinstance(pairs, list) else []
    sides = (
        runagain.given_sides(body, given)
        if directories is None
        else [[str(directories[0])], [str(directories[1])]]
    )
    whole = (name, body, sides)
    done = [
        _check_one(
            f"{name} pairs[{i}] ({pair.get('patch')})",
            pair["wheels"],
            given,
            repos,
            stale,
            whole,
            claimed,
            copies,
        )
        for i, pair in enumerate(pairs)
        if isinstance(pair, dict) and isinstance(pair.get("wheels"), dict)
    ]
    got = [one for one in done if one is not None]
    unpaired = {
        w.get("sha256") for k in ("only_base", "only_patch") for w in body.get(k) or []
    } & set(given)
    if not got:
        return None
    if len(got) != len(done):
        raise InputError(
            f"{name}: the wheels of {len(got):,} of its {len(done):,} pairs given: a release set "
            "is run again whole (give every pair's two wheels, or the two directories it was "
            "made from)"
        )
    tied = {path for _, paths in got for path in paths}
    tied.update(p for d in unpaired for p in (copies or {}).get(str(d), (given[str(d)][0],)))
    if directories is None:  # one listed on one side only, changed since (report67)
        tied.update(changed_unpaired(name, body, given, stale, claimed))
    reads = tuple(dict.fromkeys(read for checked, _ in got for read in checked.wheels))
    repository = next((c.repository for c, _ in got if c.repository is not None), None)
    alone = any(c.source_alone for c, _ in got)
    names = tuple(dict.fromkeys(check for c, _ in got for check in c.names))
    storage = tuple(dict.fromkeys(s for c, _ in got for s in c.storage))
    by_name = any(c.by_name for c, _ in got)
    return Checked(reads, repository, alone, by_name, names, storage), tied


def check_wheels_again(
    documents: Sequence[Document],
    given: dict[str, tuple[Path, int]],
    audited: frozenset[Path] = frozenset(),
    repos: Sequence[Path] = (),
    directories: Mapping[str, tuple[Path, Path]] | None = None,
    *,
    stale: list[runagain.StaleDocument],
    copies: Copies | None = None,
) -> dict[str, Checked]:
    """Add to `stale` the refusal of a wheels document, or a release set's pair (rerun62), that
    `wheels`, run again on its two wheels (both `given`: `wheel_digests` of the wheels given;
    its source check in a directory of `repos` holding its commit), does not reproduce; raise
    InputError for a wheel no wheels document compares and no audit run again on it audited
    (`audited`), and for a directory no document was checked again in; return the documents so re-derived by
    name. `directories`: per release set made from two directories given, those two.
    `copies`: every wheel given of each SHA-256 (`givenfiles.wheel_digests_and_copies`)."""
    checked: dict[str, Checked] = {}
    claimed = changedinputs.recorded_digests(documents) if given else frozenset()
    tied: set[Path] = set()
    for doc in documents:
        if doc.kind not in (Kind.WHEELS, Kind.WHEELSET) or not given:
            continue
        if doc.kind is Kind.WHEELS:
            body = doc.body_again("wheels document")
            one = _check_one(doc.name, body, given, repos, stale, None, claimed, copies)
        else:
            body = doc.body_again("release-set document")
            sides = (directories or {}).get(doc.name)
            one = _check_set(doc.name, body, given, repos, stale, sides, claimed, copies)
        if one is not None:
            checked[doc.name], paths = one
            tied.update(paths)
    named = runagain.named_inputs(stale)
    every = [path for paths in copies.values() for path in paths] if copies else []
    for path in every or [path for path, _ in given.values()]:  # each said with every refusal,
        # the checks after run on; every copy of one wheel's bytes (review72b: a second left
        # unread, its name the base's in a document that named it, passed)
        if path not in tied and path not in audited and path not in named:
            stale.append(  # left67: it was raised, and the checks after it never ran
                problem(
                    InputError(
                        f"{path}: no wheels document given compares it with another of the "
                        "wheels given (give both wheels the document names, by SHA-256, or by "
                        "file name and size for one made with --no-file-hash; a wheel is read "
                        "only to run k3diff wheels again on the two a document names)"
                    )
                )
            )
    audit = any(doc.kind is Kind.AUDIT for doc in documents)
    for repo in repos:
        if repo not in tied and not given:
            raise InputError(
                f"{repo}: a directory, read only as the --source repository of a wheels "
                "document, and used only with the two wheels of a document that checked "
                "against it: no wheels were given (give the wheels document made with --source "
                f"and its two wheels){_audited_files(repo, audit)}"
            )
        if repo not in tied:
            raise InputError(
                f"{repo}: a directory, read only as the --source repository of a wheels document "
                "given with both its wheels, or as a side of a release set given (holding every "
                "wheel its pairs name on that side), and none given was checked against a "
                "commit it holds (give the wheels document made with --source and its two "
                f"wheels){_audited_files(repo, audit)}"
            )
    return checked


def _audited_files(repo: Path, audit: bool) -> str:
    """Where an audit document is given, how its artifacts are: each as a file, not their
    directory (newuser80b: `report audit.json dist/`, dist/ as audited, was told only of
    --source)."""
    if not audit:
        return ""
    return (
        f"; an audit document's artifacts are given each as a file ({repo}/*), not as their "
        "directory"
    )


def alone_qualification(doc: Document) -> str:
    """The bottom-line qualification of a wheels document read without its wheels, naming
    both (`changedinputs.recorded_sides`)."""
    given = changedinputs.recorded_sides(doc, "wheels document")
    return (
        f"{doc.name} judged from the document alone: RECORD, paths and protected commands not "
        f"re-derived (give report both wheels beside it{given})"
    )
