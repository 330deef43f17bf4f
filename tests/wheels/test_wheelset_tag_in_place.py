"""A release that changes a wheel's tag in place: the two wheels pip installs in each other's
place, and only there, are compared as a pair (`wheels.choicepairing`; newuser76: orjson
3.10.12's `cp312-none-win_amd64` became 3.10.13's `cp312-cp312-win_amd64`, unpaired, so the set
failed without `--allow-unpaired` and was refused with it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff

from k3diff.wheel.tagsharing import Parts
from k3diff.wheels.interpreters import Python
from k3diff.wheels.pipchoice import Choice
from k3diff.wheels.releaseset import Side, pair_wheels, scan_directory

from .wheelset_support import CP312, LIB, _engine, write

_OLD, _NEW = "cp312-none-win_amd64", "cp312-cp312-win_amd64"


def _orjson_shape(root: Path) -> None:
    write(root / "base", "engine", "1.0", _OLD, _engine("1.0", LIB))
    write(root / "base", "engine", "1.0", CP312, _engine("1.0", LIB))
    write(root / "patch", "engine", "1.1", _NEW, _engine("1.1", LIB))
    write(root / "patch", "engine", "1.1", CP312, _engine("1.1", LIB))


@pytest.mark.parametrize("extra", [[], ["--allow-unpaired"]])
def test_a_tag_changed_in_place_is_compared_as_a_pair(tmp_path: Path, extra: list[str]) -> None:
    _orjson_shape(tmp_path)
    result = run_k3diff("wheels", "base", "patch", *extra, "--format", "json", cwd=tmp_path)
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    pairs = {(p["base"], p["patch"]) for p in document["pairs"]}
    assert (f"base/engine-1.0-{_OLD}.whl", f"patch/engine-1.1-{_NEW}.whl") in pairs
    assert document["only_base"] == document["only_patch"] == []


def test_a_pair_by_choice_is_compared_like_any_other(tmp_path: Path) -> None:
    """Its comparison judges it: a native changed in the Windows wheel fails the pair."""
    _orjson_shape(tmp_path)
    (tmp_path / "patch" / f"engine-1.1-{_NEW}.whl").unlink()
    write(tmp_path / "patch", "engine", "1.1", _NEW, _engine("1.1", LIB + b"\x90"))
    result = run_k3diff("wheels", "base", "patch", cwd=tmp_path)
    assert result.exit_code == 1, result.stderr
    assert "1 of 2 pairs fail" in result.stdout


def test_a_wheel_facing_two_is_not_paired_by_choice(tmp_path: Path) -> None:
    """The base's Windows wheel faces the patch's on CPython 3.12 and a patch cp313 one on
    CPython 3.13 (its abi3-free `cp312-none` tag is for 3.12 alone, so: a base abi3 wheel)."""
    write(tmp_path / "base", "engine", "1.0", "cp312-abi3-win_amd64", _engine("1.0", LIB))
    write(tmp_path / "patch", "engine", "1.1", _NEW, _engine("1.1", LIB))
    write(tmp_path / "patch", "engine", "1.1", "cp313-cp313-win_amd64", _engine("1.1", LIB))
    result = run_k3diff("wheels", "base", "patch", "--allow-unpaired", cwd=tmp_path)
    assert result.exit_code == 2, result.stdout
    assert "is not one-sided" in result.stderr


def test_report_lists_and_pairs_the_directories_again_alike(tmp_path: Path) -> None:
    """`k3diff report` given the two directories pairs them again by the same rule (the
    bundle's re-reading uses `releaseset.pair_wheels`): the pair by choice agrees."""
    _orjson_shape(tmp_path)
    made = run_k3diff("wheels", "base", "patch", "--format", "json", "-o", "set.json", cwd=tmp_path)
    assert made.exit_code == 0, made.stderr
    result = run_k3diff("report", "set.json", "base", "patch", "--out", "bundle", cwd=tmp_path)
    assert result.exit_code == 0, result.stdout + result.stderr


def test_pips_choice_is_made_once_a_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The choice pairing and the final check weigh the same files on the same interpreters:
    each file's rank on each Python is made once a run, and each choice once for the same
    interpreter and answers of Requires-Python (release78: both weighings made every one)."""
    from k3diff.wheels import choicememo, competing, pipchoice

    ranked: list[tuple[Python, Parts | None]] = []
    chosen = [0]

    def rank(python: Python, parts: Parts | None) -> tuple[int | None, int | None]:
        ranked.append((python, parts))
        return pipchoice.python_rank(python, parts)

    def choices(*args: Any) -> tuple[Choice, Choice]:
        chosen[0] += 1
        return pipchoice.choices_on(*args)

    monkeypatch.setattr(choicememo, "python_rank", rank)
    monkeypatch.setattr(competing, "choices_on", choices)
    _orjson_shape(tmp_path)
    result = run_k3diff("wheels", "base", "patch", "--allow-unpaired", cwd=tmp_path)
    assert result.exit_code == 0, result.stderr
    assert ranked and len(ranked) == len(set(ranked))
    # no Requires-Python and no source archive: the final check asks what the pairing made
    in_run, chosen[0] = chosen[0], 0
    base, patch = (scan_directory(tmp_path / side, Side(side)) for side in ("base", "patch"))
    pair_wheels(base.wheels, patch.wheels)
    assert in_run == chosen[0] > 0
