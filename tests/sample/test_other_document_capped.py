"""A JSON document given where a samples log is wanted is named from what is read of it, at most
`OTHER_VALUES` values (review80f): it was decoded whole, uncapped, to name its schema, so a
12 MB document of 4,000,000 lines of `{},` peaked at 696 MB in `telemetry` (100 MB now), a
1 GiB one some 60 GB. Shrunk here (`raising=False`: the test runs, and fails, where it is not
read)."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest
from cli_support import run_k3diff

from k3diff.errors import InputError
from k3diff.sample import reader

_HINT = "give the samples.jsonl that k3diff sample wrote in its --out directory"


def _document(path: Path, items: int, schema: str | None) -> bytes:
    named = "" if schema is None else f'"schema": "{schema}",\n'
    data = ("{\n" + named + '"records": [\n' + ",\n".join(["{}"] * items) + "\n]\n}\n").encode()
    path.write_bytes(data)
    return data


def test_a_long_document_is_named_from_its_first_values(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(reader, "OTHER_VALUES", 10_000, raising=False)
    path = tmp_path / "triage.json"
    data = _document(path, 600_000, "k3diff.triage/1")  # 1,200,003 values, 2.4 MB
    tracemalloc.start()
    try:
        with pytest.raises(InputError) as refused:
            reader.parse_samples_log(data, path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (
        str(refused.value)
        == f"{path}: a k3diff.triage/1 document, not a k3diff.samples/1 log; {_HINT}"
    )
    # whole, its 600,000 dicts alone take over 35 MB (before: 91 MB traced); 10,000 values at
    # most are read here, the 2.4 MB text once more as a str and a piece of it beside it
    assert peak < 4 * len(data), peak


def test_the_cli_names_a_document_past_the_cap_as_json(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(reader, "OTHER_VALUES", 10_000, raising=False)
    path = tmp_path / "doc.json"
    _document(path, 20_000, None)
    result = run_k3diff("telemetry", path)
    assert result.exit_code == 2, result.stderr
    assert result.stderr.strip() == (
        f"k3diff: error: {path}: a JSON document, not a k3diff.samples/1 log; {_HINT}"
    )
