"""`audit`'s text and Markdown list each artifact's findings as the wheels tables do: what fails
first, then code, then path. The listing is capped (`FINDINGS_SHOWN`), so in the run's order a
flood of findings that only inform hid a failing one past the cap."""

from __future__ import annotations

import json
from pathlib import Path

from cli_support import run_k3diff
from wheelkit import wheel_files, write_zip

from k3diff.report.audit import FINDINGS_SHOWN

NAME = "demo-1.0-py3-none-any.whl"


def _flooded_wheel(tmp_path: Path) -> Path:
    """FINDINGS_SHOWN + 5 files whose exec bits pip ignores (A120, informational; the run lists
    findings by code, so all of them before any W code) and two names that install to one file
    on case-insensitive file systems (W615, fails)."""
    files = {f"demo/m{i:03d}.py": b"x = 1\n" for i in range(FINDINGS_SHOWN + 5)}
    modes = dict.fromkeys(files, 0o755)  # exec bits without a file type
    files |= {"demo/util.py": b"y = 1\n", "demo/Util.py": b"y = 2\n"}
    return write_zip(tmp_path / NAME, wheel_files("demo", "1.0", files), modes=modes)


def test_the_failing_finding_is_listed_first_in_text_and_markdown(tmp_path: Path) -> None:
    wheel = _flooded_wheel(tmp_path)
    document = run_k3diff("audit", wheel, "--format", "json")
    assert document.exit_code == 1
    listed = [f["code"] for f in json.loads(document.stdout)["artifacts"][0]["findings"]]
    assert listed.count("A120") == FINDINGS_SHOWN + 5
    assert listed.index("W615") > FINDINGS_SHOWN  # the run lists it after the flood

    text = run_k3diff("audit", wheel)
    assert text.exit_code == 1
    finding_lines = [line for line in text.stdout.splitlines() if line[:3] in ("  A", "  W")]
    assert finding_lines[0].startswith("  W615 site-packages/demo/Util.py: entries that install")
    assert len(finding_lines) == FINDINGS_SHOWN
    assert finding_lines[1:] == sorted(finding_lines[1:])  # then by code and path
    assert all(" (warning) " in line for line in finding_lines[1:])
    assert "... and 6 more findings (--format json lists all)" in text.stdout

    markdown = run_k3diff("audit", wheel, "--format", "markdown")
    rows = [line for line in markdown.stdout.splitlines() if line[:3] in ("| A", "| W")]
    assert rows[0].startswith("| W615   | error")
    assert all("| info " in row for row in rows[1:])
    assert len(rows) == FINDINGS_SHOWN
