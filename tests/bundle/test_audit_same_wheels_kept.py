"""An audit's A128 (two wheels of one directory pip reads as one, sharing a tag) follows from
the artifacts' paths the document records, so `report` holds a document to it: deleted, with
the verdict's counts edited to pass, it is refused (review73a: `report` passed it, exit 0,
judged alone, and also beside its wheels given from two directories, where `audit` run again on
them does not find A128, so the edited document agreed with the run)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import wheelkit
from cli_support import CliResult, run_k3diff

NAMES = ("demo-1.0-py2.py3-none-any.whl", "demo-1.0-py3-none-any.whl")


def _audited(tmp_path: Path) -> dict[str, Any]:
    """`audit dist` of two wheels pip reads as one (A128 on both, exit 1), as JSON."""
    for n, tag in enumerate(("py2.py3-none-any", "py3-none-any")):
        wheelkit.make_wheel(tmp_path / "dist", "demo", "1.0", {"demo/v.py": b"%d" % n}, tag=tag)
    made = run_k3diff("audit", "dist", "--format", "json", "-o", "a.json", cwd=tmp_path)
    assert made.exit_code == 1, made.stderr
    document: dict[str, Any] = json.loads((tmp_path / "a.json").read_text())
    return document


def _report(tmp_path: Path, document: dict[str, Any], *wheels: str) -> CliResult:
    (tmp_path / "edited.json").write_text(json.dumps(document))
    return run_k3diff("report", "edited.json", *wheels, "--out", "bundle", cwd=tmp_path)


def test_an_a128_deleted_is_refused_alone_and_beside_its_wheels(tmp_path: Path) -> None:
    document = _audited(tmp_path)
    artifacts = document["artifacts"]
    assert [[f["code"] for f in a["findings"]] for a in artifacts] == [["A128"], ["A128"]]
    for artifact in artifacts:
        artifact["findings"] = []
    document["verdict"] = {"ok": True, "exit_code": 0, "errors": 0, "warnings": 0}
    alone = _report(tmp_path, document)
    assert alone.exit_code == 2, alone.stdout + alone.stderr
    assert alone.stderr.startswith(
        "k3diff: error: edited.json: the document disagrees with itself "
        "(dist/demo-1.0-py2.py3-none-any.whl lists no A128 finding, which its name and "
        "directory give; dist/demo-1.0-py3-none-any.whl lists no A128 finding"
    )
    for n, name in enumerate(NAMES):  # each wheel from a directory of its own
        (tmp_path / f"copy{n}").mkdir()
        shutil.copy(tmp_path / "dist" / name, tmp_path / f"copy{n}" / name)
    apart = _report(tmp_path, document, *(f"copy{n}/{name}" for n, name in enumerate(NAMES)))
    assert apart.exit_code == 2 and "lists no A128 finding" in apart.stderr, apart.stderr


def test_the_document_as_written_is_read_as_before(tmp_path: Path) -> None:
    document = _audited(tmp_path)
    assert _report(tmp_path, document).exit_code == 1
    beside = _report(tmp_path, document, *(f"dist/{name}" for name in NAMES))
    assert beside.exit_code == 1, beside.stderr
    # An A128 listed where the paths as spelled give none (audit resolved a link between two
    # spellings of one directory) is no disagreement: the check never holds more together.
    document["artifacts"][1]["path"] = "elsewhere/" + NAMES[1]
    assert _report(tmp_path, document).exit_code == 1


def test_an_a126_deleted_is_refused(tmp_path: Path) -> None:
    """A `.whl` whose name is no wheel filename is A126 by its recorded name alone: deleted with
    the verdict's counts, the audit passed `report` (exit 0, judged alone; review73a)."""
    wheel = wheelkit.make_wheel(tmp_path / "built", "demo", "1.0", {"demo/v.py": b""})
    (tmp_path / "dist").mkdir()
    shutil.copy(wheel, tmp_path / "dist" / "demo-1.0.whl")
    made = run_k3diff("audit", "dist", "--format", "json", "-o", "a.json", cwd=tmp_path)
    assert made.exit_code == 1, made.stderr
    document = json.loads((tmp_path / "a.json").read_text())
    assert [f["code"] for f in document["artifacts"][0]["findings"]] == ["A126"]
    assert _report(tmp_path, document).exit_code == 1
    document["artifacts"][0]["findings"] = []
    document["verdict"] = {"ok": True, "exit_code": 0, "errors": 0, "warnings": 0}
    edited = _report(tmp_path, document)
    assert edited.exit_code == 2, edited.stdout + edited.stderr
    assert "(dist/demo-1.0.whl lists no A126 finding, which its name gives)" in edited.stderr


def test_a_document_over_the_cap_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A document recording more wheels of one project, version and build in one directory
    than `audit` reads (`MAX_SAME`; audit74: each was looked up among all the others, 16,000
    names 36 s) is refused as `audit` refuses the directory: `audit` writes none."""
    document = _audited(tmp_path)
    assert _report(tmp_path, document).exit_code == 1
    monkeypatch.setattr("k3diff.audit.samewheels.MAX_SAME", 1)
    refused = _report(tmp_path, document)
    assert refused.exit_code == 2, refused.stdout + refused.stderr
    assert refused.stderr.startswith(
        "k3diff: error: edited.json: the document disagrees with itself (dist: 2 wheels of one "
        "project, version and build (as pip reads demo-1.0-py2.py3-none-any.whl), over "
        "k3diff's cap of 1"
    )
