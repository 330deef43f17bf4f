"""Release directories an attacker fills with names: pairing costs what the names hold, never the
product of the two sides' wheel counts, nor the product a compressed tag set expands to
(hunt72: 2,000 empty files named as wheels of one project on each side took 53 s to pair, and
400 names of 46,656 tags each 2 GB and 70 s, before any wheel was read).

The work is counted, not timed (review72b: no timing assertion in a unit test;
`scripts/bench_wheelset_pairing.py` prints the seconds and their ratio): the names each wheel's
distribution name is normalised for (each candidate tried against a wheel reads both), and the
tags packaging builds (`packaging.tags.Tag`, one per tag a set expands to). A count past its
budget raises at once, so the old product stops early."""

from __future__ import annotations

import json
import shutil
import string
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff
from packaging.tags import Tag

from k3diff.wheels import setpairing
from k3diff.wheels.releaseset import SetWheel

from .wheelset_support import write

_LETTERS = string.ascii_lowercase


class _OverBudget(Exception):
    """A count went past its budget: the work grows with a product, not with the names."""


class _Counter:
    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.calls = 0

    def wrap(self, function: Callable[..., Any]) -> Callable[..., Any]:
        def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            if self.calls > self.budget:
                raise _OverBudget(f"{self.calls} calls, budget {self.budget}")
            return function(*args, **kwargs)

        return counted


@pytest.fixture
def names_read(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[int], _Counter]]:
    """A counter of the distribution names normalised where a release set's wheel reads its
    own (`SetWheel.key_name`), with the budget given."""

    def counting(budget: int) -> _Counter:
        module = sys.modules[SetWheel.__module__]
        counter = _Counter(budget)
        monkeypatch.setattr(module, "normalized_name", counter.wrap(module.normalized_name))
        return counter

    yield counting


@pytest.fixture
def tags_built(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[int], _Counter]]:
    """A counter of the tags packaging builds (each expanded tag is one), with the budget given."""

    def counting(budget: int) -> _Counter:
        counter = _Counter(budget)
        monkeypatch.setattr(Tag, "__init__", counter.wrap(Tag.__init__))
        return counter

    yield counting


def _big_part(first: str) -> str:
    """A tag-set part of 32 values (`first` among them): three make a 247-byte filename naming
    32,768 tags."""
    return ".".join([first, *_LETTERS[1:], *(f"z{c}" for c in _LETTERS[:6])])


def _one_project(tmp_path: Path, count: int) -> tuple[Path, Path]:
    """`count` empty files named as wheels of one project a side, no two sharing a platform."""
    base, patch = tmp_path / "base", tmp_path / "patch"
    base.mkdir()
    patch.mkdir()
    keys = [a + b + c for a in _LETTERS for b in _LETTERS for c in _LETTERS][:count]
    for key in keys:
        (base / f"demo-1.0-py3-none-b{key}.whl").touch()
        (patch / f"demo-1.1-py3-none-p{key}.whl").touch()
    return base, patch


@pytest.mark.parametrize("count", [300, 1000])  # 1,000: the cap a side since audit74
def test_many_names_of_one_project_pair_without_trying_every_pair(
    tmp_path: Path, names_read: Callable[[int], _Counter], count: int
) -> None:
    """Each wheel's name is read a few times whatever the count (each wheel tried against every
    other read it `2 * count` times: 2,880,000 for 1,200 a side)."""
    base, patch = _one_project(tmp_path, count)
    counter = names_read(8 * 2 * count)  # 4 a wheel now
    result = run_k3diff("wheels", base, patch)
    assert counter.calls <= counter.budget, counter.calls
    assert result.exit_code == 2, result.stdout + result.stderr  # nothing pairs; no zip
    assert "demo-1.0-py3-none-baaa.whl: not a zip archive (0 bytes" in result.stderr


def test_a_tag_set_of_32768_tags_pairs_by_its_parts(
    tmp_path: Path, tags_built: Callable[[int], _Counter]
) -> None:
    """The set pairs with a wheel of one of its tags exactly as the expanded set would (past
    the 4,096 tags `wheel.tags.expand` expands, a set stands for itself, which would leave it
    unpaired), and 300 such names a side are paired without building their tags (packaging
    built 32,768 for each: 2 GB for 400). A pair compared still has packaging read each name
    (`wheel.refusals`: W616, a name pip refuses), a name's tags at most once per check."""
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
    (base / f"demo-1.0-{big}.whl").unlink()  # a pair compared reads its names (W616): not here
    for number in range(300):
        (base / f"x{number}-1.0-{big}.whl").touch()
        (patch / f"x{number}-1.1-{big.replace('py3', 'py2')}.whl").touch()
    counter = tags_built(4096)  # `MAX_TAGS`; one name's expansion is 32,768
    many = run_k3diff("wheels", base, patch)
    assert counter.calls <= counter.budget, counter.calls
    assert many.exit_code == 2 and "not a zip archive" in many.stderr, many.stderr


class _CountedValues(frozenset[str]):
    """A tag-set part whose tries against another's values are counted."""

    counter: _Counter

    def isdisjoint(self, other: Any) -> bool:
        return bool(self.counter.wrap(frozenset.isdisjoint)(self, other))


def test_parts_shared_with_thousands_that_share_no_tag_are_not_tried_one_by_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every part of each base name shares a value with two thirds of the patch names, yet no
    patch name shares all three (`x-y-z` against `x-y-pN`, `x-qN-z`, `rN-y-z`): each base wheel
    was tried against each of those (review72b: 2,000 a side took 15 s, 4,000 74 s); the
    candidates are narrowed by whole buckets, a few tried one by one."""
    base, patch = tmp_path / "base", tmp_path / "patch"
    base.mkdir()
    patch.mkdir()
    count = 600
    for number in range(count):
        (base / f"demo-1.{number}-x-y-z.whl").touch()
        tags = [f"x-y-p{number}", f"x-q{number}-z", f"r{number}-y-z"][number % 3]
        (patch / f"demo-2.{number}-{tags}.whl").touch()
    counter = _Counter(64 * 2 * count)
    _CountedValues.counter = counter
    parts = setpairing._parts

    def counted_parts(wheel: SetWheel) -> tuple[frozenset[str], ...]:
        return tuple(_CountedValues(values) for values in parts(wheel))

    monkeypatch.setattr(setpairing, "_parts", counted_parts)
    result = run_k3diff("wheels", base, patch)
    assert counter.calls <= counter.budget, counter.calls
    assert result.exit_code == 2, result.stdout + result.stderr  # nothing pairs; no zip
    assert "demo-1.0-x-y-z.whl: not a zip archive (0 bytes" in result.stderr
