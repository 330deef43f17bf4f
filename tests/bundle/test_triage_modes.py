"""`k3diff report` keeps every mode triage reported, and words the weak-bound caveat for the side
triage's own verdicts rest on."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_support import run_k3diff
from triage.helpers import compare_texts, side, write_samples


def _divergence_in_two_modes(tmp_path: Path) -> dict[str, Any]:
    """k1 and k2 diverge deterministically; serial and concurrent samples (3 per side and mode:
    3 agreeing base observations, the capture being evidence of its own)."""
    compare_texts(tmp_path, {key: (f"base {key}", f"patch {key}") for key in ("k1", "k2")})
    samples = []
    for key in ("k1", "k2"):
        for mode in ("serial", "concurrent"):
            samples += side(key, "base", [f"base {key}"] * 3, mode)
            samples += side(key, "patch", [f"patch {key}"] * 3, mode)
    write_samples(tmp_path / "run" / "samples.jsonl", samples, modes=("serial", "concurrent"))
    triage = run_k3diff(
        "triage",
        "cmp.json",
        "run/samples.jsonl",
        "--format",
        "json",
        "-o",
        "triage.json",
        cwd=tmp_path,
    )
    assert triage.exit_code == 1, triage.stderr
    document: dict[str, Any] = json.loads((tmp_path / "triage.json").read_text())
    return document


def _report(tmp_path: Path) -> dict[str, Any]:
    result = run_k3diff(
        "report", "cmp.json", "run/samples.jsonl", "triage.json", "--out", "bundle", cwd=tmp_path
    )
    assert result.exit_code == 1, result.stderr
    summary: dict[str, Any] = json.loads((tmp_path / "bundle/summary.json").read_text())
    return summary


def test_every_mode_triage_reported_is_a_row(tmp_path: Path) -> None:
    triage = _divergence_in_two_modes(tmp_path)
    summary = _report(tmp_path)

    table = summary["tables"]["records"]
    columns = table["columns"]
    rows = [dict(zip(columns, row, strict=True)) for row in table["rows"]]
    shown = sorted((row["key"], row["mode"]) for row in rows)
    assert shown == [("k1", "concurrent"), ("k1", "serial"), ("k2", "concurrent"), ("k2", "serial")]
    for record in triage["records"]:
        deciding = [
            row for row in rows if row["key"] == record["key"] and row["record category from"]
        ]
        assert [row["mode"] for row in deciding] == [record["deciding_mode"]]
        for mode in record["modes"]:
            (row,) = [r for r in rows if r["key"] == record["key"] and r["mode"] == mode["mode"]]
            assert row["mode category"] == mode["category"]
            assert row["base n"] == mode["base"]["n"]
            assert row["patch n"] == mode["patch"]["n"]
            assert row["base bound"] == round(mode["base"]["nonmodal_bound"], 4)
    markdown = (tmp_path / "bundle/REPORT.md").read_text(encoding="utf-8")
    section = markdown.split("## Records (triage)", 1)[1].split("\n## ", 1)[0]
    for key in ("k1", "k2"):
        assert f"| {key} | text-differs | deterministic-divergence | serial |" in section
        assert f"| {key} | text-differs | deterministic-divergence | concurrent |" in section


def test_the_caveat_names_the_base_when_triage_bounds_the_base(tmp_path: Path) -> None:
    triage = _divergence_in_two_modes(tmp_path)
    reasons = [mode["reason"] for record in triage["records"] for mode in record["modes"]]
    assert all("agreeing base observations bound its non-modal mass only by" in r for r in reasons)
    summary = _report(tmp_path)

    text = " ".join([*summary["bottom_line"], *summary["qualifications"]])
    assert "the base's stability is bounded only by" in text
    assert (
        "(3 samples: up to 77.6 % of its outputs may differ from its usual one), 60 per side "
        "would bound it by 0.05, both at α = 0.05" in text
    )
    assert "patch's stability" not in text


def test_the_caveat_names_the_alpha_of_the_samples_it_asks_for(tmp_path: Path) -> None:
    """polish63 (stop 62's trial): at --alpha 0.2 the bundle read '33 per side would bound it by
    0.05' with no α; the figure is at the document's α, and the sentence says so."""
    _divergence_in_two_modes(tmp_path)
    made = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--alpha", "0.2", "--format", "json",
        "-o", "triage.json", cwd=tmp_path,
    )  # fmt: skip
    assert made.exit_code == 1, made.stderr
    summary = _report(tmp_path)
    text = " ".join([*summary["bottom_line"], *summary["qualifications"]])
    assert (
        "bounded only by 0.55 (3 samples: up to 55.3 % of its outputs may differ from its usual "
        "one), 33 per side would bound it by 0.05, both at α = 0.2" in (text)
    )
    assert "by 0.05;" not in text
