"""Every document that does not follow from the inputs given with it, and every input changed
since the document that records it was written, refused at once (report66, report67): each
check adds its refusals to one list (`stale_refused`), and when every document has been run
again they are said together, each with the command that brings its document up to date."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from k3diff.errors import ErrorBlock, InputError, K3diffError

DOCUMENT, PROBLEM = "document", "problem"
AFTER = "after"
"""A document made from one another refusal makes again (`StaleDocument.after`)."""
INPUT_STATES = ("changed", "missing", "added")
"""What an input refused by `changedinputs` is since its document (`StaleDocument.what`)."""


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
        what: str = DOCUMENT,
        after: bool = False,
        count: int = 1,
    ) -> None:
        super().__init__(message)
        self.after = after
        """A document made from one another refusal makes again (`rederive.made_from_remade`):
        it follows now, and will not once that one is made again."""
        self.name = name
        """The document, as given."""
        self.what = what
        """What it refuses: an input `changed`, `missing` or `added` since its document, a
        `document` that does not follow, or another `problem` a check found (left67)."""
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
    except InputError as exc:
        if stale and not isinstance(exc, ErrorBlock):  # said with them (left67: it was not)
            stale.append(problem(exc))
        refuse_stale(stale, given)
        raise
    except K3diffError:
        refuse_stale(stale, given)
        raise
    refuse_stale(stale, given)


def problem(error: InputError) -> StaleDocument:
    """Another error a check found (a wheel no document names), said with the refusals: after
    them (it names no document), without a command."""
    return StaleDocument(str(error), "", key=f"\0{error}", what=PROBLEM)


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
    raise ErrorBlock((_head(stale), *(f"({n}) {refused}" for n, refused in enumerate(stale, 1))))


def _head(stale: Sequence[StaleDocument]) -> str:
    """The block's first line: what its lines are, counted (left67: inputs missing or added
    were counted as changed, and a problem found with them was not said)."""
    count: Counter[str] = Counter()
    for refused in stale:
        count[AFTER if refused.after else refused.what] += refused.count
    states = [(count[what], what) for what in INPUT_STATES if count[what]]
    counted = []
    if states:
        first, what = states[0]
        parts = [f"{first:,} input{'s' if first != 1 else ''} {what}"]
        parts += [f"{n:,} {what}" for n, what in states[1:]]
        counted.append(
            f"{_listed(parts, ' and ')} since the documents that record them were written"
        )
    if documents := count[DOCUMENT]:
        counted.append(
            f"{documents:,} document{'s do' if documents != 1 else ' does'} not follow from the "
            f"inputs given with {'them' if documents != 1 else 'it'}"
        )
    if after := count[AFTER]:
        counted.append(
            f"{after:,} document{'s' if after != 1 else ''} made from one of those documents"
        )
    if problems := count[PROBLEM]:
        counted.append(f"{problems:,} other problem{'s' if problems != 1 else ''}")
    whose = "its document" if states else "it"
    how = f"with the command that brings {whose} up to date"
    named = "each named"
    if sum(refused.count for refused in stale) > len(stale):
        named = "each named, or counted past a document's first few,"
    if problems and not counted[1:]:
        return f"{problems:,} problems with the inputs given:"
    if problems:
        which = " or ".join(["input"] * bool(states) + ["document"] * bool(documents or after))
        return f"{_listed(counted, ', and ')}, {named} (each {which} {how}):"
    return f"{_listed(counted, ', and ')}, {named} {how}:"


def _listed(parts: Sequence[str], last: str) -> str:
    """`a, b and c` (`last`: the word before the last part)."""
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])}{last}{parts[-1]}"
