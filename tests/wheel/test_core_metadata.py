"""Core metadata judged as twine and PyPI judge it (`packaging.metadata`, validation on): audit
fails what twine refuses (A122), `wheels` lists the patch's (W624). twine itself, where
installed, is the oracle (`twine check` reads the metadata as `twine upload` does). Each of
these pip installs (checked): what pip refuses as well (a `Requires-Dist` that is not PEP 508)
is W616 in both commands, `test_pip_refusals`."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_support import run_k3diff

from wheel.pipinstall import pip_install
from wheel.rawwheel import metadata, write_wheel
from wheel.test_installed_view import audit_code, codes, wheels_json

FILES = {"demo/__init__.py": b""}
REFUSED = {
    "field newer than the declared version": ("License-Expression: MIT",),
    "Requires-Python that is no specifier set": ("Requires-Python: >>3",),
    "unknown field": ("Frobnicate: yes",),
}
ACCEPTED = {
    "plain": (),
    "License-File under 2.1 (setuptools' old metadata, which twine drops)": (
        "License-File: LICENSE",
    ),
}


def twine_refuses(wheel: Path, tmp_path: Path) -> bool | None:
    tool = shutil.which("twine") or str(Path(sys.executable).parent / "twine")
    if not Path(tool).exists():
        return None
    env = {**os.environ, "HOME": str(tmp_path)}
    done = subprocess.run(
        [tool, "check", str(wheel)], capture_output=True, text=True, env=env, timeout=120
    )
    return done.returncode != 0


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_metadata_twine_refuses_fails_audit_and_is_listed_by_wheels(
    tmp_path: Path, case: str
) -> None:
    meta = metadata("demo", "2.0", *REFUSED[case], metadata_version="2.3")
    patch = write_wheel(tmp_path / "p", "demo", "2.0", FILES, meta=meta)
    assert twine_refuses(patch, tmp_path) in (True, None)
    assert pip_install(patch, tmp_path / "target").ok
    assert audit_code(patch) == (1, {"A122"})
    base = write_wheel(tmp_path / "b", "demo", "1.0", FILES)
    exit_code, report = wheels_json(base, patch)
    assert exit_code == 0 and "W624" in codes(report)


@pytest.mark.parametrize("case", sorted(ACCEPTED))
def test_metadata_twine_accepts_passes(tmp_path: Path, case: str) -> None:
    meta = metadata("demo", "2.0", *ACCEPTED[case], metadata_version="2.1")
    files = {**FILES, "demo-2.0.dist-info/LICENSE": b"MIT\n"}
    wheel = write_wheel(tmp_path, "demo", "2.0", files, meta=meta)
    assert twine_refuses(wheel, tmp_path) in (False, None)
    assert audit_code(wheel) == (0, set())


def test_a_license_file_the_wheel_lacks_fails_audit_and_is_listed_by_wheels(
    tmp_path: Path,
) -> None:
    """sdist76: PyPI refuses the upload (`License-File LICENSE does not exist in distribution
    file ... at demo-2.0.dist-info/licenses/LICENSE`, PEP 639); it passed, exit 0. Where the
    file is elsewhere in the wheel, the same."""
    meta = metadata("demo", "2.0", "License-File: LICENSE", metadata_version="2.4")
    files = {**FILES, "demo-2.0.dist-info/LICENSE": b"MIT\n"}  # not under licenses/
    patch = write_wheel(tmp_path / "p", "demo", "2.0", files, meta=meta)
    assert pip_install(patch, tmp_path / "target").ok
    assert audit_code(patch) == (1, {"A122"})
    result = run_k3diff("audit", patch)
    assert "License-File: 'LICENSE' names demo-2.0.dist-info/licenses/LICENSE" in result.stdout
    base = write_wheel(tmp_path / "b", "demo", "1.0", FILES)
    exit_code, report = wheels_json(base, patch)
    assert exit_code == 0 and "W624" in codes(report)


def test_a_license_file_the_wheel_holds_passes(tmp_path: Path) -> None:
    meta = metadata("demo", "2.0", "License-File: LICENSE", metadata_version="2.4")
    files = {**FILES, "demo-2.0.dist-info/licenses/LICENSE": b"MIT\n"}
    wheel = write_wheel(tmp_path, "demo", "2.0", files, meta=meta)
    assert twine_refuses(wheel, tmp_path) in (False, None)
    assert audit_code(wheel) == (0, set())
