"""Every document that does not follow from the inputs given with it, and every input changed
since the document that records it was written, refused at once (report66, report67): each
check adds its refusals to one list (`stale_refused`), and when every document has been run
again they are said together, each with the command that brings its document up to date."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from k3diff.errors import ErrorBlock, InputError, K3diffError


class StaleDocument(InputError):
    """A document that does not follow from the inputs given with it (`refusal`), or an input
    of one changed since it was written (`changedinputs`): kept until every document is
    checked, then refused with every other one found (`refuse_stale`)."""

    def __init__(
        self,
        message: str,
        name: str,
        files: tuple[Path, ...] = (),
        key: str | None = None,
        count: int = 1,
    ) -> None:
        super().__init__(message)
        self.name = name
        """The document, as given."""
        self.files = files
        """The inputs given that this refusal names (a changed input), so that no later check
        refuses them as given for nothing."""
        self.key = name if key is None else key
        """What it is said once for: the document (a release set's first pair's refusal), or
        the document and the input it names."""
        self.count = count
        """The inputs it stands for (more than one: those of a document past the ones named,
        `changedinputs.SAID`)."""


def refusal(
    name: str, given: str, ran: str, difference: str, fix: str, document: str | None = None
) -> StaleDocument:
    """The words of a document that does not follow from its inputs: `given` (what it was
    given with), `ran` (what was run again on what), the first field that differs, and `fix`
    (what to give instead, and the command that brings it up to date: `again`); `document`,
    the file `fix` writes anew where `name` is a part of it (a release set's pair)."""
    return StaleDocument(
        f"{name}: does not follow from the {given} given with it ({ran}: {difference}); {fix}",
        name if document is None else document,
    )


@contextmanager
def stale_refused(given: Sequence[str]) -> Iterator[list[StaleDocument]]:
    """The list the checks add each stale document's refusal to, refused when they are done
    (`refuse_stale`, `given`: the documents' names in the order given); where a check raises
    another error after some were found, those found are refused instead, as the first of
    them was before every document was checked (report66)."""
    stale: list[StaleDocument] = []
    try:
        yield stale
    except K3diffError:
        refuse_stale(stale, given)
        raise
    refuse_stale(stale, given)


def named_inputs(stale: Sequence[StaleDocument]) -> frozenset[Path]:
    """The inputs given that the refusals found so far name (none is refused again)."""
    return frozenset(path for refused in stale for path in refused.files)


def refuse_stale(stale: Sequence[StaleDocument], given: Sequence[str]) -> None:
    """Raise one error naming every stale document once (a release set's first pair's, or its
    listing's) and every changed input, each with its command (report66: the refusal named the
    first only, and the user met the next after running its command; report67: an input
    changed since was refused one at a time, with no command): one alone on one line, as it
    is; several as one `ErrorBlock`, a line that counts them, then one line each, in the order
    the documents were `given` (each document's inputs in the order it records them)."""
    order = {name: n for n, name in enumerate(given)}
    first: dict[str, StaleDocument] = {}
    for refused in stale:
        first.setdefault(refused.key, refused)
    stale = sorted(first.values(), key=lambda s: order.get(s.name, len(order)))
    if not stale:
        return
    if len(stale) == 1:
        raise stale[0]
    inputs = sum(s.count for s in stale if s.key != s.name)
    documents = sum(1 for s in stale if s.key == s.name)
    counted = [
        f"{inputs:,} input{'s' if inputs != 1 else ''} changed since the documents that record "
        "them were written"
        if inputs
        else "",
        f"{documents:,} document{'s do' if documents != 1 else ' does'} not follow from the "
        f"inputs given with {'them' if documents != 1 else 'it'}"
        if documents
        else "",
    ]
    said = ", and ".join(c for c in counted if c)
    whose = "its document" if inputs else "it"
    each = (
        "each named, or counted past a document's first few,"
        if inputs > len(stale)
        else "each named"
    )
    raise ErrorBlock(
        (
            f"{said}, {each} with the command that brings {whose} up to date:",
            *(f"({n}) {refused}" for n, refused in enumerate(stale, 1)),
        )
    )
