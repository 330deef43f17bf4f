"""`k3diff schema triage` states the ranges `k3diff report`'s reader holds a triage document's
numbers to (k3diff/fields.py `Within`): a p-value, bound or power from 0 to 1, a level strictly
between 0 and 1, a count of at least 0. A pipeline validating a document by the schema took one
the reader refuses (a p-value of 1.5, a count of -1) as valid."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from cli_support import run_k3diff

from documents.test_impossible_values import _report, _triage

EDITS = [
    (("alpha",), 0),
    (("alpha",), 1),
    (("bound",), 1.5),
    (("near_tie",), -1),
    (("power",), -0.1),
    (("summary", "match"), -1),
    (("verdict", "exit_code"), -1),
    (("records", 1, "p_adjusted"), 1.5),
    (("records", 1, "modes", 0, "p_adjusted"), -0.5),
    (("records", 1, "modes", 0, "base", "n"), -1),
    (("records", 1, "modes", 0, "patch", "distinct"), -2),
    (("records", 1, "modes", 0, "base", "nonmodal_bound"), 2),
    (("records", 1, "modes", 0, "requests", "base", 0, "count"), -1),
]


def _schema(tmp_path: Path) -> jsonschema.Draft202012Validator:
    printed = run_k3diff("schema", "triage", cwd=tmp_path)
    assert printed.exit_code == 0, printed.stderr
    return jsonschema.Draft202012Validator(json.loads(printed.stdout))


@pytest.mark.parametrize(("path", "value"), EDITS, ids=lambda x: str(x))
def test_a_value_report_refuses_for_its_range_is_invalid_under_the_schema(
    tmp_path: Path, path: tuple[str | int, ...], value: float
) -> None:
    document = _triage(tmp_path)
    schema = _schema(tmp_path)
    assert list(schema.iter_errors(document)) == []
    *outer, last = path
    target: Any = document
    for key in outer:
        target = target[key]
    target[last] = value

    code, said = _report(tmp_path, document)

    assert code == 2, said
    assert " must be " in said and f", not {value}\n" in said, said  # refused for its range
    assert [list(e.absolute_path) for e in schema.iter_errors(document)] == [list(path)]
