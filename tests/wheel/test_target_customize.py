"""`pip install --target DIR` puts a wheel's `.data/data/` files at DIR's top, beside its
packages (pip 26 installs into a temporary home and moves the top entries of its library and
data directories into DIR, all but `lib`), and DIR is on `sys.path` for the programs that use
it (`PYTHONPATH=DIR`, a Lambda layer): so `.data/data/sitecustomize.py` lands at
`DIR/sitecustomize.py`, which `site` imports at every start. Before (pth71), a patch adding it
passed `wheels` (exit 0, W203) and `audit` of the wheel passed.

The oracle is the install itself: pip 26 installs the wheel with `--target`, and a Python with
`PYTHONPATH=DIR` runs `-c pass`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from audit.helpers import audit_json

from wheel.test_pth_leaving_site import MARK, RUNS, _w702, _wheels


def _runs_from_a_target(tmp_path: Path, wheel: Path) -> bool:
    """pip 26 installs `wheel` with `--target DIR`; a Python with `PYTHONPATH=DIR` starts."""
    target = tmp_path / "target"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--quiet",
         "--disable-pip-version-check", "--target", target, wheel],
        check=True, capture_output=True, timeout=300,
        env={**os.environ, "PIP_NO_INPUT": "1", "PIP_CONFIG_FILE": os.devnull},
    )  # fmt: skip
    clean = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    done = subprocess.run(
        [sys.executable, "-c", "pass"], capture_output=True, text=True, timeout=60, check=True,
        env={**clean, "PYTHONPATH": str(target)},
    )  # fmt: skip
    return MARK in done.stdout


@pytest.mark.parametrize(
    "module",
    ["demo-2.0.data/data/sitecustomize.py", "demo-2.0.data/data/sitecustomize/__init__.py"],
)
def test_a_data_customize_module_a_target_install_runs_fails(tmp_path: Path, module: str) -> None:
    code, report, new = _wheels(tmp_path, {module: RUNS})
    assert _runs_from_a_target(tmp_path, new)
    assert code == 1
    assert "where `pip install --target DIR` installs it" in _w702(report)[module]
    audited, found = audit_json(new)
    assert audited == 1
    assert [f["path"] for f in found["artifacts"][0]["findings"] if f["code"] == "W702"] == [module]


def test_a_data_customize_module_under_lib_lands_nowhere_a_target_reads(tmp_path: Path) -> None:
    """pip moves every top entry of the data directory but `lib`, its home's library
    directory, whose packages it has moved already."""
    module = "demo-2.0.data/data/lib/sitecustomize.py"
    code, report, new = _wheels(tmp_path, {module: RUNS})
    assert not _runs_from_a_target(tmp_path, new)
    assert code == 0 and not _w702(report)
