"""The wheels command pauses the cycle collector and freezes its model (`collector_paused`);
an in-process caller gets the collector back as it was, nothing left frozen."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest
from cli_support import run_k3diff
from wheelkit import make_wheel

from k3diff.cli.gcthreshold import collector_paused, thaw


def test_collector_paused_freezes_and_restores_the_state() -> None:
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
        kept = [[index] for index in range(1000)]
    assert gc.isenabled()
    assert gc.get_freeze_count() >= len(kept)
    thaw()
    assert gc.get_freeze_count() == 0


def test_collector_paused_restores_on_error_and_leaves_a_disabled_collector_off() -> None:
    with pytest.raises(ValueError), collector_paused():
        raise ValueError("inside")
    assert gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
        thaw()


def test_an_in_process_wheels_run_leaves_nothing_frozen(tmp_path: Path) -> None:
    base = make_wheel(tmp_path / "a", "pkg", "1.0", {"pkg/__init__.py": b"x = 1\n"})
    patch = make_wheel(tmp_path / "b", "pkg", "1.0", {"pkg/__init__.py": b"x = 2\n"})
    result = run_k3diff("wheels", base, patch, "--no-file-hash")
    assert result.exit_code == 0, result.stderr
    assert "pkg/__init__.py" in result.stdout
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0
