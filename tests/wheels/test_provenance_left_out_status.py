"""`wheels --source`: a file of the commit its build leaves out (W412) is `left out` in the JSON too.

The text table said `left out` for such a file (src73) while the JSON's `source.status` and
`provenance.summary` said `match`: a reader of the document saw a file matching its commit,
and only the W412 finding said otherwise. Both say `left out` now, for a commit and a range.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import pytest
import wheelkit
from cli_support import run_json, run_k3diff
from provenance.repokit import make_repo

from k3diff.documents.catalog import load_schema

PYPROJECT = (
    b'[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n\n'
    b'[project]\nname = "pkg"\nversion = "1.0"\n\n[tool.hatch.build.targets.wheel]\n'
    b'packages = ["src/pkg"]\nexclude = ["src/pkg/testing"]\n'
)
TREE = {
    "pyproject.toml": PYPROJECT,
    "src/pkg/__init__.py": b"",
    "src/pkg/util.py": b"X = 1\n",
    "src/pkg/testing/__init__.py": b"",
    "src/pkg/testing/fake_auth.py": b"BYPASS = True\n",
}
BASE = {"pkg/__init__.py": b"", "pkg/util.py": b"X = 1\n"}
PATCH = {**BASE, "pkg/util.py": b"X = 2\n", "pkg/testing/fake_auth.py": b"BYPASS = True\n"}


def _wheels(tmp_path: Path) -> tuple[Path, Path, list[str]]:
    commits = make_repo(tmp_path / "repo", [TREE, {"src/pkg/util.py": b"X = 2\n"}])
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", BASE)
    return base, wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", PATCH), commits


@pytest.mark.parametrize("spec", ["commit", "range"])
def test_a_file_the_build_leaves_out_is_left_out_in_the_json(tmp_path: Path, spec: str) -> None:
    base, patch, (a, b) = _wheels(tmp_path)
    given = ["--commit", b] if spec == "commit" else ["--commits", f"{a}..{b}"]

    code, report = run_json("wheels", base, patch, "--source", tmp_path / "repo", *given)

    jsonschema.validate(report, load_schema("wheels"), cls=jsonschema.Draft202012Validator)
    assert code == 1
    failing = [(f["code"], f["path"]) for f in report["findings"] if f["severity"] == "error"]
    assert failing == [("W412", "pkg/testing/fake_auth.py")]
    sources: dict[str, Any] = {e["path"]: e["source"] for e in report["entries"] if e.get("source")}
    assert sources["pkg/testing/fake_auth.py"]["status"] == "left out"
    assert sources["pkg/testing/fake_auth.py"]["matched_commit"] == b
    assert sources["pkg/util.py"]["status"] == "match"
    summary = report["provenance"]["summary"]
    assert (summary["match"], summary["left out"]) == (1, 1)


def test_the_text_table_and_the_json_say_the_same(tmp_path: Path) -> None:
    base, patch, (_a, b) = _wheels(tmp_path)

    result = run_k3diff("wheels", base, patch, "--source", tmp_path / "repo", "--commit", b)

    assert result.exit_code == 1
    assert "Files: 1 match, 0 mismatch, 0 absent, 0 stale, 1 left out" in result.stdout
    table = result.stdout.split("Source provenance")[1]
    (row,) = [line for line in table.splitlines() if line.startswith("pkg/testing/fake")]
    assert row.split()[1:3] == ["left", "out"]
