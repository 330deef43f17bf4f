"""Pyodide takes its `pyemscripten_ABI_wasm32` wheels first, then its `emscripten_X_Y_Z_wasm32`
ones (packaging's `_emscripten_platforms`): one machine, not two (release77: weighed as two, a
pyemscripten wheel added beside the compared emscripten one was one-sided, exit 0)."""

from __future__ import annotations

from pathlib import Path

from cli_support import run_k3diff

from .test_wheelset_pipchoice import Interpreter, _pip_choice
from .wheelset_support import write

_BODY = {"engine/__init__.py": b"X = 1\n"}
_ABI = "cp313-cp313-pyemscripten_2025_0_wasm32"
_SYSTEM = "cp313-cp313-emscripten_4_0_9_wasm32"


def test_a_pyemscripten_wheel_added_beside_an_emscripten_one_is_refused(tmp_path: Path) -> None:
    write(tmp_path / "base", "engine", "1.0", _SYSTEM, _BODY)
    write(tmp_path / "patch", "engine", "1.1", _SYSTEM, _BODY)
    write(tmp_path / "patch", "engine", "1.1", _ABI, _BODY)
    result = run_k3diff("wheels", "base", "patch", "--allow-unpaired", cwd=tmp_path)
    assert result.exit_code == 2, result.stdout
    assert f"patch wheel patch/engine-1.1-{_ABI}.whl is not one-sided" in result.stderr
    assert "Pyodide of pyemscripten_2025_0_wasm32 on emscripten_4_0_9_wasm32" in result.stderr
    # pip itself, on that Pyodide's platform values, installs the added wheel.
    pyodide: Interpreter = ("3.13", [], ["pyemscripten_2025_0_wasm32", "emscripten_4_0_9_wasm32"])
    assert _pip_choice(tmp_path / "patch", pyodide) == f"engine-1.1-{_ABI}.whl"


def test_a_pyodide_platform_added_alone_is_one_sided(tmp_path: Path) -> None:
    write(tmp_path / "base", "engine", "1.0", "cp313-cp313-manylinux_2_17_x86_64", _BODY)
    write(tmp_path / "patch", "engine", "1.1", "cp313-cp313-manylinux_2_17_x86_64", _BODY)
    write(tmp_path / "patch", "engine", "1.1", _ABI, _BODY)
    result = run_k3diff("wheels", "base", "patch", "--allow-unpaired", cwd=tmp_path)
    assert result.exit_code == 0, result.stderr
