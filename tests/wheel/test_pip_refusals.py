"""Everything the newest pip refuses fails both commands with W616, and nothing else wrong is
said beside it. pip itself is the oracle: each wheel is installed with the test venv's pip,
which must refuse it too."""

from __future__ import annotations

from collections.abc import Callable
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


def _with_metadata(*lines: str) -> Callable[[Path], Path]:
    """A wheel whose METADATA is exactly `lines`."""

    def build(tmp_path: Path) -> Path:
        meta = ("\n".join(lines) + "\n").encode()
        return write_wheel(tmp_path, "demo", "2.0", FILES, meta=meta)

    return build


def _named(filename: str) -> Callable[[Path], Path]:
    """A valid wheel under `filename`."""

    def build(tmp_path: Path) -> Path:
        return write_wheel(tmp_path, "demo", "2.0", FILES, filename=filename)

    return build


def _script_named(name: str, value: str = "demo:main") -> Callable[[Path], Path]:
    """A wheel with one console script `name = value`."""

    def build(tmp_path: Path) -> Path:
        ep = f"[console_scripts]\n{name} = {value}\n".encode()
        return write_wheel(tmp_path, "demo", "2.0", {**FILES, f"{DIST}/entry_points.txt": ep})

    return build


_HEAD = ("Metadata-Version: 2.1", "Name: demo", "Version: 2.0")


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
    "METADATA without Name": _with_metadata("Metadata-Version: 2.1", "Version: 2.0"),
    "METADATA without Version": _with_metadata("Metadata-Version: 2.1", "Name: demo"),
    "Requires-Dist with a bad specifier": _with_metadata(*_HEAD, "Requires-Dist: foo ===< bad"),
    "Requires-Dist with a bad marker": _with_metadata(
        *_HEAD, "Requires-Dist: foo; python_version >< '3'"
    ),
    "Requires-Dist empty": _with_metadata(*_HEAD, "Requires-Dist: "),
    "Requires-Dist whose marker cannot be evaluated": _with_metadata(
        *_HEAD, "Requires-Dist: foo; python_version ~= 'abc'"
    ),
    "Requires-Dist whose marker fails for an extra": _with_metadata(
        *_HEAD, "Provides-Extra: x", "Requires-Dist: foo; extra == 'x' and os_name ~= 'abc'"
    ),
    "filename build tag not starting with a digit": _named("demo-2.0-x1-py3-none-any.whl"),
    "filename extension in upper case": _named("demo-2.0-py3-none-any.WHL"),
    "filename with an empty tag component": _named("demo-2.0-py3-none-.whl"),
    "filename with seven parts": _named("demo-2.0-1-2-py3-none-any.whl"),
    "console script named out of the scripts directory": _script_named("../../evil"),
    "console script named by an absolute path": _script_named("/tmp/evil"),
    "console script named for the scripts directory": _script_named("sub/.."),
    "console script named beside the scripts directory": _script_named("../binx"),
    "console script named with a bracket": _script_named("[x"),
    "console script with blanks around its colon": _script_named("tool", "demo : main"),
    "console script with two colons": _script_named("tool", "demo:main:x"),
    "console script that is no module reference": _script_named("tool", "!!demo:main"),
}

ACCEPTED = {
    "no Metadata-Version": _with_metadata("Name: demo", "Version: 2.0"),
    "Metadata-Version 9.0": _with_metadata("Metadata-Version: 9.0", "Name: demo", "Version: 2.0"),
    "Name spelled otherwise": _with_metadata("Metadata-Version: 2.1", "Name: DEMO", "Version: 2.0"),
    "Name given twice, the first one the project's": _with_metadata(*_HEAD, "Name: other"),
    "Requires-Python that is no specifier set (pip warns)": _with_metadata(
        *_HEAD, "Requires-Python: >>3"
    ),
    "Requires-Dist with a marker pip evaluates": _with_metadata(
        *_HEAD, "Provides-Extra: x", "Requires-Dist: foo; extra == 'x' and python_version < 'abc'"
    ),
    "filename build tag starting with a digit": _named("demo-2.0-1x-py3-none-any.whl"),
    "filename tags in upper case": _named("demo-2.0-py3-none-ANY.whl"),
    "console script named through a subdirectory back into bin": _script_named("sub/../tool"),
    "console script with text after its callable": _script_named("tool", "demo:main junk"),
    "console script with a format sequence after its callable": _script_named(
        "tool", "demo:main%(x)s"
    ),
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


@pytest.mark.parametrize("case", sorted(ACCEPTED))
def test_what_pip_installs_beside_these_refusals_is_no_w616(tmp_path: Path, case: str) -> None:
    patch = ACCEPTED[case](tmp_path / "p")
    assert pip_install(patch, tmp_path / "target").ok, f"pip refused the {case} wheel"
    base = write_wheel(tmp_path / "b", "demo", "1.0", FILES)
    _, report = wheels_json(base, patch)
    assert "W616" not in codes(report), report["findings"]
    assert "W616" not in audit_code(patch)[1]


def test_the_valid_wheels_of_these_cases_pass(tmp_path: Path) -> None:
    base = write_wheel(tmp_path / "b", "demo", "1.0", FILES)
    ep = b"[console_scripts]\ndemo-tool = demo.cli:main [extra]\n"
    patch = write_wheel(tmp_path / "p", "demo", "2.0", {**FILES, f"{DIST}/entry_points.txt": ep})
    assert pip_install(patch, tmp_path / "target").ok
    assert audit_code(patch) == (0, set())
    _, report = wheels_json(base, patch)
    assert "W616" not in codes(report)
