"""Structured fields are compared in time linear in their size: a record whose array differs in
its last element (20 KB took 11.6 s, 8 MB more than ten minutes through deepdiff) gives its
one change at the right index, with a note saying how the fields were compared."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_support import run_k3diff

from k3diff.responses.fielddiff import DEEPDIFF_MAX_VALUES, MAX_CHANGES, walk
from k3diff.responses.results import FieldChange


def _responses(tmp_path: Path, base: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    (tmp_path / "b.jsonl").write_text(json.dumps({"id": "a", "text": "same", **base}) + "\n")
    (tmp_path / "p.jsonl").write_text(json.dumps({"id": "a", "text": "same", **patch}) + "\n")
    result = run_k3diff(
        "responses", "b.jsonl", "p.jsonl", "--format", "json", "--max-record-bytes", "64000000",
        cwd=tmp_path,
    )  # fmt: skip
    assert result.exit_code == 1, result.stderr
    record: dict[str, Any] = json.loads(result.stdout)["records"][0]
    assert record["status"] == "fields-differ"
    return record


def test_an_8_mb_array_differing_in_its_last_element(tmp_path: Path) -> None:
    n = 1_000_000  # about 8 MB of JSON a side
    base = {"meta": {"scores": list(range(n))}}
    patch = {"meta": {"scores": [*range(n - 1), -1]}}
    record = _responses(tmp_path, base, patch)
    assert record["field_changes"] == [
        {"path": f"meta.scores[{n - 1}]", "change": "changed", "base": n - 1, "patch": -1}
    ]
    assert len(record["notes"]) == 1 and "lists by index" in record["notes"][0]


def test_too_many_changes_are_listed_up_to_the_cap_and_counted(tmp_path: Path) -> None:
    n = 10_000
    record = _responses(tmp_path, {"x": list(range(n))}, {"x": [-i - 1 for i in range(n)]})
    assert len(record["field_changes"]) == MAX_CHANGES
    assert record["field_changes"][0] == {
        "path": "x[0]",
        "change": "changed",
        "base": 0,
        "patch": -1,
    }
    assert f"{MAX_CHANGES} of {n:,} changes listed" in record["notes"][0]


def test_small_records_still_go_through_deepdiff_without_a_note(tmp_path: Path) -> None:
    small = DEEPDIFF_MAX_VALUES // 4
    record = _responses(tmp_path, {"x": list(range(small))}, {"x": [*range(small - 1), -1]})
    assert record["notes"] == []
    assert record["field_changes"] == [
        {"path": f"x[{small - 1}]", "change": "changed", "base": small - 1, "patch": -1}
    ]


def test_the_walk_by_key_and_index() -> None:
    base = {"a": [1, 2, 3], "b": 1, "c": {"d": True}, "gone": 0}
    patch = {"a": [1, 5], "b": 1.0, "c": {"d": 1}, "new": [None]}
    assert list(walk(base, patch)) == [
        FieldChange("a[1]", "changed", 2, 5),
        FieldChange("a[2]", "removed", 3, None),
        FieldChange("b", "changed", 1, 1.0),
        FieldChange("c.d", "changed", True, 1),
        FieldChange("gone", "removed", 0, None),
        FieldChange("new", "added", None, [None]),
    ]
    assert list(walk({"a": [1, {"b": 2}]}, {"a": [1, {"b": 2}]})) == []
