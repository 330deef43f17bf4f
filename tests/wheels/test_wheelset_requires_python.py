"""A wheel whose METADATA Requires-Python excludes a Python is not what pip installs there: pip
takes the next candidate of the release (release77: the choice read the filenames alone, so a
patch wheel pip installs in place of the compared one, never compared, passed with exit 0)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import run_k3diff

from .test_wheelset_pipchoice import _GLIBC_2_17, _pip_choice
from .wheelset_support import write

_BODY = {"engine/__init__.py": b"X = 1\n"}
_ABI3_39 = "cp39-abi3-manylinux_2_17_x86_64"
_ABI3_38 = "cp38-abi3-manylinux_2_17_x86_64"


def test_a_wheel_pip_installs_past_an_excluding_requires_python_is_refused(
    tmp_path: Path,
) -> None:
    """CPython 3.9 on x86_64: the base installs its cp39-abi3 wheel; the patch's compared 1.1
    requires 3.10, so pip installs the patch directory's older 1.0.1 cp38-abi3 wheel there
    (release77: exit 0, the filenames alone chose the compared 1.1)."""
    write(tmp_path / "base", "engine", "1.0", _ABI3_39, _BODY, ">=3.9")
    write(tmp_path / "patch", "engine", "1.1", _ABI3_39, _BODY, ">=3.10")
    write(tmp_path / "patch", "engine", "1.0.1", _ABI3_38, _BODY, ">=3.8")
    args = ("wheels", "base", "patch", "--allow-unpaired", "--ignore", "W630")
    result = run_k3diff(*args, cwd=tmp_path)
    assert result.exit_code == 2, result.stdout
    assert f"patch wheel patch/engine-1.0.1-{_ABI3_38}.whl is not one-sided" in result.stderr
    assert "on CPython 3.9 on x86_64 Linux" in result.stderr


def test_a_micro_release_bound_is_weighed(tmp_path: Path) -> None:
    """`>=3.9.1`: CPython 3.9.0 skips the compared patch 1.1 (3.9.1 installs it)."""
    write(tmp_path / "base", "engine", "1.0", _ABI3_39, _BODY, ">=3.9")
    write(tmp_path / "patch", "engine", "1.1", _ABI3_39, _BODY, ">=3.9.1")
    write(tmp_path / "patch", "engine", "1.0.1", _ABI3_38, _BODY, ">=3.8")
    args = ("wheels", "base", "patch", "--allow-unpaired", "--ignore", "W630")
    result = run_k3diff(*args, cwd=tmp_path)
    assert result.exit_code == 2, result.stdout
    assert "on CPython 3.9 on x86_64 Linux" in result.stderr


def test_pip_takes_no_other_file_of_an_excluded_version(tmp_path: Path) -> None:
    """pip weighs one file a version: 1.1's cp39-abi3 wheel excluded on 3.9, pip installs
    nothing of 1.1 there, not its cp38-abi3 wheel: the base's wheel is one-sided there."""
    write(tmp_path / "base", "engine", "1.0", _ABI3_39, _BODY, ">=3.9")
    write(tmp_path / "patch", "engine", "1.1", _ABI3_39, _BODY, ">=3.10")
    write(tmp_path / "patch", "engine", "1.1", _ABI3_38, _BODY, ">=3.8")
    args = ("wheels", "base", "patch", "--allow-unpaired", "--ignore", "W630")
    result = run_k3diff(*args, cwd=tmp_path)
    assert result.exit_code == 0, result.stderr


def test_a_fallback_where_both_releases_skip_is_one_sided(tmp_path: Path) -> None:
    """Both compared wheels require 3.10: on 3.9 the base installs nothing and the patch its
    cp38-abi3 wheel, one-sided."""
    write(tmp_path / "base", "engine", "1.0", _ABI3_39, _BODY, ">=3.10")
    write(tmp_path / "patch", "engine", "1.1", _ABI3_39, _BODY, ">=3.10")
    write(tmp_path / "patch", "engine", "1.1", _ABI3_38, _BODY, ">=3.8")
    result = run_k3diff("wheels", "base", "patch", "--allow-unpaired", cwd=tmp_path)
    assert result.exit_code == 0, result.stderr


def test_a_wheel_no_python_admits_is_never_chosen(tmp_path: Path) -> None:
    """A cp312-none-any patch wheel requiring 3.13 installs nowhere: CPython 3.12 installs the
    compared py3 wheel (release77: refused as what 3.12 installs, exit 2)."""
    write(tmp_path / "base", "engine", "1.0", "py3-none-any", _BODY)
    write(tmp_path / "patch", "engine", "1.1", "py3-none-any", _BODY)
    write(tmp_path / "patch", "engine", "1.1", "cp312-none-any", _BODY, ">=3.13")
    result = run_k3diff("wheels", "base", "patch", "--allow-unpaired", cwd=tmp_path)
    assert result.exit_code == 0, result.stderr


def test_pip_takes_the_next_version_past_requires_python(tmp_path: Path) -> None:
    """pip 26 itself, on CPython 3.9.0 and 3.9.1 on glibc 2.17 x86_64, from the patch of the
    micro-release case: the older version's wheel, then the compared one; and nothing of a
    version whose best file excludes the Python."""
    write(tmp_path / "patch", "engine", "1.1", _ABI3_39, _BODY, ">=3.9.1")
    write(tmp_path / "patch", "engine", "1.0.1", _ABI3_38, _BODY, ">=3.8")
    for version, chosen in (("3.9.0", f"1.0.1-{_ABI3_38}"), ("3.9.1", f"1.1-{_ABI3_39}")):
        found = _pip_choice(tmp_path / "patch", (version, [], _GLIBC_2_17))
        assert found == f"engine-{chosen}.whl"


def _tie_past_requires_python(root: Path) -> None:
    """The patch's 1.1.0 `py3-none-any.win_amd64` wheel is paired with the base's `py3-none-any`
    one; on Windows it ties with 1.1's `py3-none-win_amd64` wheel, which requires Python 2."""
    write(root / "base", "engine", "1.0", "py3-none-any", _BODY)
    write(root / "patch", "engine", "1.1.0", "py3-none-any.win_amd64", _BODY)
    write(root / "patch", "engine", "1.1", "py3-none-win_amd64", _BODY, "<3")
    write(root / "patch", "engine", "1.0.9", "py3-none-win_amd64", {"engine/__init__.py": b""})


def test_a_tie_with_an_excluded_wheel_may_take_the_next_version(tmp_path: Path) -> None:
    """pip weighs the tied file its URL order puts first: the excluded 1.1 one, so CPython
    3.12 on Windows installs the 1.0.9 wheel, never compared (review77a: the admitted tied
    wheel was taken as chosen, exit 0)."""
    _tie_past_requires_python(tmp_path)
    result = run_k3diff("wheels", "base", "patch", "--allow-unpaired", cwd=tmp_path)
    assert result.exit_code == 2, result.stdout
    assert "patch wheel patch/engine-1.0.9-py3-none-win_amd64.whl is not one-sided" in (
        result.stderr
    )


def test_pip_takes_the_next_version_past_an_excluded_tie(tmp_path: Path) -> None:
    """pip 26 itself, on CPython 3.12 on Windows, from that patch directory."""
    _tie_past_requires_python(tmp_path)
    found = _pip_choice(tmp_path / "patch", ("3.12", [], ["win_amd64"]))
    assert found == "engine-1.0.9-py3-none-win_amd64.whl"


@pytest.mark.parametrize("spec", ["<4," * 2000, ">=3.9." + "1" * 5000])
def test_a_requires_python_past_the_cap_is_refused(tmp_path: Path, spec: str) -> None:
    """A one-sided py2 wheel's Requires-Python of 2,000 clauses, or of a 5,000-digit version:
    exit 2 naming the wheel and the cap, in the set and in `audit` (review77a: the set read and
    parsed it whole, one of a million clauses took 8.5 s and 390 MB more, `audit` 21 s and
    551 MB; the long version was an internal error, `ValueError: Exceeds the limit`)."""
    write(tmp_path / "base", "engine", "1.0", "py3-none-any", _BODY)
    write(tmp_path / "patch", "engine", "1.0", "py3-none-any", _BODY)
    wheel = write(tmp_path / "patch", "engine", "1.1", "py2-none-any", _BODY, spec)
    result = run_k3diff("wheels", "base", "patch", "--allow-unpaired", cwd=tmp_path)
    assert result.exit_code == 2, result.stdout
    expected = f"{wheel.relative_to(tmp_path)}: engine-1.1.dist-info/METADATA Requires-Python "
    assert expected in result.stderr
    assert "over k3diff's cap of 1,000" in result.stderr
    audited = run_k3diff("audit", str(wheel.relative_to(tmp_path)), cwd=tmp_path)
    assert audited.exit_code == 2, audited.stdout
    assert "over k3diff's cap of 1,000" in audited.stderr
