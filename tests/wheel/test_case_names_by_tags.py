"""W615 on names that differ only by case (or only by Unicode normalisation) is judged on the
systems the wheel's tags install it on (`extplatforms.case_rule`, as W628 is): such names are
one file only where a file system opens a path in any case (Windows, macOS, Cygwin; `any`
installs there). Before (left69), a Linux-only wheel holding `demo/Data.txt` beside
`demo/data.txt` failed both `wheels` and `audit` with W615, which no waiver clears, though
every system it installs on keeps both files. Names that are one file on every system (the
same path) or on Windows (trailing dots) still fail whatever the tags say."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff

from wheel.tricks import build

BASE = {"demo/__init__.py": b"VALUE = 1\n", "demo/data.txt": b"lower\n"}
CAFE_NFC = unicodedata.normalize("NFC", "demo/caf\u00e9.txt")
CAFE_NFD = unicodedata.normalize("NFD", "demo/caf\u00e9.txt")
LINUX = (
    "cp312-cp312-manylinux_2_17_x86_64",
    "cp312-cp312-musllinux_1_2_aarch64",
    "cp312-cp312-linux_x86_64",
)
CASE_BLIND = (
    "py3-none-any",
    "cp312-cp312-win_amd64",
    "cp312-cp312-macosx_11_0_arm64",
    "cp312-cp312-cygwin_3_5_x86_64",
    "cp312-cp312-manylinux_2_17_x86_64.win_amd64",
)


def _pair(tmp_path: Path, tag: str, added: dict[str, bytes]) -> tuple[Path, Path]:
    base = build(tmp_path / "b", "1.0", {**BASE, CAFE_NFC: b"x\n"}, tag=tag, purelib=False)
    patch = build(
        tmp_path / "p", "2.0", {**BASE, CAFE_NFC: b"x\n", **added}, tag=tag, purelib=False
    )
    return base, patch


def _wheels(base: Path, patch: Path) -> tuple[int, dict[str, Any]]:
    result = run_k3diff("wheels", base, patch, "--format", "json")
    assert result.exit_code in (0, 1), result.stderr
    return result.exit_code, json.loads(result.stdout)


def _audit(wheel: Path) -> tuple[int, set[str]]:
    result = run_k3diff("audit", wheel, "--format", "json")
    assert result.exit_code in (0, 1), result.stderr
    report = json.loads(result.stdout)
    return result.exit_code, {f["code"] for a in report["artifacts"] for f in a["findings"]}


ADDED = {
    "case": {"demo/Data.txt": b"upper\n"},
    "normalisation": {CAFE_NFD: b"y\n"},
}


@pytest.mark.parametrize("tag", LINUX)
@pytest.mark.parametrize("kind", sorted(ADDED))
def test_names_apart_on_every_system_of_a_linux_wheel_pass(
    tmp_path: Path, tag: str, kind: str
) -> None:
    base, patch = _pair(tmp_path, tag, ADDED[kind])
    code, report = _wheels(base, patch)
    assert code == 0, report["findings"]
    assert "W615" not in {f["code"] for f in report["findings"]}
    added = [e["installed_path"] for e in report["entries"] if e["status"] == "added"]
    assert added == [f"site-packages/{next(iter(ADDED[kind]))}"]
    assert _audit(patch) == (0, set())


@pytest.mark.parametrize("tag", CASE_BLIND)
@pytest.mark.parametrize("kind", sorted(ADDED))
def test_names_one_file_on_a_case_blind_system_of_the_tags_still_fail(
    tmp_path: Path, tag: str, kind: str
) -> None:
    base, patch = _pair(tmp_path, tag, ADDED[kind])
    code, report = _wheels(base, patch)
    assert code == 1
    (finding,) = [f for f in report["findings"] if f["code"] == "W615"]
    assert f"{next(iter(ADDED[kind]))!r} wins" in finding["detail"]
    audit_code, codes = _audit(patch)
    assert audit_code == 1 and "W615" in codes


def test_a_windows_name_in_a_linux_wheel_still_fails(tmp_path: Path) -> None:
    """A trailing dot is one file on Windows, where a manylinux wheel is installed too
    (`pip install --platform … --target`): not a case rule, so the tags do not spare it."""
    base, patch = _pair(tmp_path, LINUX[0], {"demo/data.txt.": b"dot\n"})
    code, report = _wheels(base, patch)
    assert code == 1 and "W615" in {f["code"] for f in report["findings"]}
    audit_code, codes = _audit(patch)
    assert audit_code == 1 and "W615" in codes
