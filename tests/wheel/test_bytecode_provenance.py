"""With `--source`, bytecode is never "matched": a commit holds sources, so a `.pyc` is
`unverifiable` (W405, failing unless `--allow-bytecode`)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from cli_support import run_k3diff
from wheels.provenance_support import make_repo

from wheel.test_installed_view import BASE_FILES, wheels_json
from wheel.tricks import build

PYC = importlib.util.MAGIC_NUMBER + (1).to_bytes(4, "little") + bytes(8) + b"\xe3code"


def test_a_pyc_beside_matching_sources_is_unverifiable(tmp_path: Path) -> None:
    make_repo(tmp_path / "repo", [dict(BASE_FILES)])
    base = build(tmp_path / "b", "1.0", BASE_FILES)
    patch = build(
        tmp_path / "p", "2.0", {**BASE_FILES, "demo/__pycache__/__init__.cpython-311.pyc": PYC}
    )
    source = ("--source", str(tmp_path / "repo"), "--commit", "HEAD", "--source-all")
    exit_code, report = wheels_json(base, patch, *source)
    assert exit_code == 1
    counts = report["provenance"]["summary"]
    assert counts["match"] == 2 and counts["unverifiable"] == 1
    pyc = next(e for e in report["entries"] if e["path"].endswith(".pyc"))
    assert pyc["source"]["status"] == "unverifiable"
    w405 = [f for f in report["findings"] if f["code"] == "W405"]
    assert w405 and w405[0]["severity"] == "error"
    relaxed = run_k3diff(
        "wheels", base, patch, *source, "--allow-bytecode", "--ignore", "W705,W711"
    )
    assert relaxed.exit_code == 0, relaxed.stdout
    assert "W405" in relaxed.stdout or "unverifiable" in relaxed.stdout


def test_upper_case_bytecode_is_unverifiable_too(tmp_path: Path) -> None:
    """macOS and Windows open `__pycache__/__init__.cpython-311.pyc` case-blind: a `.PYC`
    there is the cache the import system reads (an unchecked hash runs whatever the source
    says), and it passed `--source` unchecked, exit 0 (prov68)."""
    make_repo(tmp_path / "repo", [dict(BASE_FILES)])
    base = build(tmp_path / "b", "1.0", BASE_FILES)
    cached = "demo/__pycache__/__init__.cpython-311.PYC"
    patch = build(tmp_path / "p", "2.0", {**BASE_FILES, cached: PYC})

    exit_code, report = wheels_json(
        base, patch, "--source", str(tmp_path / "repo"), "--commit", "HEAD"
    )

    assert exit_code == 1
    assert report["provenance"]["summary"]["unverifiable"] == 1
    assert [f["path"] for f in report["findings"] if f["code"] == "W405"] == [cached]
