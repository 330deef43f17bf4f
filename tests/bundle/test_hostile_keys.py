"""Record keys are hostile text: `k3diff report` draws them as plain, shortened, escaped labels
and shortens them in its tables, so no key can crash the plots, forge a line or make the report
grow with its length; summary.json keeps every key whole."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import run_k3diff
from triage.helpers import compare_texts, side, write_samples

from k3diff.bundle.markdown import CELL_CHARS
from k3diff.bundle.plots import LABEL_CHARS, label

LONG_KEY = "k" * 1_000_000
MATHTEXT_KEYS = [f"m{n} $" + "+".join(["\\alpha^{2}"] * 2_000) + "$" for n in range(40)]
HOSTILE_KEYS = [
    "$\\foo$",
    "k\ud800",
    "{" * 40 + "x" + "}" * 40,
    "$" + "{" * 40 + "x" + "}" * 40 + "$",
    "esc\x1b[2Kx",
    LONG_KEY,
]


def _bundle(tmp_path: Path, keys: list[str]) -> tuple[int, str, dict[str, object]]:
    compare_texts(tmp_path, {key: (f"base {n}", f"patch {n}") for n, key in enumerate(keys)})
    samples = []
    for n, key in enumerate(keys):
        samples += side(key, "base", [f"base {n}", f"other {n}"])
        samples += side(key, "patch", [f"patch {n}"] * 2)
    write_samples(tmp_path / "run" / "samples.jsonl", samples)
    triage = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--format", "json", "-o", "triage.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert triage.exit_code in (0, 1), triage.stderr
    result = run_k3diff(
        "report", "cmp.json", "run/samples.jsonl", "triage.json", "--out", "bundle", cwd=tmp_path
    )
    summary = json.loads((tmp_path / "bundle/summary.json").read_text(encoding="utf-8"))
    return result.exit_code, result.stderr, summary


def test_mathtext_surrogates_braces_and_a_long_key_give_a_bundle(tmp_path: Path) -> None:
    code, stderr, summary = _bundle(tmp_path, HOSTILE_KEYS)
    assert code in (0, 1) and "Traceback" not in stderr, stderr
    html = (tmp_path / "bundle/report.html").read_text(encoding="utf-8")
    markdown = (tmp_path / "bundle/REPORT.md").read_text(encoding="utf-8")
    # The size follows the record count: six records, one a million characters long, give a
    # report of a few hundred KB, not megabytes (a cell holds CELL_CHARS of a key).
    assert len(html) < 1_500_000 and len(markdown) < 100_000
    assert "k" * CELL_CHARS not in markdown and "k" * (CELL_CHARS - 1) + "…" in markdown
    assert "\\x1b[2Kx" in html and "\x1b" not in html and "\x1b" not in markdown
    assert "k\\ud800" in html
    # The JSON keeps each key whole.
    assert LONG_KEY in json.dumps(summary, ensure_ascii=False)


def test_forty_long_mathtext_keys_are_drawn_as_text(tmp_path: Path) -> None:
    code, stderr, _ = _bundle(tmp_path, MATHTEXT_KEYS)
    assert code in (0, 1) and "Traceback" not in stderr, stderr
    assert "<svg" in (tmp_path / "bundle/report.html").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        ("$\\foo$", "$\\foo$"),
        ("k\ud800", "k\\ud800"),
        ("a\nb", "a\\nb"),
        ("x" * 100, "x" * (LABEL_CHARS - 1) + "…"),
        ("x" * LABEL_CHARS, "x" * LABEL_CHARS),
    ],
)
def test_a_label_is_short_and_escaped(key: str, expected: str) -> None:
    assert label(key) == expected
