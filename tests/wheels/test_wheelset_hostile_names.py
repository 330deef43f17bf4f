"""Release directories an attacker fills with names: pairing costs what the names hold, never the
product of the two sides' wheel counts, nor the product a compressed tag set expands to
(hunt72: 2,000 empty files named as wheels of one project on each side took 53 s to pair, and
400 names of 46,656 tags each 2 GB and 70 s, before any wheel was read)."""

from __future__ import annotations

import json
import shutil
import string
import time
from pathlib import Path

from cli_support import run_k3diff

from .wheelset_support import write

_LETTERS = string.ascii_lowercase


def _big_part(first: str) -> str:
    """A tag-set part of 32 values (`first` among them): three make a 247-byte filename naming
    32,768 tags."""
    return ".".join([first, *_LETTERS[1:], *(f"z{c}" for c in _LETTERS[:6])])


def test_many_names_of_one_project_pair_without_trying_every_pair(tmp_path: Path) -> None:
    base, patch = tmp_path / "base", tmp_path / "patch"
    base.mkdir()
    patch.mkdir()
    for first in _LETTERS:
        for second in _LETTERS:
            for third in _LETTERS[:5]:
                key = first + second + third
                (base / f"demo-1.0-py3-none-b{key}.whl").touch()
                (patch / f"demo-1.1-py3-none-p{key}.whl").touch()
    began = time.monotonic()
    result = run_k3diff("wheels", base, patch)
    elapsed = time.monotonic() - began
    assert result.exit_code == 2, result.stdout  # nothing pairs; the first unpaired is no zip
    assert "demo-1.0-py3-none-baaa.whl: not a zip archive (0 bytes" in result.stderr
    assert elapsed < 20, f"{elapsed:.1f} s to pair 3,380 names with 3,380 (it took minutes)"


def test_a_tag_set_of_32768_tags_pairs_by_its_parts(tmp_path: Path) -> None:
    """The set pairs with a wheel of one of its tags exactly as the expanded set would (past
    the 4,096 tags `wheel.tags.expand` expands, a set stands for itself, which would leave it
    unpaired), and 300 such names a side cost seconds, not minutes and gigabytes."""
    base, patch = tmp_path / "base", tmp_path / "patch"
    wheel = write(tmp_path / "built", "demo", "1.0", "py3-none-any", {"demo/__init__.py": b""})
    write(patch, "demo", "1.1", "py3-none-any", {"demo/__init__.py": b""})
    big = f"{_big_part('py3')}-{_big_part('none')}-{_big_part('any')}"
    base.mkdir()
    shutil.copy(wheel, base / f"demo-1.0-{big}.whl")
    assert len(f"demo-1.0-{big}.whl") <= 255
    result = run_k3diff("wheels", base, patch, "--format", "json")
    assert result.exit_code == 1, result.stderr  # paired; its filename contradicts its WHEEL
    document = json.loads(result.stdout)
    assert [(Path(p["base"]).name, Path(p["patch"]).name) for p in document["pairs"]] == [
        (f"demo-1.0-{big}.whl", "demo-1.1-py3-none-any.whl")
    ]
    for number in range(300):
        (base / f"x{number}-1.0-{big}.whl").touch()
        (patch / f"x{number}-1.1-{big.replace('py3', 'py2')}.whl").touch()
    began = time.monotonic()
    many = run_k3diff("wheels", base, patch)
    elapsed = time.monotonic() - began
    assert many.exit_code == 2 and "not a zip archive" in many.stderr, many.stderr
    assert elapsed < 20, f"{elapsed:.1f} s to read 600 names of 32,768 tags"
