"""A139's next step (newuser75): `auditwheel repair` rewrites the search path only of a native it
copies a library in for (auditwheel's `repair_wheel`: `append_rpath_within_wheel` where the
native has external libraries), so a native that needs none keeps its RPATH/RUNPATH through the
repair (scipy 1.17.1's `cython_special` kept its build machine's). The step said `auditwheel
repair` alone fixes it; it names `patchelf` on the unpacked wheel too (checked by hand on that
scipy wheel: `wheel unpack`, `patchelf --remove-rpath`, `wheel pack`, then the audit passed)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from cli_support import run_k3diff

from audit.test_rpath_hijack import demo_wheel, library

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs a C compiler")


def test_the_step_removes_a_path_auditwheel_repair_keeps(tmp_path: Path) -> None:
    so = library(tmp_path / "c", "/tmp/build/lib", runpath=True)
    wheel = demo_wheel(tmp_path / "w", "1.0", {"demo/_ext.so": so})
    result = run_k3diff("audit", wheel)
    assert result.exit_code == 1, result.stderr
    (step,) = [line for line in result.stdout.splitlines() if "1 × A139" in line]
    assert "only from a native it copies a library in for" in step
    assert "wheel unpack " in step and " -d DIR, run patchelf --remove-rpath FILE" in step
    assert "under DIR/demo-1.0" in step and "wheel pack DIR/demo-1.0, then audit" in step
