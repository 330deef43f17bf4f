"""Property: whatever bytes a damaged or hostile wheel holds, `k3diff wheels` ends with exit 0,
1 or 2 — a report or one clear error — never a traceback and never a hang."""

from __future__ import annotations

from pathlib import Path

import wheelkit
from hypothesis import given
from hypothesis import strategies as st

from k3diff.errors import K3diffError
from k3diff.output import OutputFormat
from k3diff.report.wheels import render
from k3diff.wheels.compare import WheelOptions, compare_wheels
from wheels.damage_support import Edit, damage_edits, damage_settings, damaged

FILES = {
    "pkg/__init__.py": b"x = 1\n" * 50,
    "pkg/lib.so": wheelkit.elf_bytes(b"\x90" * 2000),
    "pkg/bin/tool": wheelkit.elf_bytes(b"\xc3" * 300),
}


def _base(directory: Path) -> Path:
    return wheelkit.make_wheel(directory, "pkg", "1.0", FILES, filename="base.whl")


@damage_settings(150)
@given(
    edits=damage_edits(max_size=6), cut=st.one_of(st.none(), st.floats(min_value=0, max_value=1))
)
def test_mutated_wheel_gives_a_report_or_one_clear_error(
    tmp_path: Path, edits: list[Edit], cut: float | None
) -> None:
    base = _base(tmp_path)
    data = damaged(base.read_bytes(), edits)
    if cut is not None:
        data = data[: int(cut * len(data))]
    mutated = tmp_path / "mutated.whl"
    mutated.write_bytes(bytes(data))
    try:
        report = compare_wheels(base, mutated, WheelOptions(jobs=2))
    except K3diffError as exc:
        message = str(exc)
        assert "\n" not in message
        assert str(mutated) in message or str(base) in message
        return
    assert int(report.exit_code) in (0, 1)
    for fmt in OutputFormat:
        assert render(report, fmt)
