"""`k3diff responses` run again on a document's two inputs, and the document compared with what
it writes record by record, as both are read (rerun80).

`report` compared the two documents whole: the run again's records encoded, joined and decoded
into dicts, the document's read again into dicts beside them (≈ 8× the file between them: a
peak of 1,686 MB on a 104 MB document of 100,000 records, 436 MB now). Now the run again's records are
written, one JSON line each, to an anonymous temporary file as `responses` makes them
(`responses.collect.RecordSpool`, review80e: it was written again here; its own
memory stays bounded: `k3diff.responses.spill`), and the document is then read again with its
`records` handed one by one (`Document.read_again`) to a reader that compares each with the
line of the same index, so at most one record of each is held as dicts, beside the document's
text (its size: k3diff writes ASCII).

The comparison is by index, as the whole one was: `responses` writes its records in report
order (base order, then patch-only keys in patch order), the order it makes them in, so the
document and the run again come in the same order, and a document whose records were
reordered, or one dropped or added, differs at the first index where they do, named as
before (`records[3].key: "k3", run again "k4"`; `records: 7 items, run again 8`). The first
difference is said where the whole comparison said it (`difference.first_difference_apart`):
a member whose name sorts before `records` (`base`, `pairing`, …) first, then the records
(their count before any of them), then the members after (`summary`, `verdict`, …).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from k3diff import bounded, jsontext
from k3diff.bundle.difference import count_difference, first_difference, first_difference_apart
from k3diff.docbody import Kind
from k3diff.documents.read import Document
from k3diff.errors import InputError, K3diffError
from k3diff.jsonmembers import Items, Streamed
from k3diff.responses.collect import RecordSpool

RECORDS = "records"
"""The member compared record by record."""

_EVERY = 1 << 62
"""Items read at most: every one (the document's reader held it to its cap when first read)."""


def difference_again(doc: Document, body: dict[str, Any], base: Path, patch: Path) -> str | None:
    """The first field in which the document (`body`: its members but its records) differs
    from the one `responses` writes on `base` and `patch` with the document's settings and
    paths, or why `responses` writes none ("responses refuses them: …"); None: the same."""
    with RecordSpool() as spool:
        again = _again(body, base, patch, doc.name, spool)
        if isinstance(again, str):
            return again
        written, count = again
        records = _Records(spool.lines())
        streams = {Kind.RESPONSES: (RECORDS, Items(records.read, _EVERY))}
        stated = doc.read_again("responses document", streams)
        read = stated.get(RECORDS)
        if not isinstance(read, Streamed):  # no array: its reader refused it when first read
            written[RECORDS] = [json.loads(line) for line in spool.lines()]
            return first_difference(stated, written)
        found = records.found
        if read.count != count:
            found = count_difference(RECORDS, read.count, count)
        return first_difference_apart(stated, written, {RECORDS: found})


class _Records:
    """Compares each record of the document, as it is read, with the run again's of the same
    index (a line of the temporary file), keeping the first difference."""

    def __init__(self, lines: Iterator[str]) -> None:
        self._lines = lines
        self.found: str | None = None
        """The first difference of a record from the run again's (None: none yet)."""

    def read(self, item: Any, where: str) -> None:
        """`jsonmembers.ItemReader`: `item` is the document's record at `where` (`records[i]`)."""
        line = next(self._lines, None)
        if self.found is None and line is not None:
            self.found = first_difference(item, json.loads(line), where)


def _again(
    body: dict[str, Any], base: Path, patch: Path, name: str, spool: RecordSpool
) -> tuple[dict[str, Any], int] | str:
    """The document `responses` writes on the two inputs with the document's settings and
    paths, but its records, which go to `spool` one JSON line each, and their count; or why
    none."""
    from k3diff.documents import responses as responses_document
    from k3diff.responses import compare_streaming
    from k3diff.responses.rerunsettings import rerun_options

    if body.get("noise") is not None:
        raise InputError(
            f"{name}: compared with a --base-rerun the document does not tie by SHA-256, so "
            "k3diff responses cannot be run again on the inputs given with it: give report the "
            "document without its inputs (it is then judged from the document alone)"
        )
    options, caps = rerun_options(body.get("rerun"), name)
    count = 0

    def spooled(diff: Any) -> None:
        nonlocal count
        # As the document was written: a NaN score is the string "NaN" (`jsontext`); one line
        # a record, the JSON escaping every newline (and, ASCII, every other character).
        spool.add_text(jsontext.dumps(responses_document.record_line(diff)))
        count += 1

    displays = (str(body["base"].get("path")), str(body["patch"].get("path")))
    try:
        with bounded.caps(caps.record_bytes, caps.document_bytes):
            overview = compare_streaming(base, patch, options, spooled, displays=displays)
    except K3diffError as exc:
        return f"responses refuses them: {exc}"
    written: dict[str, Any] = json.loads("".join(responses_document.chunks(overview, [])))
    return written, count
