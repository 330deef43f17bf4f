"""`wheels` run again by `report` reads a wheel's file name as the document names it: a patch that
is the base wheel copied under the next version's name (byte for byte: one SHA-256 for both)
fails W605, its filename saying 1.1 where METADATA says 1.0. Run again on the files found by
their bytes, both sides were read as the base file, so the W605 was not found again (hunt72):
the document as written was refused (exit 2) and one with the W605 deleted, its verdict edited
to pass, followed from the wheels and passed (exit 0), a single pair's and a release set's
alike, and an audit of the two files (each of its artifacts run again on the file given
under its name)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff
from wheels.wheelset_support import write

BASE = "base/engine-1.0-py3-none-any.whl"
PATCH = "patch/engine-1.1-py3-none-any.whl"


def _copied_release(tmp_path: Path) -> None:
    write(tmp_path / "base", "engine", "1.0", "py3-none-any", {"engine/__init__.py": b"X = 1\n"})
    (tmp_path / "patch").mkdir()
    shutil.copy(tmp_path / BASE, tmp_path / PATCH)


def _without_w605(wheels: dict[str, Any]) -> None:
    wheels["findings"] = [f for f in wheels["findings"] if f["code"] != "W605"]
    wheels["verdict"].update(ok=True, exit_code=0)


def _pair_passes(document: dict[str, Any]) -> None:
    _without_w605(document)


def _set_passes(document: dict[str, Any]) -> None:
    pair = document["pairs"][0]
    _without_w605(pair["wheels"])
    pair.update(verdict="OK", exit_code=0, failing_codes=[])
    document["summary"]["failing_pairs"] = 0
    document["verdict"].update(ok=True, exit_code=0, failures=[], failing_pairs=[])


_SIDES = pytest.mark.parametrize(
    ("given", "forge"),
    [((BASE, PATCH), _pair_passes), (("base", "patch"), _set_passes)],
    ids=["wheels", "release-set"],
)


def _forged_audit(tmp_path: Path) -> None:
    """`forged.json`: the audit of the base wheel and its renamed copy (two artifacts, one
    SHA-256; the copy fails W605), every W605 deleted and the verdict edited to pass."""
    _copied_release(tmp_path)
    shutil.copy(tmp_path / PATCH, tmp_path / "base" / "engine-1.1-py3-none-any.whl")
    made = run_k3diff("audit", "base", "--format", "json", "-o", "a.json", cwd=tmp_path)
    assert made.exit_code == 1, made.stderr
    document = json.loads((tmp_path / "a.json").read_text())
    for artifact in document["artifacts"]:
        artifact["findings"] = [f for f in artifact["findings"] if f["code"] != "W605"]
    document["verdict"].update(ok=True, exit_code=0, errors=0)
    (tmp_path / "forged.json").write_text(json.dumps(document))


@_SIDES
def test_a_renamed_copy_s_w605_is_found_again_under_the_recorded_names(
    tmp_path: Path,
    given: tuple[str, str],
    forge: Callable[[dict[str, Any]], None],
) -> None:
    _copied_release(tmp_path)
    made = run_k3diff("wheels", *given, "--format", "json", "-o", "w.json", cwd=tmp_path)
    assert made.exit_code == 1, made.stderr
    assert "W605" in (tmp_path / "w.json").read_text()
    document = json.loads((tmp_path / "w.json").read_text())
    forge(document)
    (tmp_path / "forged.json").write_text(json.dumps(document))
    forged = run_k3diff("report", "forged.json", *given, "--out", "c", cwd=tmp_path)
    assert forged.exit_code == 2, forged.stdout
    assert "does not follow from the wheels given with it" in forged.stderr
    assert "findings: 0 items, run again 1" in forged.stderr
    assert not (tmp_path / "c").exists()
    written = run_k3diff("report", "w.json", *given, "--out", "b", cwd=tmp_path)
    assert written.exit_code == 1, written.stderr  # the document as written follows


def test_an_audit_of_two_names_of_one_wheel_s_bytes_runs_again_on_both(tmp_path: Path) -> None:
    """`audit` of the base wheel and its renamed copy: two artifacts, one SHA-256. Run again,
    both were read as the first file given, so the copy's W605 was not found again: its
    deletion, with the verdict, passed, and the document as written was refused."""
    _forged_audit(tmp_path)
    wheels = ("base/engine-1.0-py3-none-any.whl", "base/engine-1.1-py3-none-any.whl")
    forged = run_k3diff("report", "forged.json", *wheels, "--out", "c", cwd=tmp_path)
    assert forged.exit_code == 2, forged.stdout
    assert "artifacts[1].findings: 0 items, run again 1" in forged.stderr
    written = run_k3diff("report", "a.json", *wheels, "--out", "b", cwd=tmp_path)
    assert written.exit_code == 1, written.stderr


@pytest.mark.parametrize(
    "recorded",
    [
        "patch/engine-1.1-py3-none-any.whl\0",
        "patch/" + "e" * 300 + ".whl",
        "patch/..",
        "patch/",
        "patch/engine.whl",
        "patch/engine-1.0-py3-none-any.whl",
    ],
    ids=["nul", "300-bytes", "dotdot", "directory", "not-a-wheel-name", "the-base-s-name"],
)
@_SIDES
def test_a_name_the_document_gives_its_patch_is_not_what_the_rerun_reads(
    tmp_path: Path,
    given: tuple[str, str],
    forge: Callable[[dict[str, Any]], None],
    recorded: str,
) -> None:
    """The renamed copy's document with its W605 deleted, the verdict edited to pass, and the
    patch's path edited: run again under the name the document gave (hunt72: a link of that
    name), or on the base file where no file can have it, the W605 was not found again and the
    bundle passed, exit 0 (review72b). A wheel is run again only under a name it is given by."""
    _copied_release(tmp_path)
    made = run_k3diff("wheels", *given, "--format", "json", "-o", "w.json", cwd=tmp_path)
    assert made.exit_code == 1, made.stderr
    document = json.loads((tmp_path / "w.json").read_text())
    forge(document)
    wheels = document["pairs"][0]["wheels"] if "pairs" in document else document
    wheels["patch"]["path"] = recorded
    if "pairs" in document:
        document["pairs"][0]["patch"] = recorded
    (tmp_path / "forged.json").write_text(json.dumps(document))
    forged = run_k3diff("report", "forged.json", *given, "--out", "c", cwd=tmp_path)
    assert forged.exit_code == 2, forged.stdout + forged.stderr
    assert forged.stderr.startswith("k3diff: error: "), forged.stderr
    assert not (tmp_path / "c").exists()


def test_both_copies_run_again_are_listed_among_the_inputs(tmp_path: Path) -> None:
    """The bundle lists each wheel run again under its own name: the renamed copy was listed
    as the base wheel, once (review72b)."""
    _copied_release(tmp_path)
    made = run_k3diff("wheels", BASE, PATCH, "--format", "json", "-o", "w.json", cwd=tmp_path)
    assert made.exit_code == 1, made.stderr
    written = run_k3diff("report", "w.json", BASE, PATCH, "--out", "b", cwd=tmp_path)
    assert written.exit_code == 1, written.stderr
    inputs = json.loads((tmp_path / "b" / "summary.json").read_text())["inputs"]
    assert [i["name"] for i in inputs if i["name"].endswith(".whl")] == [BASE, PATCH]


def test_a_set_s_unpaired_copy_of_a_paired_wheel_is_tied_to_the_set(tmp_path: Path) -> None:
    """A base directory holding one wheel's bytes under two names, one paired and one listed on
    the base side only: each copy is a file the set lists, so the set as written follows (every
    copy given must be one a document was run again on or lists: review72b)."""
    write(tmp_path / "base", "engine", "1.0", "py3-none-any", {"engine/__init__.py": b"X = 1\n"})
    write(tmp_path / "patch", "engine", "1.1", "py3-none-any", {"engine/__init__.py": b"X = 2\n"})
    shutil.copy(tmp_path / BASE, tmp_path / "base" / "solo-1.0-py3-none-any.whl")
    made = run_k3diff(
        "wheels", "base", "patch", "--allow-unpaired", "--format", "json", "-o", "s.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert made.exit_code == 0, made.stderr  # an unpaired wheel is listed, not compared
    assert json.loads((tmp_path / "s.json").read_text())["only_base"], made.stdout
    written = run_k3diff("report", "s.json", "base", "patch", "--out", "b", cwd=tmp_path)
    assert written.exit_code == 0, written.stderr
    files = (BASE, "base/solo-1.0-py3-none-any.whl", "patch/engine-1.1-py3-none-any.whl")
    one_by_one = run_k3diff("report", "s.json", *files, "--out", "c", cwd=tmp_path)
    assert one_by_one.exit_code == 0, one_by_one.stderr


@pytest.mark.parametrize("given", [BASE, "base/engine-1.1-py3-none-any.whl"])
def test_an_audit_of_two_names_of_one_wheel_s_bytes_given_one_is_not_run_again_on_it_twice(
    tmp_path: Path, given: str
) -> None:
    """The audit of the base wheel and its renamed copy, W605 deleted with the verdict, given
    with one of the two files: both artifacts were run again on that one file, under its name,
    so the W605 the other's name earns was found nowhere and the forged audit passed as
    cross-checked, exit 0 (review72b). An artifact is run again only on a file of its name."""
    _forged_audit(tmp_path)
    forged = run_k3diff("report", "forged.json", given, "--out", "c", cwd=tmp_path)
    assert forged.exit_code == 2, forged.stdout + forged.stderr
    assert not (tmp_path / "c").exists()
