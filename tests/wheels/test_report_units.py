"""The wheels text report as a release engineer reads it (words73): a size says its unit, a
table of counts what it counts, and every count of a code reads `N × CODE`, as the verdict line
and the next steps count."""

from __future__ import annotations

from pathlib import Path

import wheelkit
from cli_support import run_k3diff

BASE = {
    "engine/__init__.py": b"VERSION = '1.0'\n",
    "engine/model.py": b"def run(x):\n    return x\n",
}
PATCH = {**BASE, "engine/model.py": b"def run(x):\n    return x + 1\n"}


def _report(tmp_path: Path, *args: str) -> str:
    base = wheelkit.make_wheel(tmp_path / "b", "engine", "1.0", BASE)
    patch = wheelkit.make_wheel(tmp_path / "p", "engine", "1.0", PATCH)
    result = run_k3diff("wheels", base, patch, *args)
    assert result.exit_code == 0, result.stdout + result.stderr
    return result.stdout


def test_the_differences_table_says_sizes_are_bytes(tmp_path: Path) -> None:
    header = _report(tmp_path).split("Differences (", 1)[1].splitlines()[1]
    assert header.split() == [
        "path",
        "kind",
        "status",
        "how",
        "base",
        "bytes",
        "patch",
        "bytes",
        "lines",
    ]


def test_informational_findings_are_counted_as_the_verdict_counts(tmp_path: Path) -> None:
    assert "Informational findings: 1 × W201 (Python file changed)" in _report(tmp_path)


def test_markdown_too(tmp_path: Path) -> None:
    text = _report(tmp_path, "--format", "markdown")
    assert "base bytes" in text and "patch bytes" in text
    assert "1 × W201 (Python file changed)" in text


def test_the_counts_by_kind_say_they_count_entries(tmp_path: Path) -> None:
    text = _report(tmp_path)
    assert "\nEntries by kind\nkind " in text
    assert "\nSummary\n" not in text
