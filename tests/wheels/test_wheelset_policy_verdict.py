"""A release set's one verdict line says what its OK rests on (fix58, the release-set leftover):
the findings `--allow-*` let pass and those `--select`/`--ignore` left out, summed over the
pairs, as a single pair's verdict does; before, only each pair's section said so and the set's
last line read `every pair passes` like a clean run."""

from __future__ import annotations

from pathlib import Path

import pytest
import wheelkit
from cli_support import run_k3diff

SO = wheelkit.elf_bytes(b"\x55\x48\x89\xe5" * 512)
SO_CHANGED = wheelkit.elf_bytes(b"\x31\xc0\xc3\x90" * 512)
TAG = "cp311-cp311-linux_x86_64"


def _sets(tmp_path: Path) -> tuple[Path, Path]:
    for side, payload in (("a", SO), ("b", SO_CHANGED)):
        for name in ("alpha", "beta"):
            files = {f"{name}/__init__.py": b"", f"{name}/_k.so": payload}
            wheelkit.make_wheel(tmp_path / side, name, "1.0", files, tag=TAG)
    return tmp_path / "a", tmp_path / "b"


@pytest.mark.parametrize(
    ("option", "clause"),
    [
        (("--allow-native-changes",), "2 findings let pass by --allow-native-changes: 2 × W101"),
        (("--ignore", "W101"), "2 findings filtered out by --select/--ignore: 2 × W101"),
    ],
)
@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_the_set_verdict_names_what_the_policy_let_pass(
    tmp_path: Path, option: tuple[str, ...], clause: str, fmt: str
) -> None:
    base, patch = _sets(tmp_path)
    assert run_k3diff("wheels", base, patch, "--no-file-hash").exit_code == 1
    result = run_k3diff("wheels", base, patch, "--no-file-hash", *option, "--format", fmt)
    assert result.exit_code == 0, result.stdout
    verdict = result.stdout.strip().splitlines()[-1]
    assert "every pair passes (2 pairs, 0 failing, 0 unpaired)" in verdict, verdict
    assert f"{clause} (would fail)" in verdict, verdict
