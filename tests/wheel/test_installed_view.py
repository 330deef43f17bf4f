"""`wheels` and `audit` answer for what pip installs: pip itself is the oracle.

Each case builds a base and a patch wheel, runs both commands, installs the wheels with the test
venv's pip, and checks k3diff's claims against the installed trees: an installed path called
identical holds identical bytes (and executable bit) after both installs; a wheel k3diff passes
is one pip installs.
"""

from __future__ import annotations

import json
import unicodedata
import zipfile
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff

from wheel.pipinstall import Installed, pip_install
from wheel.tricks import build

INIT = "demo/__init__.py"
BASE_FILES = {INIT: b"VALUE = 1\n", "demo/util.py": b"def f():\n    return 1\n"}
EVIL = b"import os\nVALUE = 'attacker'\n"


def wheels_json(base: Path, patch: Path, *args: str) -> tuple[int, dict[str, Any]]:
    result = run_k3diff("wheels", base, patch, "--format", "json", *args)
    assert result.exit_code in (0, 1), result.stderr
    return result.exit_code, json.loads(result.stdout)


def audit_code(wheel: Path) -> tuple[int, set[str]]:
    result = run_k3diff("audit", wheel, "--format", "json")
    assert result.exit_code in (0, 1), result.stderr
    report = json.loads(result.stdout)
    return result.exit_code, {f["code"] for a in report["artifacts"] for f in a["findings"]}


def codes(report: dict[str, Any]) -> set[str]:
    return {finding["code"] for finding in report["findings"]}


def by_installed_path(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {e["installed_path"]: e for e in report["entries"] if e["installed_path"]}


def assert_claims_hold(
    report: dict[str, Any], exit_code: int, base: Installed, patch: Installed
) -> None:
    """k3diff's identical installed paths are identical after pip; exit 0 means pip installs."""
    if exit_code == 0:
        assert base.ok and patch.ok, base.output + patch.output
    if not (base.ok and patch.ok):
        return
    for path, entry in by_installed_path(report).items():
        if entry["status"] != "identical" or path.endswith(".dist-info/RECORD"):
            continue
        base_path = entry["base_installed_path"]
        assert base_path in base.tree and path in patch.tree, path
        assert base.tree[base_path] == patch.tree[path], f"{path}: k3diff says identical"


def install_both(
    tmp_path: Path, base: Path, patch: Path, **kw: bool
) -> tuple[Installed, Installed]:
    return pip_install(base, tmp_path / "ib", **kw), pip_install(patch, tmp_path / "ip", **kw)


@pytest.mark.parametrize(
    "copy",
    [
        "demo-2.0.data/purelib/demo/__init__.py",
        "demo-2.0.data/platlib/demo/__init__.py",
        "demo/./__init__.py",
    ],
)
def test_a_second_entry_writing_an_unchanged_module_is_never_identical(
    tmp_path: Path, copy: str
) -> None:
    base = build(tmp_path / "b", "1.0", BASE_FILES)
    patch = build(tmp_path / "p", "2.0", {**BASE_FILES, copy: EVIL})
    exit_code, report = wheels_json(base, patch)
    assert exit_code == 1
    assert "W615" in codes(report)
    detail = next(f["detail"] for f in report["findings"] if f["code"] == "W615")
    assert f"{copy!r} wins" in detail
    entry = by_installed_path(report)[f"site-packages/{INIT}"]
    assert entry["status"] == "changed"
    assert audit_code(patch) == (1, {"W615"})
    installed = install_both(tmp_path, base, patch)
    assert (
        installed[1].tree[f"site-packages/{INIT}"][0]
        != installed[0].tree[f"site-packages/{INIT}"][0]
    )
    assert_claims_hold(report, exit_code, *installed)


def test_data_scheme_site_packages_overwrites_in_a_virtual_environment(tmp_path: Path) -> None:
    copy = "demo-2.0.data/data/lib/python3.11/site-packages/demo/__init__.py"
    base = build(tmp_path / "b", "1.0", BASE_FILES)
    patch = build(tmp_path / "p", "2.0", {**BASE_FILES, copy: EVIL})
    exit_code, report = wheels_json(base, patch)
    assert exit_code == 1 and "W615" in codes(report)
    installed = install_both(tmp_path, base, patch, prefix=True)
    assert (
        installed[1].tree[f"site-packages/{INIT}"][0]
        != installed[0].tree[f"site-packages/{INIT}"][0]
    )
    assert_claims_hold(report, exit_code, *installed)


def test_a_library_moved_to_platlib_with_the_same_bytes_is_identical_moved(tmp_path: Path) -> None:
    library = b"\x7fELF" + bytes(200)
    base = build(tmp_path / "b", "1.0", {**BASE_FILES, "demo/_lib.so": library})
    patch = build(
        tmp_path / "p", "2.0", {**BASE_FILES, "demo-2.0.data/platlib/demo/_lib.so": library}
    )
    exit_code, report = wheels_json(base, patch)
    assert exit_code == 0, report["findings"]
    entry = by_installed_path(report)["site-packages/demo/_lib.so"]
    assert (entry["status"], entry["moved"], entry["kind"]) == ("identical", True, "native")
    text = run_k3diff("wheels", base, patch).stdout
    assert "identical, moved" in text
    assert_claims_hold(report, exit_code, *install_both(tmp_path, base, patch))


REFUSED = {
    "unknown scheme": {"files": {**BASE_FILES, "demo-2.0.data/lib/demo/x.py": b"x = 1\n"}},
    "wheel version 2": {"files": BASE_FILES, "wheel_version": "2.0"},
    "second dist-info": {
        "files": BASE_FILES,
        "extra_files": {"zzz-9.0.dist-info/METADATA": b"Name: zzz\nVersion: 9.0\n"},
    },
    "utf-8 flag differs": {
        "files": {**BASE_FILES, "demo/caf\u00e9.py": b"x = 1\n"},
        "local_utf8_clear": "demo/caf\u00e9.py",
    },
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_a_wheel_pip_refuses_fails_both_commands(tmp_path: Path, case: str) -> None:
    base = build(tmp_path / "b", "1.0", BASE_FILES)
    patch = build(tmp_path / "p", "2.0", **REFUSED[case])  # type: ignore[arg-type]
    exit_code, report = wheels_json(base, patch)
    assert exit_code == 1
    refusal = [f for f in report["findings"] if f["code"] == "W616"]
    assert refusal and refusal[0]["detail"].startswith("in the patch wheel: ")
    # The finding's title says "pip cannot install this wheel"; the detail does not repeat it.
    assert "pip cannot install this wheel" not in refusal[0]["detail"]
    audit_exit, audit_codes = audit_code(patch)
    assert audit_exit == 1 and "W616" in audit_codes
    assert not pip_install(patch, tmp_path / "ip").ok


def test_a_corrupt_extra_field_is_refused_by_both_commands_as_zipfile_refuses_it(
    tmp_path: Path,
) -> None:
    """An extra field whose length runs past the extra area: CPython's zipfile (and so pip)
    refuses the archive when opening it, and so does k3diff's reader (exit 2 naming the file in
    `wheels`, A001 in `audit`)."""
    base = build(tmp_path / "b", "1.0", BASE_FILES)
    patch = build(tmp_path / "p", "2.0", BASE_FILES, corrupt_extra="demo/util.py")
    result = run_k3diff("wheels", base, patch, "--format", "json")
    assert (result.exit_code, result.stdout) == (2, "")
    assert str(patch) in result.stderr and "corrupt extra field" in result.stderr
    assert len(result.stderr.splitlines()) == 1
    assert audit_code(patch) == (1, {"A001"})
    assert not pip_install(patch, tmp_path / "ip").ok


def test_duplicate_record_rows_fail_both_commands_whichever_row_comes_first(tmp_path: Path) -> None:
    base = build(tmp_path / "b", "1.0", BASE_FILES)
    patch = build(tmp_path / "p", "2.0", BASE_FILES, duplicate_record_row="demo/util.py")
    exit_code, report = wheels_json(base, patch)
    assert exit_code == 1 and "W618" in codes(report)
    assert audit_code(patch)[0] == 1


def test_a_directory_entry_with_data_fails_both_commands(tmp_path: Path) -> None:
    base = build(tmp_path / "b", "1.0", BASE_FILES)
    patch = build(tmp_path / "p", "2.0", BASE_FILES, extra_files={"demo/hidden/": EVIL})
    exit_code, report = wheels_json(base, patch)
    assert exit_code == 1 and "W617" in codes(report)
    audit_exit, audit_codes = audit_code(patch)
    assert audit_exit == 1 and "W617" in audit_codes
    installed = pip_install(patch, tmp_path / "ip")
    assert installed.ok and not any("hidden" in path for path in installed.tree)


@pytest.mark.parametrize(
    ("first", "second", "kind"),
    [
        ("demo/Mod.py", "demo/mod.py", "case-insensitive"),
        (
            unicodedata.normalize("NFC", "demo/caf\u00e9.py"),
            unicodedata.normalize("NFD", "demo/caf\u00e9.py"),
            "macOS",
        ),
    ],
)
def test_names_one_file_on_windows_or_macos_fail_both_commands(
    tmp_path: Path, first: str, second: str, kind: str
) -> None:
    base = build(tmp_path / "b", "1.0", BASE_FILES)
    patch = build(tmp_path / "p", "2.0", {**BASE_FILES, first: b"a = 1\n", second: EVIL})
    exit_code, report = wheels_json(base, patch)
    assert exit_code == 1
    detail = next(f["detail"] for f in report["findings"] if f["code"] == "W615")
    assert kind in detail and f"{second!r} wins" in detail
    assert audit_code(patch) == (1, {"W615"})


def test_a_data_file_under_a_generated_scripts_name_is_overwritten_by_it(tmp_path: Path) -> None:
    entry_points = b"[console_scripts]\ndemo-tool = demo:main\n"
    files = {
        **BASE_FILES,
        "demo-2.0.dist-info/entry_points.txt": entry_points,
        "demo-2.0.data/data/bin/demo-tool": b"#!/bin/sh\necho evil\n",
    }
    base = build(tmp_path / "b", "1.0", BASE_FILES)
    patch = build(tmp_path / "p", "2.0", files)
    exit_code, report = wheels_json(base, patch)
    assert exit_code == 1
    detail = next(f["detail"] for f in report["findings"] if f["code"] == "W615")
    assert "console script 'demo-tool'" in detail and detail.endswith("wins")
    assert detail.index("data/bin/demo-tool") < detail.index("console script")
    installed = pip_install(patch, tmp_path / "ip", prefix=True)
    script = (tmp_path / "ip" / "bin" / "demo-tool").read_text()
    assert installed.ok and "echo evil" not in script and "demo" in script


def test_a_name_given_twice_is_w608_and_its_last_entry_is_compared_not_dropped(
    tmp_path: Path,
) -> None:
    """One archive name twice is W608 (zipview's rule: the last entry, which pip leaves on
    disk, is compared); the installed view does not also call it a W615 collision, and the
    entry is still paired (never dropped as 'overwritten')."""
    base = build(tmp_path / "b", "1.0", BASE_FILES)
    patch = build(tmp_path / "p", "2.0", BASE_FILES)
    with zipfile.ZipFile(patch, "a") as archive, pytest.warns(UserWarning):
        archive.writestr(INIT, EVIL)
    exit_code, report = wheels_json(base, patch)
    assert exit_code == 1
    assert "W608" in codes(report) and "W615" not in codes(report)
    entry = by_installed_path(report)["site-packages/demo/__init__.py"]
    assert (entry["status"], entry["patch_size"]) == ("changed", len(EVIL))
    audit_exit, audit_codes = audit_code(patch)
    assert audit_exit == 1 and "W608" in audit_codes and "W615" not in audit_codes
