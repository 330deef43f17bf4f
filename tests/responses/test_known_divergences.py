"""The acceptance scenario: known divergences, written in every supported format, give exactly
the expected numbers in the `k3diff.responses/1` document."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
import xxhash

from .scenario import BASE, FORMATS, PATCH, Format, write_pair


def lcs_similarity(first: str, second: str) -> float:
    """Normalised Indel similarity from a textbook LCS table (independent of rapidfuzz)."""
    table = [[0] * (len(second) + 1) for _ in range(len(first) + 1)]
    for i, a in enumerate(first, 1):
        for j, b in enumerate(second, 1):
            table[i][j] = (
                table[i - 1][j - 1] + 1 if a == b else max(table[i - 1][j], table[i][j - 1])
            )
    return round(2 * table[-1][-1] / (len(first) + len(second)), 6)


def ids_digest(ids: list[int]) -> str:
    return xxhash.xxh3_128_hexdigest(b"".join(i.to_bytes(8, "little", signed=True) for i in ids))


def run_json(k3diff_cli: Any, tmp_path: Any, fmt: Format) -> tuple[dict[str, Any], int]:
    write_pair(tmp_path, fmt)
    result = k3diff_cli(
        "responses",
        f"base/{fmt.filename}",
        f"patch/{fmt.filename}",
        "--format",
        "json",
        cwd=tmp_path,
    )
    assert result.stderr == ""
    return json.loads(result.stdout), result.exit_code


PAIRING = {
    # Records that hold their prompt pair by it (server ids follow arrival order); batch output
    # by the client's custom_id; bare responses without a prompt by their ids.
    "jsonl-completion": ("id", None),
    "json-array-flat": ("prompt-hash", None),
    "document-responses-chat": ("id", None),
    "document-records-flat": ("prompt-hash", None),
    "jsonl-wrapped": ("prompt-hash", None),
    "jsonl-batch": ("field", "custom_id"),
    "sse": ("id", None),
    "lm-eval": ("field", "doc_id+filter"),  # a doc and filter name an lm-eval record
}


def expected_keys(name: str) -> list[str]:
    mode, _field = PAIRING[name]
    if mode == "prompt-hash":
        prompts = [spec.prompt for spec in BASE]
        if name == "jsonl-batch":  # pragma: no cover (batch pairs by custom_id)
            prompts = [json.dumps([{"role": "user", "content": p}]) for p in prompts]
        return [xxhash.xxh3_128_hexdigest(p.encode()) for p in prompts]
    if name == "lm-eval":
        return [str(n) for n in range(len(BASE))]
    return [spec.rid for spec in BASE]


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_every_number_is_exact(name: str, k3diff_cli: Any, tmp_path: Any) -> None:
    fmt = FORMATS[name]
    doc, exit_code = run_json(k3diff_cli, tmp_path, fmt)
    assert exit_code == 1
    assert doc["schema"] == "k3diff.responses/1"
    for side in ("base", "patch"):
        data = (tmp_path / side / fmt.filename).read_bytes()
        assert doc[side] == {
            "path": f"{side}/{fmt.filename}",
            "format": fmt.loader,
            "records": 4,
            "sha256": hashlib.sha256(data).hexdigest(),  # what report ties the inputs by
            "size": len(data),
        }
    mode, field = PAIRING[name]
    label = field or mode
    assert doc["pairing"] == {
        "key": mode,
        "field": field,
        "explicit": False,
        "label": label,
        "unshared_field": None,
    }
    ids = 4 if fmt.token_ids else 0
    summary = doc["summary"]
    assert summary["records"] == 4 and summary["paired"] == 4
    assert (summary["only_base"], summary["only_patch"]) == (0, 0)
    assert summary["exact_match"] == 2  # r1 and r3
    assert summary["token_compared"] == ids
    assert summary["token_match"] == (3 if fmt.token_ids else 0)  # r1, r3, r4
    assert summary["differing"] == (3 if fmt.finish_reason else 2)
    keys = [r["key"] for r in doc["records"]]
    assert keys == expected_keys(name)
    records = dict(zip(["r1", "r2", "r3", "r4"], doc["records"], strict=True))
    check_identical(records["r1"], fmt)
    check_one_word_change(records["r2"], fmt)
    check_finish_reason_change(records["r3"], fmt)
    check_detokenizer_change(records["r4"], fmt)


def check_sides(record: dict[str, Any], index: int, fmt: Format) -> None:
    for side, spec in (("base", BASE[index]), ("patch", PATCH[index])):
        summary = record[side]
        assert summary["text_xxh3"] == xxhash.xxh3_128_hexdigest(spec.text.encode())
        assert summary["chars"] == len(spec.text)
        if fmt.token_ids:
            assert summary["token_ids_xxh3"] == ids_digest(spec.token_ids)
            assert summary["tokens"] == len(spec.token_ids)
        else:
            assert summary["token_ids_xxh3"] is None and summary["tokens"] is None
        assert summary["finish_reason"] == (spec.finish if fmt.finish_reason else None)


def check_identical(record: dict[str, Any], fmt: Format) -> None:
    check_sides(record, 0, fmt)
    assert record["status"] == "match"
    assert record["text_match"] is True and record["similarity"] == 1.0
    assert record["token_match"] is (True if fmt.token_ids else None)
    assert record["divergence"] is None and record["field_changes"] == []


def text_field_changes(index: int, fmt: Format) -> list[dict[str, Any]]:
    """lm-eval's filtered_resps repeat the answer; only the field compared (resps) is read."""
    return []


def check_one_word_change(record: dict[str, Any], fmt: Format) -> None:
    check_sides(record, 1, fmt)
    base, patch = BASE[1].text, PATCH[1].text
    assert record["status"] == "text-differs"
    assert record["text_match"] is False
    assert record["token_match"] is (False if fmt.token_ids else None)
    assert record["similarity"] == lcs_similarity(base, patch)
    divergence = record["divergence"]
    assert divergence["char_offset"] == base.index("blue") == 14
    assert divergence["token_index"] == (3 if fmt.token_ids else None)
    assert divergence["context_start"] == 0
    assert divergence["base_context"] == base[:54]
    assert divergence["patch_context"] == patch[:54]
    assert divergence["logprobs"] is None
    assert record["field_changes"] == text_field_changes(1, fmt)


def check_finish_reason_change(record: dict[str, Any], fmt: Format) -> None:
    check_sides(record, 2, fmt)
    assert record["text_match"] is True and record["similarity"] == 1.0
    assert record["divergence"] is None
    if fmt.finish_reason:
        assert record["status"] == "fields-differ"
        assert record["field_changes"] == [
            {"path": "finish_reason", "change": "changed", "base": "stop", "patch": "length"}
        ]
    else:
        assert record["status"] == "match"


def check_detokenizer_change(record: dict[str, Any], fmt: Format) -> None:
    check_sides(record, 3, fmt)
    assert record["status"] == "text-differs"
    assert record["token_match"] is (True if fmt.token_ids else None)
    assert record["similarity"] == lcs_similarity("Hello world", "Hello  world")
    divergence = record["divergence"]
    assert divergence["char_offset"] == 6
    assert divergence["token_index"] is None  # the token ids agree
    assert divergence["base_context"] == "Hello world"
    assert divergence["patch_context"] == "Hello  world"
    assert record["field_changes"] == text_field_changes(3, fmt)
