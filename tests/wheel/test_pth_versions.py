"""`.pth` files are read as each supported Python's `site` reads them: a UTF-8 byte order mark
before an `import` line hides it from 3.12 and earlier but not from 3.13, which strips the mark
(and splits lines at form feeds too). Each executable line says which Pythons run it; real
interpreters found on the machine are the oracle. A `.pth` whose name carries the version and
whose bytes did not change (every legacy namespace package: ruamel.yaml 0.16.12 -> 0.16.13) is
unchanged, not new executable code."""

from __future__ import annotations

import glob
import subprocess
from pathlib import Path

import pytest

from k3diff.wheel.pth import PthRuns, pth_lines
from wheel.rawwheel import write_wheel
from wheel.test_installed_view import audit_code, codes, wheels_json

MARKER = "PTH-RAN"
LINE = f"import sys; sys.stdout.write('{MARKER}')"
CASES = {
    "plain": (f"{LINE}\n".encode(), PthRuns.EVERY),
    "byte order mark": (f"\ufeff{LINE}\n".encode(), PthRuns.MODERN),
    "form feed": (f"/opt/lib\x0c{LINE}\n".encode(), PthRuns.MODERN),
}


def _interpreter(version: str) -> str | None:
    found = sorted(glob.glob(f"/root/.pyenv/versions/{version}.*/bin/python{version}"))
    found += sorted(glob.glob(f"/usr/bin/python{version}"))
    return found[0] if found else None


def _runs(python: str, directory: Path) -> bool:
    code = f"import site; site.addsitedir({str(directory)!r})"
    done = subprocess.run([python, "-S", "-c", code], capture_output=True, text=True, timeout=60)
    return MARKER in done.stdout


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_line_says_which_pythons_run_it(tmp_path: Path, case: str) -> None:
    data, runs = CASES[case]
    (executable,) = [line for line in pth_lines(data) if line.executable]
    assert executable.runs_on is runs and executable.text == LINE
    (tmp_path / "x.pth").write_bytes(data)
    for version, expected in (("3.12", runs is not PthRuns.MODERN), ("3.13", True)):
        python = _interpreter(version)
        if python is not None:
            assert _runs(python, tmp_path) is expected, (version, case)


def test_an_import_line_behind_a_bom_fails_both_commands(tmp_path: Path) -> None:
    base = write_wheel(tmp_path / "b", "demo", "1.0", {"demo/__init__.py": b""})
    files = {"demo/__init__.py": b"", "evil.pth": f"\ufeff{LINE}\n".encode()}
    patch = write_wheel(tmp_path / "p", "demo", "2.0", files)
    exit_code, report = wheels_json(base, patch)
    assert exit_code == 1 and "W701" in codes(report)
    (pth,) = [s for s in report["execution_surfaces"]["patch"] if s["kind"] == "pth"]
    assert pth["lines"] == [{"text": LINE, "kind": "executable", "runs_on": PthRuns.MODERN}]
    assert "executed only on Python 3.13 and later" in pth["summary"]


NSPKG = (
    b"import sys, types, os;p = os.path.join(sys._getframe(1).f_locals['sitedir'], 'demo');"
    b"m = sys.modules.setdefault('demo', types.ModuleType('demo'))\n"
)


def test_a_versioned_nspkg_pth_with_unchanged_bytes_passes(tmp_path: Path) -> None:
    base = write_wheel(
        tmp_path / "b", "demo", "1.0", {"demo/x.py": b"", "demo-1.0-py3.8-nspkg.pth": NSPKG}
    )
    patch = write_wheel(
        tmp_path / "p", "demo", "1.1", {"demo/x.py": b"", "demo-1.1-py3.8-nspkg.pth": NSPKG}
    )
    exit_code, report = wheels_json(base, patch)
    assert exit_code == 0, report["findings"]
    assert not codes(report) & {"W701", "W710"}
    changes = {c["key"]: c["status"] for c in report["execution_surfaces"]["changes"]}
    assert changes["site-packages/demo-1.1-py3.8-nspkg.pth"] == "unchanged"
    assert audit_code(patch) == (0, {"A127"})  # its executable line, a warning
    changed = write_wheel(
        tmp_path / "q",
        "demo",
        "1.1",
        {"demo/x.py": b"", "demo-1.1-py3.8-nspkg.pth": NSPKG + b"import evil\n"},
    )
    exit_code, report = wheels_json(base, changed)
    assert exit_code == 1 and "W701" in codes(report)
