"""Time release-set pairing (`k3diff.wheels.setpairing.pair_wheels`) on hostile names, at N and
2N wheels a side, and print the seconds and their ratio (about 2 where the work grows with the
names, 4 where it grows with their product). The unit tests count the same work instead
(tests/wheels/test_wheelset_hostile_names.py); this prints the figure.

Shapes: `one-project` (N names of one project, no two sharing a platform), `shared-parts`
(each base name's every part shared with two thirds of the patch names, none sharing a tag:
review72b), `big-sets` (tag sets of 32,768 tags, 247-byte names: hunt72).

    PYTHONPATH=$PWD .venv/bin/python scripts/bench_wheelset_pairing.py [N]
"""

from __future__ import annotations

import string
import sys
import time
from collections.abc import Callable
from pathlib import Path

from k3diff.wheels.setpairing import SetWheel, pair_wheels

_LETTERS = string.ascii_lowercase
Sides = tuple[list[SetWheel], list[SetWheel]]


def _wheel(side: str, name: str, version: str, tags: str) -> SetWheel:
    return SetWheel(Path(side, f"{name}-{version}-{tags}.whl"), name, version, tags)


def one_project(count: int) -> Sides:
    return (
        [_wheel("base", "demo", "1.0", f"py3-none-b{n}") for n in range(count)],
        [_wheel("patch", "demo", "1.1", f"py3-none-p{n}") for n in range(count)],
    )


def shared_parts(count: int) -> Sides:
    patch = [
        _wheel("patch", "demo", f"2.{n}", [f"x-y-p{n}", f"x-q{n}-z", f"r{n}-y-z"][n % 3])
        for n in range(count)
    ]
    return [_wheel("base", "demo", f"1.{n}", "x-y-z") for n in range(count)], patch


def big_sets(count: int) -> Sides:
    part = ".".join([*_LETTERS[1:], *(f"z{c}" for c in _LETTERS[:6])])
    big = f"py3.{part}-none.{part}-any.{part}"
    return (
        [_wheel("base", f"x{n}", "1.0", big) for n in range(count)],
        [_wheel("patch", f"x{n}", "1.1", big.replace("py3", "py2")) for n in range(count)],
    )


def seconds(shape: Callable[[int], Sides], count: int) -> float:
    base, patch = shape(count)
    began = time.perf_counter()
    pair_wheels(base, patch)
    return time.perf_counter() - began


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 500  # 2 × 500: within `MAX_SAME`
    for shape in (one_project, shared_parts, big_sets):
        small, large = seconds(shape, count), seconds(shape, 2 * count)
        print(
            f"{shape.__name__:13} {count:6} a side {small:7.3f} s  {2 * count:6} a side "
            f"{large:7.3f} s  ratio {large / small:4.1f}"
        )


if __name__ == "__main__":
    main()
