"""`k3diff report` refuses a failing surface finding relabelled as its group's informational
sibling (review61a item 2): W705 as W712, W708 or W703 as W707, W701 as W706. Each keeps the
group's count (`unreported_surfaces`), so only what the document's own records say each code
is written for tells the forgery: one mechanism (`relabel_problems`) for W712, W716, W706, W707.
A run's own informational findings still pass."""

from __future__ import annotations

import importlib.util
import json
import marshal
from pathlib import Path
from typing import Any

import pytest
import wheelkit
from cli_support import run_k3diff

SOURCE = b"print('source')\n"
PYC = "demo/__pycache__/__init__.cpython-311.pyc"


def _pyc(shown: str) -> bytes:
    code = compile(f"print({shown!r})\n", "demo/__init__.py", "exec")
    return importlib.util.MAGIC_NUMBER + (3).to_bytes(4, "little") + bytes(8) + marshal.dumps(code)


EMPTY = {"demo/__init__.py": b""}
FORGERIES = {
    "w705-as-w712": (
        {"demo/__init__.py": SOURCE, PYC: _pyc("a")},
        {"demo/__init__.py": SOURCE, PYC: _pyc("b")},
        "W705",
        "W712",
    ),
    "w708-as-w707": (
        EMPTY,
        {**EMPTY, "demo-2.0.data/scripts/tool": b"#!/bin/sh\necho\n"},
        "W708",
        "W707",
    ),
    "w703-as-w707": (EMPTY, {**EMPTY, "demo-2.0.data/scripts/git": b"#!/bin/sh\n"}, "W703", "W707"),
    "w701-as-w706": (EMPTY, {**EMPTY, "evil.pth": b"import os\n"}, "W701", "W706"),
}
LEGIT = {
    "w712": ({"demo/__init__.py": SOURCE, PYC: _pyc("a")}, {"demo/__init__.py": b"x = 1\n", PYC: _pyc("b")}),
    "w706": (EMPTY, {**EMPTY, "paths.pth": b"extra\n"}),
}  # fmt: skip


def _document(tmp_path: Path, base: dict[str, bytes], patch: dict[str, bytes]) -> Any:
    wheels = [
        wheelkit.make_wheel(tmp_path / v, "demo", v, files, tool="zip")
        for v, files in (("1.0", base), ("2.0", patch))
    ]
    run_k3diff("wheels", *wheels, "--format", "json", "-o", "a.json", cwd=tmp_path)
    document = json.loads((tmp_path / "a.json").read_text())
    return document


def _report(tmp_path: Path, document: Any) -> tuple[int, str]:
    (tmp_path / "doc.json").write_text(json.dumps(document))
    result = run_k3diff("report", "doc.json", "--out", "bundle", cwd=tmp_path)
    return result.exit_code, result.stderr


@pytest.mark.parametrize("case", sorted(FORGERIES))
def test_report_refuses_a_failing_surface_code_relabelled_informational(
    tmp_path: Path, case: str
) -> None:
    base, patch, failing, informational = FORGERIES[case]
    document = _document(tmp_path, base, patch)
    assert document["verdict"]["exit_code"] == 1
    (finding,) = [f for f in document["findings"] if f["code"] == failing]
    finding.update(code=informational, severity="info")
    document["verdict"].update(ok=True, exit_code=0)
    code, stderr = _report(tmp_path, document)
    assert code == 2, stderr
    assert f"no run writes that {informational}" in stderr


@pytest.mark.parametrize("case", sorted(LEGIT))
def test_report_takes_a_run_s_own_informational_surface_finding(tmp_path: Path, case: str) -> None:
    base, patch = LEGIT[case]
    document = _document(tmp_path, base, patch)
    assert case.upper() in {f["code"] for f in document["findings"]}
    code, stderr = _report(tmp_path, document)
    assert code in (0, 1) and "no run writes" not in stderr, stderr
