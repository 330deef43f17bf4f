"""`report` runs `responses` again on a comparison's two inputs and compares the two documents
record by record as both are read (rerun80): the run again's records spooled to a temporary
file, the document's read again one by one against them. It held both whole as dicts (≈ 8× the
document: 1.69 GB on a 104 MB document of 100,000 records), and each capture, tried as a samples
log first, in the frames of the error kept for it. The first difference is named where the
whole comparison named it: records compared by index (a record moved is caught where it was),
their count before any of them, members by name (`pairing` before `records`, `similarity`
after)."""

from __future__ import annotations

import dataclasses
import errno
import hashlib
import io
import json
import os
import tempfile
import tracemalloc
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff

from k3diff.bundle.givenfiles import given_digests
from k3diff.bundle.inputs import read_inputs
from k3diff.bundle.responsesrederive import check_responses_again
from k3diff.bundle.runagain import StaleDocument
from k3diff.documents.read import read_document
from k3diff.errors import InputError
from k3diff.responses import collect


def _captures(tmp_path: Path, records: int, words: int) -> dict[str, Any]:
    """Two captures of `records` records (every tenth differs) and their comparison, d.json."""
    rows = [
        {"key": f"k{i}", "prompt": f"prompt {i}", "text": f"text {i} " * words}
        for i in range(records)
    ]
    (tmp_path / "b.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    for row in rows[::10]:
        row["text"] = "other"
    (tmp_path / "p.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    made = run_k3diff("responses", "b.jsonl", "p.jsonl", "--format", "json", cwd=tmp_path)
    assert made.exit_code == 1, made.stderr
    (tmp_path / "d.json").write_text(made.stdout)
    document: dict[str, Any] = json.loads(made.stdout)
    return document


def _peak(call: Callable[[], object]) -> int:
    """The most bytes Python held at once while `call` ran (its modules imported before)."""
    call()  # imports, caches: what a second call does not allocate again
    tracemalloc.start()
    try:
        call()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _again(tmp_path: Path, name: str = "d.json") -> Callable[[], list[StaleDocument]]:
    """`check_responses_again` of the document `name` (as read, or a forgery read as it is:
    its self-check passed over) given with both captures, each read beforehand; the refusals
    it adds."""
    path = tmp_path / name
    genuine = read_document(tmp_path / "d.json")
    data = path.read_bytes()
    doc = dataclasses.replace(
        genuine, name=str(path), sha256=hashlib.sha256(data).hexdigest(), size=len(data)
    )
    unread = [(tmp_path / n, InputError(n)) for n in ("b.jsonl", "p.jsonl")]
    digests, copies = given_digests(unread)

    def again() -> list[StaleDocument]:
        stale: list[StaleDocument] = []
        check_responses_again([doc], unread, digests, copies=copies, stale=stale)
        return stale

    return again


def test_the_rerun_holds_no_copy_of_the_records(tmp_path: Path) -> None:
    _captures(tmp_path, 2000, 40)
    size = (tmp_path / "d.json").stat().st_size
    assert size > 1_000_000
    again = _again(tmp_path)
    peak = _peak(again)
    # The document's bytes and its text while it is read again (2×) and one record of each;
    # before, 8.3× (both documents' records as dicts, the run again's also as text twice).
    assert peak < 4 * size, (peak, size)
    assert again() == []


def test_captures_tried_as_samples_logs_are_not_held(tmp_path: Path) -> None:
    _captures(tmp_path, 300, 2000)
    capture = (tmp_path / "b.jsonl").stat().st_size
    assert capture > 10 * (tmp_path / "d.json").stat().st_size
    paths = [tmp_path / n for n in ("d.json", "b.jsonl", "p.jsonl")]
    peak = _peak(lambda: read_inputs(paths))
    # One capture read at a time (its bytes, and its text or its chunks: 2×); before, each
    # was split into lines to read its header (6.1×), or kept in the frames of the error
    # read_inputs keeps for it until a document names it (4.1×).
    assert peak < 3 * capture, (peak, capture)


@pytest.mark.parametrize(
    ("edit", "named"),
    [
        # Reordered: caught where the first record moved, as the whole comparison did.
        (
            lambda d: d["records"].insert(3, d["records"].pop(2)),
            'records[2].base.location: "b.jsonl:4", run again "b.jsonl:3"',
        ),
        # Before `records` by name: said first, though a record differs too.
        (
            lambda d: (d["pairing"].update(label="forged"), d["records"][5].update(key="x")),
            'pairing.label: "forged", run again ',
        ),
        # After `records` by name: the record first.
        (
            lambda d: (d.update(similarity="forged"), d["records"][5].update(key="x")),
            'records[5].key: "x", run again "k5"',
        ),
        # A record dropped: the count, before any record.
        (lambda d: d["records"].pop(0), "records: 1999 items, run again 2000"),
        (lambda d: d["records"].append(d["records"][0]), "records: 2001 items, run again 2000"),
    ],
)
def test_the_first_difference_is_named_where_the_whole_comparison_named_it(
    tmp_path: Path, edit: Callable[[dict[str, Any]], object], named: str
) -> None:
    document = _captures(tmp_path, 2000, 4)
    edit(document)
    (tmp_path / "f.json").write_text(json.dumps(document))
    (stale,) = _again(tmp_path, "f.json")()
    assert f"responses run again on {tmp_path / 'b.jsonl'} and " in str(stale)
    assert named in str(stale), str(stale)


def test_a_reordered_document_is_refused_by_report(tmp_path: Path) -> None:
    document = _captures(tmp_path, 20, 4)
    document["records"][4], document["records"][7] = document["records"][7], document["records"][4]
    (tmp_path / "f.json").write_text(json.dumps(document))
    alone = run_k3diff("report", "f.json", "--out", "a", cwd=tmp_path)
    assert alone.exit_code == 1, alone.stderr  # self-consistent: its counts do not see order
    result = run_k3diff("report", "f.json", "b.jsonl", "p.jsonl", "--out", "b", cwd=tmp_path)
    assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.stderr
    assert (
        "f.json: does not follow from the inputs given with it (responses run again on b.jsonl "
        'and p.jsonl: records[4].base.location: "b.jsonl:8", run again "b.jsonl:5")'
    ) in result.stderr
    assert not (tmp_path / "b").exists()


class _Full(io.BytesIO):
    """A temporary file on a full disk: every write refused (ENOSPC)."""

    def __init__(self, **_: Any) -> None:
        super().__init__()

    filled = False
    """Whether a write was refused: the disk is full from then on."""

    def write(self, data: Any) -> int:
        _Full.filled = True
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def _report_on_a_full_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """`report`'s stderr on d.json and its captures, the run again's spool on a full disk
    (`responses`'s own spools are `spill`'s: the captures' comparison is made beforehand)."""
    _captures(tmp_path, 20, 4)
    monkeypatch.setattr(_Full, "filled", False)
    monkeypatch.setattr(collect, "tempfile", types.SimpleNamespace(TemporaryFile=_Full))
    result = run_k3diff("report", "d.json", "b.jsonl", "p.jsonl", "--out", "b", cwd=tmp_path)
    assert result.exit_code == 2, result.stderr
    assert not (tmp_path / "b").exists()
    return result.stderr


def test_a_full_disk_under_the_spool_is_one_line_and_no_bug(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """review80e: the run again's records go to a temporary file ($TMPDIR); on a full disk
    `report` said `internal error (a bug in k3diff; please report it): OSError: [Errno 28] No
    space left on device at responsesagain.py:108` (exit 2, but a bug it is not, and it named
    neither the temporary directory nor what to do). `responses`'s own spools said the same."""
    assert _report_on_a_full_disk(tmp_path, monkeypatch) == (
        "k3diff: error: a write failed (No space left on device): "
        f"k3diff's temporary files go to {tempfile.gettempdir()} ($TMPDIR), its output where "
        "it was asked; free space there or point TMPDIR at a larger disk\n"
    )


def test_a_disk_too_full_to_find_a_temporary_directory_is_said_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """review80e: on a full disk `tempfile.gettempdir` may fail itself (it writes a probe file
    in each candidate directory): the line names the directory without it, no traceback."""

    found = tempfile.gettempdir

    def _none_once_full() -> str:
        if _Full.filled:
            raise FileNotFoundError(errno.ENOENT, "No usable temporary directory found")
        return found()

    monkeypatch.setattr(tempfile, "gettempdir", _none_once_full)
    assert _report_on_a_full_disk(tmp_path, monkeypatch) == (
        "k3diff: error: a write failed (No space left on device): k3diff's temporary files go "
        "to the temporary directory ($TMPDIR), its output where it was asked; free space there "
        "or point TMPDIR at a larger disk\n"
    )
