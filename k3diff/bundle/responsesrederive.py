"""A responses document given with its two inputs is believed only as far as `k3diff responses`,
run again on them with the document's own settings, writes the same document (forge61b).

A `k3diff.responses/1` document is checked against itself, and its score tests are recounted
from its records' `scores` (`k3diff.responses.scorecount`), but nothing there ties a record's
scores to the eval logs: a forger editing the scores, `field_changes` and the tests together
passes (review61b). Every document now records each side's SHA-256 and size and the settings
it ran with (`rerun`). A file given to `report` is a responses input exactly when its SHA-256
is one a responses document given records for a side; every other file is read as today (a
samples log, a k3diff document), so an lm-eval `samples_*.jsonl` and a `k3diff.samples/1` log
cannot be mistaken for each other by name or shape. Where both inputs are given, `responses`
runs again on them under the document's recorded paths (so every `location` compares) and the
two documents are compared, record by record as both are read (`responsesagain`, rerun80),
naming the first field that differs (exit 2). An input given
under the name the document records but changed since, or one not given beside the other, is
named with every other (`changedinputs`, report67). A document read without its inputs is judged from itself alone, and the bundle says so
(`alone_qualification`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from k3diff.bundle import changedinputs, runagain
from k3diff.bundle.changedinputs import Recorded
from k3diff.bundle.givenfiles import Copies, pick_copies
from k3diff.bundle.responsesagain import difference_again
from k3diff.docbody import Kind, Streams, decode, parse_body, read_bytes
from k3diff.documents.read import Document
from k3diff.errors import InputError
from k3diff.jsonmembers import Items
from k3diff.sample.reader import looks_like_samples_log


def own_document(path: Path) -> bool:
    """The file is one of k3diff's own documents (a samples log, or JSON naming a schema k3diff
    reads): one its reader refused is refused as ever, never taken for a responses input."""
    try:
        data = read_bytes(path)
    except InputError:
        return False  # unreadable or over the cap as a document: its digest decides
    if looks_like_samples_log(data):
        return True
    try:
        text = decode(data, path)
        del data  # as `read_document` reads it: the text, its long arrays not decoded (stream79)
        parse_body(text, path, COUNTED)
    except _Begun:
        return True  # its schema named, its long array begun: the rest is its reader's to judge
    except InputError:
        return False
    return True


class _Begun(Exception):
    """A document naming its schema has begun the long array its kind holds (`COUNTED`)."""


def _begun() -> Exception:
    return _Begun()


COUNTED: Streams = {
    kind: (key, Items(lambda item, where: None, 0, _begun))
    for kind, key in (
        (Kind.RESPONSES, "records"),
        (Kind.TRIAGE, "records"),
        (Kind.WHEELS, "entries"),
    )
}
"""The long arrays `own_document` stops at: a document is recognised by its schema, named
before its first record (review79c: each record was decoded to count it, 20,000,000 items of
`0` past the records cap cost 38 s of CPU in a 60 MB document its reader had refused)."""


def side_digests(body: dict[str, Any]) -> tuple[str, str] | None:
    """The two sides' SHA-256 the document records (None: written before they were)."""
    digests = [body.get(side, {}).get("sha256") for side in ("base", "patch")]
    if all(isinstance(d, str) for d in digests):
        return str(digests[0]), str(digests[1])
    return None


SIDES = ("base", "patch")


def check_responses_again(
    documents: Sequence[Document],
    unread: Sequence[tuple[Path, InputError]],
    digests_given: Mapping[str, tuple[Path, int]],
    tied_elsewhere: frozenset[Path] = frozenset(),
    older_logs: Callable[[Path], InputError | None] = lambda path: None,
    copies: Copies | None = None,
    *,
    stale: list[runagain.StaleDocument],
) -> dict[str, tuple[tuple[str, str, int], ...]]:
    """Add to `stale` the refusal of a responses document that `responses`, run again on its two inputs
    (both among `unread`: the files `report` could not read as a document, `digests_given` by
    SHA-256), does not reproduce, and of each input of one changed since or missing
    (`changedinputs`: given under the name it records; report67, where the first was refused
    alone, with no command); raise for a file of `unread` no document names (none of
    `tied_elsewhere`, a logs document's logs; `older_logs` says why, where a logs document
    that records no SHA-256 was given); return the names of the documents so
    re-derived, each to its inputs' names, SHA-256 and sizes (bundle inputs). Two inputs of
    the same bytes are two files where two are given (`copies`), each side's the one given
    under the name it records where there is one."""
    if not unread:
        return {}
    given = {digest: path for digest, (path, _) in digests_given.items()}
    digest_of = {path: digest for digest, paths in (copies or {}).items() for path in paths}
    digest_of.update({path: digest for digest, (path, _) in digests_given.items()})
    checked: dict[str, tuple[tuple[str, str, int], ...]] = {}
    tied: set[Path] = set()
    undigested = []
    claimed = changedinputs.recorded_digests(documents)
    for doc in documents:
        if doc.kind is not Kind.RESPONSES:
            continue
        body = doc.body_again("responses document")
        digests = side_digests(body)
        if digests is None:
            undigested.append(doc.name)
            continue
        wanted = [(str(body[side].get("path")), d) for side, d in zip(SIDES, digests, strict=True)]
        picked = pick_copies(copies or {}, wanted)
        recorded = [
            Recorded(name, digest, f"its {side} input")
            for (name, digest), side in zip(wanted, SIDES, strict=True)
        ]
        by_bytes = [p or given.get(d) for p, d in zip(picked, digests, strict=True)]
        named = runagain.named_inputs(stale)  # a log changed since (logsrederive)
        free = [p for p, _ in unread if p not in tied_elsewhere and p not in tied | named]
        near = Path(doc.name).parent
        found = changedinputs.match(recorded, by_bytes, free, digest_of, near=near, claimed=claimed)
        if found is None:  # neither input given: judged from the document alone
            continue
        paths = (found[0][0], found[0][1])
        tied.update(paths)
        command = runagain.responses_args(body, *paths)
        if found[1]:  # an input changed since, or missing (report67)
            given_now = [p for p in paths if p in digest_of]
            said = changedinputs.refusals(
                doc.name, found[1], "inputs", command, "responses", given_now
            )
            stale.extend(said)
            continue
        difference = difference_again(doc, body, *paths)
        if difference is not None:
            stale.append(
                runagain.refusal(
                    doc.name,
                    "inputs",
                    f"responses run again on {paths[0]} and {paths[1]}",
                    difference,
                    "give the document the inputs it was made from, or "
                    + runagain.again(command, doc.name, "responses"),
                )
            )
        checked[doc.name] = tuple(
            (str(path), digest, digests_given[digest][1])
            for path, digest in dict.fromkeys(zip(paths, digests, strict=True))
        )
    named = runagain.named_inputs(stale)
    for path, error in unread:
        if path in tied or path in tied_elsewhere or path in named:
            continue
        older = older_logs(path)
        if older is not None and not undigested:
            raise older
        if undigested:
            raise InputError(
                f"{undigested[0]}: records no SHA-256 of its inputs (written before k3diff "
                f"responses recorded them), so {path} cannot be tied to it: re-run k3diff "
                "responses, or give report the document without its inputs"
            )
        raise error
    return checked


def alone_qualification(doc: Document) -> str:
    """The bottom-line qualification of a responses document read without its inputs, naming
    both (`changedinputs.recorded_sides`)."""
    given = changedinputs.recorded_sides(doc, "responses document")
    return (
        f"{doc.name} judged from the document alone: texts and scores not re-derived (give "
        f"report its two captures beside it{given})"
    )
