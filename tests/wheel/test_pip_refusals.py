"""Everything the newest pip refuses fails both commands with W616, and nothing else wrong is
said beside it. pip itself is the oracle: each wheel is installed with the test venv's pip,
which must refuse it too."""

from __future__ import annotations

from pathlib import Path

import pytest

from wheel.pipinstall import pip_install
from wheel.rawwheel import metadata, record_of, wheel_file, write_wheel
from wheel.test_installed_view import audit_code, codes, wheels_json

FILES = {"demo/__init__.py": b"VALUE = 1\n"}
DIST = "demo-2.0.dist-info"


def _blank_record_line(tmp_path: Path) -> Path:
    entries = {**FILES, f"{DIST}/METADATA": metadata("demo", "2.0"), f"{DIST}/WHEEL": wheel_file()}
    record = record_of(DIST, entries).replace(b"\n", b"\n\n", 1)
    return write_wheel(tmp_path, "demo", "2.0", entries, record=record)


def _script_without_callable(tmp_path: Path) -> Path:
    ep = b"[console_scripts]\ndemo-tool = demo.cli\n"
    return write_wheel(tmp_path, "demo", "2.0", {**FILES, f"{DIST}/entry_points.txt": ep})


def _metadata_not_utf8(tmp_path: Path) -> Path:
    meta = metadata("demo", "2.0") + b"Summary: caf\xe9\n"
    return write_wheel(tmp_path, "demo", "2.0", FILES, meta=meta)


def _wheel_not_utf8(tmp_path: Path) -> Path:
    return write_wheel(tmp_path, "demo", "2.0", FILES, wheel=wheel_file() + b"Generator: \xff\n")


def _invalid_version(tmp_path: Path) -> Path:
    return write_wheel(tmp_path, "demo", "1.7.0_PullRequest0090.7", FILES)


def _no_metadata(tmp_path: Path) -> Path:
    path = write_wheel(tmp_path, "demo", "2.0", FILES, meta=b"")
    return _without(path, f"{DIST}/METADATA")


def _second_dist_info(tmp_path: Path) -> Path:
    other = {"other-1.0.dist-info/METADATA": metadata("other", "1.0")}
    return write_wheel(tmp_path, "demo", "2.0", {**FILES, **other})


def _without(path: Path, member: str) -> Path:
    import zipfile

    kept = path.with_suffix(".tmp")
    with zipfile.ZipFile(path) as old, zipfile.ZipFile(kept, "w") as new:
        for info in old.infolist():
            if info.filename != member:
                new.writestr(info, old.read(info))
    kept.replace(path)
    return path


REFUSED = {
    "blank RECORD line": _blank_record_line,
    "console script without a callable": _script_without_callable,
    "METADATA not UTF-8": _metadata_not_utf8,
    "WHEEL not UTF-8": _wheel_not_utf8,
    "version PEP 440 cannot parse": _invalid_version,
    "no METADATA": _no_metadata,
    "a second .dist-info": _second_dist_info,
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_a_wheel_pip_refuses_fails_both_commands_with_w616_alone(tmp_path: Path, case: str) -> None:
    base = write_wheel(tmp_path / "b", "demo", "1.0", FILES)
    patch = REFUSED[case](tmp_path / "p")
    installed = pip_install(patch, tmp_path / "target")
    assert not installed.ok, f"pip installed the {case} wheel"
    exit_code, report = wheels_json(base, patch)
    assert exit_code == 1 and "W616" in codes(report), report["findings"]
    # Nothing read from a .dist-info pip would not read: no filename, distribution or RECORD
    # findings made up beside the refusal.
    assert not codes(report) & {"W605", "W606"}, report["findings"]
    assert not [f for f in report["findings"] if f["code"] == "W302" and f["path"] == ""]
    audit_exit, audit_codes = audit_code(patch)
    assert audit_exit == 1 and "W616" in audit_codes
    assert "A101" not in audit_codes, audit_codes
    assert pip_install(base, tmp_path / "base-target").ok


def test_the_valid_wheels_of_these_cases_pass(tmp_path: Path) -> None:
    base = write_wheel(tmp_path / "b", "demo", "1.0", FILES)
    ep = b"[console_scripts]\ndemo-tool = demo.cli:main [extra]\n"
    patch = write_wheel(tmp_path / "p", "demo", "2.0", {**FILES, f"{DIST}/entry_points.txt": ep})
    assert pip_install(patch, tmp_path / "target").ok
    assert audit_code(patch) == (0, set())
    _, report = wheels_json(base, patch)
    assert "W616" not in codes(report)
