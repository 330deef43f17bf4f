"""`--allow-native-changes` and the execution surfaces that are native changes (hostile59 item
4): a `.data/scripts` file that is a native executable rebuilt (W708: z3_solver 4.16 -> 5.1's
`bin/z3`) and an extension added beside the module it now shadows (W628: Cython compiling its
own `.py`) are native changes the option lets pass, named in the verdict line as other allowed
changes are. A text script, a new `.py` or a new package never is."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import wheelkit
from cli_support import run_json, run_k3diff

SO = wheelkit.elf_program(b"\x55\x48\x89\xe5" * 512)
SO_CHANGED = wheelkit.elf_program(b"\x31\xc0\xc3\x90" * 512)
"""x86_64 ELF programs Linux loads (as scripts and as extensions)."""
TAG = "cp311-cp311-linux_x86_64"
FILES = {"engine/__init__.py": b"", "engine/ext.py": b"def run(x):\n    return x + 1\n"}
EXT = "engine/ext.cpython-311-x86_64-linux-gnu.so"
ALLOW = "--allow-native-changes"


def _pair(tmp_path: Path, base: dict[str, bytes], patch: dict[str, bytes]) -> tuple[Path, Path]:
    return (
        wheelkit.make_wheel(tmp_path / "base", "engine", "1.0", base, tag=TAG),
        wheelkit.make_wheel(tmp_path / "patch", "engine", "2.0", patch, tag=TAG),
    )


def _scripts(version: str, data: bytes) -> dict[str, bytes]:
    return {**FILES, f"engine-{version}.data/scripts/engine-solver": data}


def _found(report: dict[str, Any], code: str) -> list[dict[str, Any]]:
    return [f for f in report["findings"] if f["code"] == code]


def _verdict(tmp_path: Path, base: Path, patch: Path, *options: str) -> tuple[int, str]:
    result = run_k3diff("wheels", base, patch, *options)
    return result.exit_code, result.stdout.strip().splitlines()[-1]


def test_a_rebuilt_native_script_passes_with_allow_native_changes(tmp_path: Path) -> None:
    base, patch = _pair(tmp_path, _scripts("1.0", SO), _scripts("2.0", SO_CHANGED))
    code, report = run_json("wheels", base, patch)
    assert code == 1
    [w708] = _found(report, "W708")
    assert w708["severity"] == "error" and w708["native"] is True
    code, verdict = _verdict(tmp_path, base, patch, ALLOW)
    assert code == 0, verdict
    assert f"let pass by {ALLOW}: 1 × W101 (would fail), 1 × W708 (would fail)" in verdict
    code, report = run_json("wheels", base, patch, ALLOW)
    assert code == 0 and _found(report, "W708")[0]["severity"] == "info"


def test_w708_s_title_fits_a_data_bin_file_as_well_as_a_script(tmp_path: Path) -> None:
    """newuser61: z3_solver's `.data/data/bin/z3` was titled ".data/scripts file added or
    changed"."""
    z3 = {
        v: {**FILES, f"engine-{v}.data/data/bin/z3": so}
        for v, so in (("1.0", SO), ("2.0", SO_CHANGED))
    }
    base, patch = _pair(tmp_path, z3["1.0"], z3["2.0"])
    result = run_k3diff("wheels", base, patch)
    # One row with the W101 of its path (stop 63: a rebuilt native script is one change).
    [line] = [x for x in result.stdout.splitlines() if x.startswith("W101, W708")]
    assert "file pip copies into bin/ added or changed (.data/scripts, .data/data/bin)" in line
    assert ".data/scripts file added" not in result.stdout


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (b"#!/bin/sh\necho 1\n", b"#!/bin/sh\necho 2\n"),  # a text script changed
        (SO, b"#!/bin/sh\nexec evil\n"),  # a native replaced by a text script
    ],
)
def test_a_text_script_is_never_let_pass(tmp_path: Path, old: bytes, new: bytes) -> None:
    base, patch = _pair(tmp_path, _scripts("1.0", old), _scripts("2.0", new))
    code, report = run_json("wheels", base, patch, ALLOW)
    assert code == 1
    [w708] = _found(report, "W708")
    assert w708["severity"] == "error" and "native" not in w708
    _, verdict = _verdict(tmp_path, base, patch, ALLOW)
    assert verdict.startswith("Verdict: FAIL (exit 1): 1 × W708"), verdict


def test_an_extension_compiled_beside_its_module_passes_with_allow(tmp_path: Path) -> None:
    """Cython compiling its own `.py`: the new `.so` shadows the unchanged `.py` (W628) and is
    a native entry added (W103); both are the native change the option expects."""
    base, patch = _pair(tmp_path, FILES, {**FILES, EXT: SO})
    code, report = run_json("wheels", base, patch)
    assert code == 1
    [w628] = _found(report, "W628")
    assert w628["path"] == EXT and w628["native"] is True and w628["severity"] == "error"
    code, verdict = _verdict(tmp_path, base, patch, ALLOW)
    assert code == 0, verdict
    assert f"let pass by {ALLOW}: 1 × W103 (would fail), 1 × W628 (would fail)" in verdict


@pytest.mark.parametrize(
    "added",
    [
        {"engine/ext/__init__.py": b"def run(x):\n    return x - 1\n"},  # a new package
        {"engine/ext/__init__.cpython-311-x86_64-linux-gnu.so": SO},  # a native package
    ],
)
def test_a_new_package_shadowing_a_module_is_never_let_pass(
    tmp_path: Path, added: dict[str, bytes]
) -> None:
    base, patch = _pair(tmp_path, FILES, {**FILES, **added})
    code, report = run_json("wheels", base, patch, ALLOW)
    assert code == 1
    [w628] = _found(report, "W628")
    assert w628["severity"] == "error" and "native" not in w628


def test_a_new_source_beside_sourceless_bytecode_is_never_let_pass(tmp_path: Path) -> None:
    files = {"engine/__init__.py": b"", "engine/ext.pyc": b"\x00" * 16}
    base, patch = _pair(tmp_path, files, {**files, "engine/ext.py": b"X = 1\n"})
    code, report = run_json("wheels", base, patch, ALLOW)
    assert code == 1
    [w628] = _found(report, "W628")
    assert w628["severity"] == "error" and "native" not in w628


def test_the_bundle_reads_the_allowed_native_script_and_refuses_a_relabelled_text_one(
    tmp_path: Path,
) -> None:
    """`k3diff report` judges the verdict again: a native W708 at info is the run's
    `--allow-native-changes`, named in the bundle; a text script's W708 relabelled info is no
    run's and is refused."""
    base, patch = _pair(tmp_path, _scripts("1.0", SO), _scripts("2.0", SO_CHANGED))
    allowed = run_k3diff(
        "wheels", base, patch, ALLOW, "--format", "json", "-o", "a.json", cwd=tmp_path
    )
    assert allowed.exit_code == 0, allowed.stderr
    bundle = run_k3diff("report", "a.json", "--out", "bundle", cwd=tmp_path)
    assert bundle.exit_code == 0, bundle.stderr
    report = (tmp_path / "bundle/REPORT.md").read_text()
    assert "native changes were allowed (--allow-native-changes): 1 × W101, 1 × W708" in report
    document = json.loads((tmp_path / "a.json").read_text())
    w708 = next(f for f in document["findings"] if f["code"] == "W708")
    del w708["native"]
    (tmp_path / "forged.json").write_text(json.dumps(document))
    refused = run_k3diff("report", "forged.json", "--out", "bundle2", cwd=tmp_path)
    assert refused.exit_code == 2, refused.stdout
    assert "W708" in refused.stderr and "fails every run that does not waive it" in refused.stderr


def _forged_native(tmp_path: Path, base: Path, patch: Path, code: str) -> int:
    """The `--allow-native-changes` run's document with its failing `code` finding (about no
    native) marked `native: true` and `info`, and the verdict made a pass: `report`'s exit."""
    run = run_k3diff("wheels", base, patch, ALLOW, "--format", "json", "-o", "a.json", cwd=tmp_path)
    assert run.exit_code == 1, run.stdout
    document = json.loads((tmp_path / "a.json").read_text())
    (finding,) = _found(document, code)
    assert finding["severity"] == "error" and "native" not in finding
    finding.update(native=True, severity="info")
    document["verdict"].update(ok=True, exit_code=0)
    (tmp_path / "forged.json").write_text(json.dumps(document))
    return run_k3diff("report", "forged.json", "--out", "bundle", cwd=tmp_path).exit_code


def test_report_refuses_a_native_mark_forged_onto_a_text_script(tmp_path: Path) -> None:
    """A text script's W708 marked `native: true` at info reads as the run's
    `--allow-native-changes`; but the document's own entries say the script is no native (an
    `other` entry, sniffed): the mark is no run's, and the bundle refuses it."""
    old, new = b"#!/bin/sh\necho 1\n", b"#!/bin/sh\nexec evil\n"
    base, patch = _pair(tmp_path, _scripts("1.0", old), _scripts("2.0", new))
    assert _forged_native(tmp_path, base, patch, "W708") == 2


def test_report_refuses_a_native_mark_forged_onto_a_new_module(tmp_path: Path) -> None:
    """A new `.py` shadowing sourceless bytecode (W628) is no extension: `native: true` on it
    is refused."""
    files = {"engine/__init__.py": b"", "engine/ext.pyc": b"\x00" * 16}
    base, patch = _pair(tmp_path, files, {**files, "engine/ext.py": b"X = 1\n"})
    assert _forged_native(tmp_path, base, patch, "W628") == 2


Z3 = Path("/opt/pypi/files")
Z3_PAIR = (
    Z3 / "z3_solver-4.16.0.0-py3-none-manylinux_2_27_x86_64.whl",
    Z3 / "z3_solver-5.1.0.0-py3-none-manylinux_2_27_x86_64.whl",
)


@pytest.mark.skipif(not all(p.exists() for p in Z3_PAIR), reason="the real z3_solver wheels")
def test_the_real_z3_solver_release_passes_when_native_changes_are_expected() -> None:
    """z3_solver 4.16 -> 5.1 rebuilt `bin/z3` (a native executable in `.data/data/bin`):
    before, `--allow-native-changes` left it failing on W708 alone."""
    result = run_k3diff("wheels", *Z3_PAIR, ALLOW, "--no-file-hash")
    verdict = result.stdout.strip().splitlines()[-1]
    assert result.exit_code == 0, verdict
    assert "1 × W708 (would fail)" in verdict
    assert run_k3diff("wheels", *Z3_PAIR, "--no-file-hash").exit_code == 1
