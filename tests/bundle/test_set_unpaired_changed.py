"""A release set made from two directories, a wheel on one side only rebuilt (or removed) in
its directory since: named as an input changed (or missing) since the set recorded it, with the
command that lists the set again, as a pair's wheel is (lmrep68). Before, only the listing
difference showed (`only_patch[0].sha256: ...`), worded as a document that does not follow."""

from __future__ import annotations

import hashlib
import json
import shlex
from pathlib import Path

import wheelkit
from cli_support import run_k3diff

from bundle.helpers import BASE_FILES

COMMAND = "run `k3diff wheels base patch --allow-unpaired --format json -o s.json` again"


def _set(tmp_path: Path) -> Path:
    """A set of two directories: `pkg` on both sides, `extra` in the patch's only."""
    wheelkit.make_wheel(tmp_path / "base", "pkg", "1.0", BASE_FILES)
    wheelkit.make_wheel(tmp_path / "patch", "pkg", "1.0", BASE_FILES)
    extra = wheelkit.make_wheel(tmp_path / "patch", "extra", "1.0", {"extra/__init__.py": b""})
    made = run_k3diff(
        "wheels", "base", "patch", "--allow-unpaired", "--format", "json", "-o", "s.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert made.exit_code == 0, made.stderr
    return extra


def _report(tmp_path: Path) -> tuple[int, list[str]]:
    result = run_k3diff("report", "s.json", "base", "patch", "--out", "o", cwd=tmp_path)
    return result.exit_code, result.stderr.splitlines()


def test_a_wheel_on_one_side_only_rebuilt_is_an_input_changed(tmp_path: Path) -> None:
    extra = _set(tmp_path)
    recorded = json.loads((tmp_path / "s.json").read_text())["only_patch"][0]["sha256"]
    extra.write_bytes(extra.read_bytes() + b"x")
    now = hashlib.sha256(extra.read_bytes()).hexdigest()
    code, lines = _report(tmp_path)
    assert code == 2
    (line,) = lines
    assert line.startswith(
        f"k3diff: error: patch/{extra.name}: changed since s.json recorded it as its patch "
        f"wheel on one side only (SHA-256 {recorded[:16]}… recorded, {now[:16]}… now)"
    ), line
    assert COMMAND in line
    assert "does not follow" not in line
    command = line.split("`")[1].split(maxsplit=1)[1]
    assert run_k3diff(*shlex.split(command), cwd=tmp_path).exit_code == 0
    assert _report(tmp_path)[0] == 0


def test_a_wheel_on_one_side_only_removed_is_missing(tmp_path: Path) -> None:
    extra = _set(tmp_path)
    extra.unlink()
    code, lines = _report(tmp_path)
    assert code == 2
    (line,) = lines
    assert line.startswith(
        f"k3diff: error: patch/{extra.name}: missing (s.json records it as its patch wheel on "
        "one side only"
    ), line
    assert "the directory patch no longer holds it" in line and COMMAND in line
