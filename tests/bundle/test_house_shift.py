"""hunt76: `report` holds a triage's sampled non-rejections to the house `--shift` (35 %) and
`--power` (80 %), as alpha61 holds it to the house α. Before, a record held no-power at the
defaults, triaged again at `--shift 1` or `--power 0.01` (or its document edited so: `shift`
raised, the flag dropped, a pass written), passed `report` with exit 0, alone and given with
the comparison and samples log it follows from, and explained the comparison."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import run_k3diff
from triage.helpers import S, compare_texts, write_samples

HELD = (
    "at the house --shift 35 % and --power 80 % (the document's {}), 1 record held no-power: "
    "p1 (a sampled test that did not reject could not have detected 35 % of the answers moved "
    "with 80 % power: sample more, and triage at the defaults)"
)


def _triage(tmp_path: Path, patch: str, *options: str, base: str = "ABCDABCDAB") -> int:
    """10 a side (8 until aa77, whose test at α / 2 had 1 % power only against 36 %). p1 sampled at temperature 1: the base gives `base`, the patch `patch`; the capture pair
    differs (A, D). Writes t.json; returns triage's exit code."""
    compare_texts(tmp_path, {"p1": ("A", "D")})
    samples = [S("base", "p1", text) for text in base]
    samples += [S("patch", "p1", text) for text in patch]
    write_samples(tmp_path / "run/samples.jsonl", samples, params={"temperature": 1.0})
    result = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", *options, "--format", "json", "-o", "t.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert result.exit_code in (0, 1), result.stderr
    return result.exit_code


def _report(tmp_path: Path, *inputs: str) -> tuple[int, str]:
    result = run_k3diff("report", *inputs, "--out", "bundle", cwd=tmp_path)
    assert result.exit_code in (0, 1), result.stderr
    return result.exit_code, (tmp_path / "bundle" / "REPORT.md").read_text()


@pytest.mark.parametrize(
    ("options", "settings"),
    [
        (("--shift", "1"), "100 % and 80 %"),
        (("--power", "0.01"), "35 % and 1 %"),
        (("--shift", "1", "--power", "0.01"), "100 % and 1 %"),
    ],
)
def test_a_lax_shift_or_power_clears_nothing(
    tmp_path: Path, options: tuple[str, ...], settings: str
) -> None:
    assert _triage(tmp_path, "ABCDABCDAE") == 1  # held no-power at the defaults
    assert _triage(tmp_path, "ABCDABCDAE", *options) == 0  # its own reading passes
    for inputs in (("t.json",), ("t.json", "cmp.json", "run/samples.jsonl")):
        code, text = _report(tmp_path, *inputs)
        assert code == 1, inputs
        assert HELD.format(settings) in text
        if "cmp.json" in inputs:  # it explains nothing
            assert "| record-level comparison | FAIL |" in text
        assert "| nondeterminism follow-up | FAIL |" in text


def test_a_document_edited_to_a_lax_shift_is_held(tmp_path: Path) -> None:
    """The held record relabelled as triage at --shift 1 writes it: it agrees with itself."""
    assert _triage(tmp_path, "ABCDABCDAE") == 1
    doc = json.loads((tmp_path / "t.json").read_text())
    doc["shift"] = 1.0
    record, summary = doc["records"][0], doc["summary"]
    for part in (record, record["modes"][0]):
        part["category"] = "both-nondeterministic"
        part["flags"] = [f for f in part["flags"] if f != "no-power"]
        part["more_samples"] = None
    summary.update({"inconclusive": 0, "held": 0, "both-nondeterministic": 1})
    doc["verdict"] = {"ok": True, "exit_code": 0}
    (tmp_path / "t.json").write_text(json.dumps(doc))
    code, text = _report(tmp_path, "t.json")
    assert code == 1
    assert HELD.format("100 % and 80 %") in text


def test_the_defaults_and_stricter_settings_are_unchanged(tmp_path: Path) -> None:
    """A document at the house settings, or a stricter --shift, is judged as before."""
    assert _triage(tmp_path, "ABCDABCD", "--shift", "0.2") == 1  # 8 a side: held no-power
    code, text = _report(tmp_path, "t.json", "cmp.json", "run/samples.jsonl")
    assert code == 1 and "at the house --shift" not in text


def test_a_lax_shift_where_the_test_had_the_house_power_passes(tmp_path: Path) -> None:
    """80 a side: the test could detect 35 % at 80 % power, so --shift 1 changes nothing (60 a
    side did at α; at the α / 2 a sampled test is judged at since aa77, 72; with the new answer
    a rewording of the most typical one since power77, 72 and 76 state 36 %, 80 states 34 %)."""
    assert _triage(tmp_path, "ABCD" * 20, "--shift", "1", base="ABCD" * 20) == 0
    doc = json.loads((tmp_path / "t.json").read_text())
    assert doc["records"][0]["modes"][0]["distribution"]["detectable_shift"] <= 0.35
    code, text = _report(tmp_path, "t.json", "cmp.json", "run/samples.jsonl")
    assert code == 0 and "at the house --shift" not in text
    assert "| record-level comparison | explained |" in text


def test_a_document_without_its_power_is_held(tmp_path: Path) -> None:
    """triage writes `power` (since before `shift`): deleted from a --power 0.01 document, its
    tests' figures at 1 % read as at 80 % (exit 0 alone); given with its inputs it is refused."""
    assert _triage(tmp_path, "ABCDABCDAE", "--power", "0.01") == 0
    doc = json.loads((tmp_path / "t.json").read_text())
    del doc["power"]
    (tmp_path / "t.json").write_text(json.dumps(doc))
    code, text = _report(tmp_path, "t.json")
    assert code == 1
    assert HELD.format("35 % and no power") in text
