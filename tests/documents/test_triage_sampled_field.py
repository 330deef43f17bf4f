"""Each mode's `sampled` in `k3diff.triage/1`: the printed schema (`k3diff schema triage`) and
the reader agree on it. Triage always writes it; it was added within the version, so, as for
`summary.unsampled`, a document without it (written before, by 3e8bbca, in
tests/bundle/data/triage_3e8bbca) is valid and is read, taken at its numbers (a mode whose
numbers allow no test counts as sampled, so dropping the field clears nothing:
test_no_power_untested_forged). Of another type, both refuse it: the schema, and `report`
with one line naming the field (exit 2). Before (stop 58) the schema required the field the
reader took without it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
from cli_support import run_k3diff

from k3diff.documents import triage
from k3diff.documents.catalog import load_schema

OLD = Path(__file__).parents[1] / "bundle" / "data" / "triage_3e8bbca"


def _problems(document: Any) -> list[str]:
    validator = jsonschema.Draft202012Validator(load_schema("triage"))
    return [error.message for error in validator.iter_errors(document)]


def _printed_schema() -> Any:
    result = run_k3diff("schema", "triage")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def _old(name: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((OLD / name / "triage.json").read_text())
    return document


def test_the_printed_schema_does_not_require_a_field_added_within_the_version() -> None:
    modes = _printed_schema()["properties"]["records"]["items"]["properties"]["modes"]["items"]
    assert "sampled" in modes["properties"] and "sampled" not in modes["required"]
    assert modes["properties"]["sampled"]["type"] == "boolean"


def test_a_document_without_sampled_is_valid_and_read() -> None:
    for name in ("base_flaky", "unsampled"):
        document = _old(name)
        modes = [mode for record in document["records"] for mode in record["modes"]]
        assert modes and all("sampled" not in mode for mode in modes)
        assert _problems(document) == []
        view = triage.read(document, "t.json")
        assert all(mode.sampled is None for record in view.records for mode in record.modes)


def test_a_sampled_of_another_type_is_refused_by_both(tmp_path: Path) -> None:
    document = _old("base_flaky")
    document["records"][0]["modes"][0]["sampled"] = "yes"
    assert any("'yes' is not of type 'boolean'" in problem for problem in _problems(document))
    (tmp_path / "t.json").write_text(json.dumps(document))
    result = run_k3diff("report", "t.json", "--out", "bundle", cwd=tmp_path)
    assert result.exit_code == 2, result.stdout + result.stderr
    (line,) = result.stderr.splitlines()
    assert "sampled" in line and "t.json" in line, line
