"""The bundle's source row passes a setuptools-scm wheel whose `_version.py` the build wrote, as
`wheels --source` does, and says the file was held to its tool's template (prov70c: the file,
in no commit, failed W402 in both)."""

from __future__ import annotations

import json
from pathlib import Path

import wheelkit
from cli_support import run_k3diff
from provenance.repokit import make_repo
from provenance.versiontemplates import scm_module

PYPROJECT = b"""\
[build-system]
requires = ["setuptools>=64", "setuptools-scm>=8"]
build-backend = "setuptools.build_meta"

[tool.setuptools_scm]
version_file = "demo/_version.py"
"""


def test_report_passes_and_names_the_generated_version_module(tmp_path: Path) -> None:
    tree = {"pyproject.toml": PYPROJECT, "demo/__init__.py": b"", "demo/m.py": b"STEP = 2\n"}
    (head,) = make_repo(tmp_path / "src", [tree])
    version = f"1.1.dev1+g{head[:9]}"
    wheels = [
        str(wheelkit.make_wheel(tmp_path / "base", "demo", "1.0", {"demo/m.py": b"STEP = 1\n"})),
        str(
            wheelkit.make_wheel(
                tmp_path / "patch",
                "demo",
                version,
                {"demo/m.py": b"STEP = 2\n", "demo/_version.py": scm_module(version)},
            )
        ),
    ]
    result = run_k3diff(
        "wheels", *wheels, "--source", "src", "--commit", "HEAD",
        "--format", "json", "-o", "w.json", cwd=tmp_path,
    )  # fmt: skip
    assert result.exit_code == 0, result.stdout + result.stderr

    for inputs in (("w.json",), ("w.json", *wheels, "src")):
        report = run_k3diff("report", *inputs, "--out", "bundle", cwd=tmp_path)

        assert report.exit_code == 0, report.stdout + report.stderr
        summary = json.loads((tmp_path / "bundle" / "summary.json").read_text())
        (row,) = [r for r in summary["matrix"] if r["evidence"] == "source match"]
        assert row["status"] == "pass"
        text = (tmp_path / "bundle" / "REPORT.md").read_text()
        assert "modules the build writes, held to their tool's template and the wheel's " in text
