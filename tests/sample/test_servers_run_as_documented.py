"""The test servers run as their docstrings say, from any directory and without PYTHONPATH:
`python tests/sample/fault_server.py --help` stopped on `No module named 'fault_metrics'`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent


@pytest.mark.parametrize("server", ["fault_server.py", "gateway_server.py"])
def test_a_server_script_shows_its_help_without_pythonpath(tmp_path: Path, server: str) -> None:
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    result = subprocess.run(
        [sys.executable, str(HERE / server), "--help"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "--log" in result.stdout
