"""Hostile content in the files the installed view and the surfaces read (entry_points.txt,
`.pth`, bytecode headers, ELF loader tables, SBOMs, WHEEL): both commands end with 0, 1 or 2,
never a traceback, and a wheel pip cannot read is never a pass."""

from __future__ import annotations

from pathlib import Path

from cli_support import run_k3diff
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wheel.test_installed_view import BASE_FILES
from wheel.tricks import build

TARGETS = [
    "demo-2.0.dist-info/entry_points.txt",
    "evil.pth",
    "demo/__pycache__/__init__.cpython-311.pyc",
    "demo/_lib.so",
    "demo-2.0.dist-info/sboms/bom.json",
    "demo-2.0.data/scripts/tool",
]
ELF_HEAD = b"\x7fELF\x02\x01\x01" + bytes(9)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    target=st.sampled_from(TARGETS),
    body=st.binary(max_size=400),
    elf=st.booleans(),
    wheel_version=st.sampled_from(["1.0", "1.9", "2.0", "x", ""]),
)
def test_hostile_surface_files_never_traceback(
    tmp_path_factory: object, target: str, body: bytes, elf: bool, wheel_version: str
) -> None:
    root = Path(tmp_path_factory.mktemp("hostile"))  # type: ignore[attr-defined]
    base = build(root / "b", "1.0", BASE_FILES)
    content = (ELF_HEAD + body) if elf else body
    patch = build(root / "p", "2.0", {**BASE_FILES, target: content}, wheel_version=wheel_version)
    wheels = run_k3diff("wheels", base, patch, "--explain")
    audit = run_k3diff("audit", patch)
    assert wheels.exit_code in (0, 1, 2) and audit.exit_code in (0, 1, 2)
    assert "Traceback" not in wheels.stderr + audit.stderr
    if wheel_version != "1.0" and wheel_version != "1.9":
        assert wheels.exit_code != 0 and audit.exit_code != 0
