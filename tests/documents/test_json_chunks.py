"""`json_chunks`: items already encoded are passed through whole, not copied behind their
separator, and the text is the one a per-line list of the same items gives."""

from __future__ import annotations

import json

from k3diff.documents.jsondoc import ITEM_SEPARATOR, json_chunks


def test_an_encoded_block_comes_out_as_given_and_reads_as_its_items() -> None:
    items = [{"path": f"p{n}", "size": n} for n in range(5)]
    lines = [json.dumps(item) for item in items]
    block = ITEM_SEPARATOR.join(lines)
    pieces = list(json_chunks({"a": 1, "entries": [block], "b": []}, (), encoded=("entries",)))
    assert any(piece is block for piece in pieces)  # yielded whole, never concatenated
    per_line = "".join(json_chunks({"a": 1, "entries": items, "b": []}, ("entries",)))
    assert "".join(pieces) == per_line
    assert json.loads(per_line)["entries"] == items


def test_encoded_lists_empty_one_and_several_items() -> None:
    for items in ([], ['{"x": 1}'], ['{"x": 1}', '{"x": 2}', "[]"]):
        text = "".join(json_chunks({"k": items}, (), encoded=("k",)))
        expected = "".join(json_chunks({"k": [json.loads(i) for i in items]}, ("k",)))
        assert text == expected
