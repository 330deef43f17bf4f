"""A version with a number over Python's 4,300-digit `int()` limit is one packaging cannot read
(fuzz71).

`packaging.version.Version` reads each number of a version with `int()`, which refuses a string
of more than 4,300 digits with a plain `ValueError`, not `InvalidVersion`; `packaging.metadata`
lets it through too. k3diff caught `InvalidVersion` only, so a wheel whose METADATA `Version`
and `.dist-info` directory held 5,000 digits stopped `audit` and `wheels` with "internal error"
(exit 2), and a generated `_version.py` stating such a version stopped `wheels --source`. Each
is now a version packaging cannot read: METADATA refused (A122), the wheel's identity
contradicted (W605, W616), the module not the tool's template (W402)."""

from __future__ import annotations

import json
from pathlib import Path

import wheelkit
from cli_support import run_k3diff
from provenance.test_version_file_tuple import _failing, _run, _status
from provenance.versiontemplates import SCM_10, scm_module

HUGE = "1." + "9" * 5000
FILENAME = "demo-1.0-py3-none-any.whl"


def _wheels(tmp_path: Path) -> tuple[Path, Path]:
    files = {"demo/__init__.py": b""}
    base = wheelkit.make_wheel(tmp_path / "base", "demo", "1.0", files)
    patch = wheelkit.make_wheel(tmp_path / "patch", "demo", HUGE, files, filename=FILENAME)
    return base, patch


def test_audit_refuses_a_metadata_version_packaging_cannot_read(tmp_path: Path) -> None:
    _base, patch = _wheels(tmp_path)
    result = run_k3diff("audit", patch, "--format", "json")
    assert result.exit_code == 1, result.stderr
    assert result.stderr == ""
    [artifact] = json.loads(result.stdout)["artifacts"]
    found = {(f["code"], f["detail"].partition(":")[0]) for f in artifact["findings"]}
    assert ("A122", "METADATA") in found
    assert {code for code, _ in found} >= {"A122", "W605", "W616"}


def test_wheels_fails_a_patch_whose_version_packaging_cannot_read(tmp_path: Path) -> None:
    result = run_k3diff("wheels", *_wheels(tmp_path), "--format", "json")
    assert result.exit_code == 1, result.stderr
    assert result.stderr == ""
    codes = {f["code"] for f in json.loads(result.stdout)["findings"]}
    assert {"W605", "W616"} <= codes


def test_a_version_module_stating_such_a_version_is_no_template(tmp_path: Path) -> None:
    def module(b: str) -> tuple[str, bytes]:
        return "1.1", scm_module("1.1", SCM_10, f"g{b[:9]}").replace(
            b"version = '1.1'", f"version = '{HUGE}'".encode()
        )

    code, report, _b = _run(tmp_path, module)

    assert code == 1
    assert _status(report) == "absent"
    [(finding_code, detail)] = _failing(report)
    assert finding_code == "W402"
    assert detail.endswith("not the wheel's METADATA Version 1.1"), detail
