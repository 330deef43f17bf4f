"""`"NaN"`, `"Infinity"` and `"-Infinity"` (how k3diff writes the non-finite floats) are read
only where the writer writes them: a logprob's gap or margin (a server's NaN or -inf logprob).
Everywhere else a number whose reader names no range is a finite one, as its schema's
`"type": "number"` says (readers72: a request's `temperature` of `"NaN"` in a triage document,
which the schema refuses, was read, and `report` went on, exit 1)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff
from responses.test_nan_logprobs import _compare

from documents.test_impossible_values import _report, _triage

TEMPERATURE = ("records", 1, "modes", 0, "requests", "base", 0, "temperature")


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity"])
def test_a_non_finite_value_where_the_writer_writes_none_is_refused(
    tmp_path: Path, value: str
) -> None:
    document: Any = _triage(tmp_path)
    target = document
    for key in TEMPERATURE[:-1]:
        target = target[key]
    assert target["temperature"] == 0.0
    target["temperature"] = value

    code, said = _report(tmp_path, document)

    assert code == 2, said
    assert said == (
        "k3diff: error: edited.json: field 'records[1].modes[0].requests.base[0].temperature' "
        f'must be a finite number or null, not "{value}"\n'
    )


def test_a_document_holding_what_its_writer_writes_non_finite_is_read(tmp_path: Path) -> None:
    """A NaN logprob against a number: the document holds an `"Infinity"` delta, which `report`
    reads (the records differ: exit 1, not a refusal)."""
    made = _compare(tmp_path, [math.nan, -0.2], [-0.1, -0.2])
    assert made.exit_code == 1, made.stderr
    assert '"max_abs_delta": "Infinity"' in made.stdout
    (tmp_path / "cmp.json").write_text(made.stdout)

    result = run_k3diff("report", "cmp.json", "--out", "bundle", cwd=tmp_path)

    assert result.exit_code == 1, result.stderr
