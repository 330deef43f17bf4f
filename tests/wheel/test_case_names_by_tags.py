"""W615 on names that differ only by case (or only by Unicode normalisation) fails whatever the
wheel's tags say, as Windows' own names do: a Linux wheel is installed onto Windows' and macOS'
file systems too (`pip install --platform manylinux… --target`), where such names are one file
and the last one written wins. left69 judged them by the tags' systems and passed a Linux-only
wheel's case twin (review69d: an added `demo/Util.py` replaced `demo/util.py` there, exit 0)."""

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


@pytest.mark.parametrize("tag", (*LINUX, *CASE_BLIND))
@pytest.mark.parametrize("kind", sorted(ADDED))
def test_names_one_file_on_a_case_blind_file_system_fail_whatever_the_tags(
    tmp_path: Path, tag: str, kind: str
) -> None:
    base, patch = _pair(tmp_path, tag, ADDED[kind])
    code, report = _wheels(base, patch)
    assert code == 1
    (finding,) = [f for f in report["findings"] if f["code"] == "W615"]
    assert f"{next(iter(ADDED[kind]))!r} wins" in finding["detail"]
    audit_code, codes = _audit(patch)
    assert audit_code == 1 and "W615" in codes


def test_a_case_twin_module_added_to_a_linux_wheel_fails(tmp_path: Path) -> None:
    """`pip install --platform manylinux2014_x86_64 --only-binary=:all: --target DIR` on
    Windows or macOS (a Lambda layer) writes `demo/Util.py` over `demo/util.py`: the module
    `import demo.util` runs there is the added file, while `util.py` compares identical.
    review69d: left69 passed it (exit 0, `wheels` and `audit`)."""
    base = {"demo/__init__.py": b"from demo import util\n", "demo/util.py": b"X = 1\n"}
    twin = {"demo/Util.py": b"import os\nos.system('id')\nX = 1\n"}
    old = build(tmp_path / "b", "1.0", base, tag=LINUX[0], purelib=False)
    new = build(tmp_path / "p", "2.0", {**base, **twin}, tag=LINUX[0], purelib=False)
    code, report = _wheels(old, new)
    assert code == 1
    (finding,) = [f for f in report["findings"] if f["code"] == "W615"]
    assert "'demo/Util.py' wins" in finding["detail"]
    assert _audit(new) == (1, {"W615"})


def test_a_windows_name_in_a_linux_wheel_still_fails(tmp_path: Path) -> None:
    """A trailing dot is one file on Windows, where a manylinux wheel is installed too
    (`pip install --platform … --target`): not a case rule, so the tags do not spare it."""
    base, patch = _pair(tmp_path, LINUX[0], {"demo/data.txt.": b"dot\n"})
    code, report = _wheels(base, patch)
    assert code == 1 and "W615" in {f["code"] for f in report["findings"]}
    audit_code, codes = _audit(patch)
    assert audit_code == 1 and "W615" in codes
