"""A document edited to hold a value its writer never writes is refused by `k3diff report` in
one line naming the file, the field and the value (exit 2): a count below 0, a p-value or share
outside [0, 1] or not a number, a level outside (0, 1), a word the writer has no use for.

The first case passed: a triage record never sampled on either side fails the run, and a
document that says so with its counts made 0 is refused as disagreeing with itself; made -1
(its requests' failures raised to match), the record read as sampled on both sides and the
bundle passed, exit 0."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff
from triage.helpers import compare_texts, side, write_samples


def _triage(tmp_path: Path) -> dict[str, Any]:
    """k1's captures differ and it was never sampled (the run fails); k2 matches and was."""
    compare_texts(tmp_path, {"k1": ("a", "b"), "k2": ("same", "same")})
    samples = side("k2", "base", ["same"] * 3) + side("k2", "patch", ["same"] * 3)
    write_samples(tmp_path / "run" / "samples.jsonl", samples)
    made = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--format", "json", "-o", "triage.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert made.exit_code == 1, made.stderr
    document: dict[str, Any] = json.loads((tmp_path / "triage.json").read_text())
    return document


def _record(document: dict[str, Any], key: str) -> dict[str, Any]:
    record: dict[str, Any] = next(r for r in document["records"] if r["key"] == key)
    return record


def _sampled_as(document: dict[str, Any], n: int) -> dict[str, Any]:
    """k1 given k2's mode with `n` successful samples a side (and as many requests failed as
    make its one request add up), its hold dropped and the verdict made to pass."""
    forged = copy.deepcopy(document)
    k1 = _record(forged, "k1")
    mode = copy.deepcopy(_record(forged, "k2")["modes"][0])
    mode["category"] = "inconclusive"
    for name in ("base", "patch"):
        mode[name].update(n=n, distinct=0, errors=1 - n)
        mode["requests"][name][0]["count"] = 1
    k1.update(modes=[mode], flags=[])
    forged["summary"].update(unsampled=0, held=0)
    forged["verdict"] = {"ok": True, "exit_code": 0}
    return forged


def _report(tmp_path: Path, document: dict[str, Any]) -> tuple[int, str]:
    (tmp_path / "edited.json").write_text(json.dumps(document))
    result = run_k3diff("report", "edited.json", "--out", "bundle", cwd=tmp_path)
    return result.exit_code, result.stderr


def test_a_never_sampled_record_made_negative_does_not_pass(tmp_path: Path) -> None:
    document = _triage(tmp_path)
    code, said = _report(tmp_path, _sampled_as(document, 0))
    assert code == 2 and "1 never sampled on a side" in said, said  # the check this evades
    code, said = _report(tmp_path, _sampled_as(document, -1))
    assert code == 2, said
    assert said == (
        "k3diff: error: edited.json: field 'records[0].modes[0].base.n' must be an integer of "
        "at least 0, not -1\n"
    )


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ("p_adjusted", -0.999, "must be a number from 0 to 1 or null, not -0.999"),
        ("p_adjusted", 1.5, "must be a number from 0 to 1 or null, not 1.5"),
        ("p_adjusted", "NaN", 'must be a number from 0 to 1 or null, not "NaN"'),
        ("category", "Match", 'must be one of "base-nondeterminism", '),
        ("mode", "-1", 'must be one of "cold-warm", "concurrent", '),
    ],
)
def test_a_mode_field_out_of_range_is_refused(
    tmp_path: Path, field: str, value: object, said: str
) -> None:
    document = _triage(tmp_path)
    _record(document, "k2")["modes"][0][field] = value
    code, stderr = _report(tmp_path, document)
    assert code == 2, stderr
    assert stderr.startswith(f"k3diff: error: edited.json: field 'records[1].modes[0].{field}' ")
    assert said in stderr and stderr.count("\n") == 1, stderr


@pytest.mark.parametrize(
    ("path", "value", "said"),
    [
        (("bound",), 1.5, "'bound' must be a number from 0 to 1, not 1.5"),
        (("bound",), -0.1, "'bound' must be a number from 0 to 1, not -0.1"),
        (("near_tie",), -1, "'near_tie' must be a number of at least 0, not -1"),
        (("power",), "Infinity", "'power' must be a number from 0 to 1 or null, not \"Infinity\""),
        (("summary", "match"), -1, "'summary.match' must be an integer of at least 0, not -1"),
        (("correction",), "no", '\'correction\' must be one of "bh", "holm" or null, not "no"'),
    ],
)
def test_a_setting_or_count_out_of_range_is_refused(
    tmp_path: Path, path: tuple[str, ...], value: object, said: str
) -> None:
    document = _triage(tmp_path)
    *outer, last = path
    target = document
    for key in outer:
        target = target[key]
    target[last] = value
    code, stderr = _report(tmp_path, document)
    assert code == 2, stderr
    assert stderr == f"k3diff: error: edited.json: field {said}\n"


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ("count", -3, "'findings[0].count' must be an integer of at least 0, not -3"),
        ("severity", "ERROR", '\'findings[0].severity\' must be one of "error", "warning"'),
        ("side", "Patch", '\'findings[0].side\' must be one of "base", "patch", not "Patch"'),
    ],
)
def test_a_logs_finding_out_of_range_is_refused(
    tmp_path: Path, field: str, value: object, said: str
) -> None:
    (tmp_path / "base.log").write_text("INFO engine started\n")
    (tmp_path / "patch.log").write_text(
        "INFO engine started\nCUDA error: an illegal memory access\n"
    )
    made = run_k3diff("logs", "base.log", "patch.log", "--format", "json", "-o", "l.json",
                      cwd=tmp_path)  # fmt: skip
    assert made.exit_code == 1, made.stderr
    document = json.loads((tmp_path / "l.json").read_text())
    document["findings"][0][field] = value
    code, stderr = _report(tmp_path, document)
    assert code == 2, stderr
    assert stderr.startswith(f"k3diff: error: edited.json: field {said}"), stderr
