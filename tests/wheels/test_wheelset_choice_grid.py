"""The interpreters `wheels` weighs stand for every real one: random release sets of common tags,
each refused exactly where a dense grid of interpreters (CPython 2.7 and 3.0 to 3.15, GIL and
free-threaded; x86_64 Linux at every glibc 2.5 to 2.40 and musl 1.0 to 1.5; macOS 10.4 to 15 on
Intel and Apple silicon; Windows; Android API 16 to 35; a system no platform wheel fits) has
pip, by packaging's full tag list there, choose two wheels that were not compared (stop 76:
1,500 such sets agreed; stop 75's wheel-against-wheel rules disagreed on 106, one a pass)."""

from __future__ import annotations

import random
from functools import cache
from pathlib import Path

import pytest
from packaging.tags import android_platforms, compatible_tags, cpython_tags, mac_platforms
from packaging.version import Version

from k3diff.errors import UsageError
from k3diff.wheels.competing import refuse_competing
from k3diff.wheels.interpreters import _glibc_platforms, _musl_platforms
from k3diff.wheels.setpairing import Pairing, SetWheel, pair_wheels

_PYTHON_ABI = [
    ("py3", "none"), ("py2.py3", "none"), ("py2", "none"), ("py38", "none"), ("py310", "none"),
    ("cp312", "none"), ("cp311.cp312", "none"), ("cp312", "cp312"), ("cp313", "cp313"),
    ("cp313", "cp313t"), ("cp38", "abi3"), ("cp39", "abi3"), ("cp37", "cp37m"),
]  # fmt: skip
_PLATFORMS = [
    "any", "manylinux_2_17_x86_64", "manylinux_2_28_x86_64", "manylinux2014_x86_64",
    "manylinux_2_17_x86_64.manylinux2014_x86_64", "musllinux_1_2_x86_64", "linux_x86_64",
    "macosx_10_9_x86_64", "macosx_10_13_x86_64", "macosx_11_0_x86_64", "macosx_11_0_arm64",
    "macosx_10_9_universal2", "macosx_14_0_arm64", "win_amd64", "android_21_arm64_v8a",
    "android_24_arm64_v8a",
]  # fmt: skip


@cache
def _grid() -> list[dict[str, int]]:
    """Each interpreter's tags -> rank, as packaging lists them (`sys_tags` on that system)."""
    systems: list[list[str]] = [[], ["win_amd64"]]
    systems += [list(_glibc_platforms("x86_64", m)) for m in [None, *range(5, 41)]]
    systems += [list(_musl_platforms("x86_64", m)) for m in [None, *range(6)]]
    systems += [list(mac_platforms((10, m), "x86_64")) for m in range(4, 17)]
    systems += [list(mac_platforms((v, 0), a)) for v in range(11, 16) for a in ("x86_64", "arm64")]
    systems += [list(android_platforms(level, "arm64_v8a")) for level in range(16, 36)]
    pythons = [((2, 7), "cp27mu")] + [
        ((3, m), abi)
        for m in range(16)
        for abi in [f"cp3{m}" if m >= 8 else f"cp3{m}m", *([f"cp3{m}t"] if m >= 13 else [])]
    ]
    grid = []
    for version, abi in pythons:
        for platforms in systems:
            tags = [*cpython_tags(version, [abi], platforms)]
            tags += compatible_tags(version, f"cp{version[0]}{version[1]}", platforms)
            ranks: dict[str, int] = {}
            for rank, tag in enumerate(tags):
                ranks.setdefault(str(tag), rank)
            grid.append(ranks)
    return grid


def _chosen(wheels: list[SetWheel], ranks: dict[str, int]) -> list[SetWheel]:
    best: tuple[Version, int] | None = None
    chosen: list[SetWheel] = []
    for wheel in wheels:
        python, abi, platform = wheel.tag_set.split("-")
        found = [
            ranks[f"{p}-{a}-{o}"]
            for p in python.split(".")
            for a in abi.split(".")
            for o in platform.split(".")
            if f"{p}-{a}-{o}" in ranks
        ]
        if found:
            key = (Version(wheel.version), -min(found))
            if best is None or key > best:
                best, chosen = key, [wheel]
            elif key == best:
                chosen.append(wheel)
    return chosen


def _uncompared(pairing: Pairing, grid: list[dict[str, int]]) -> bool:
    pairs = {(id(base), id(patch)) for base, patch in pairing.pairs}
    base = [pair[0] for pair in pairing.pairs] + list(pairing.only_base)
    patch = [pair[1] for pair in pairing.pairs] + list(pairing.only_patch)
    return any(
        (id(b), id(p)) not in pairs
        for ranks in grid
        for b in _chosen(base, ranks)
        for p in _chosen(patch, ranks)
    )


def _release(chance: random.Random, side: str, version: str) -> list[SetWheel]:
    tag_sets: set[str] = set()
    for _ in range(chance.randint(1, 3)):
        python, abi = chance.choice(_PYTHON_ABI)
        tag_sets.add(f"{python}-{abi}-{chance.choice(_PLATFORMS[abi != 'none' :])}")
    return [SetWheel(Path(f"{side}/x-{version}-{t}.whl"), "x", version, t) for t in tag_sets]


@pytest.mark.parametrize("seed", range(3))
def test_refusals_match_a_dense_grid_of_interpreters(seed: int) -> None:
    grid, chance, weighed = _grid(), random.Random(seed), 0
    for _ in range(50):
        base = _release(chance, "base", "1.0")
        kept = [w.tag_set for w in base if chance.random() < 0.8]
        patch = [SetWheel(Path(f"patch/x-1.0-{t}.whl"), "x", "1.0", t) for t in kept]
        added = _release(chance, "patch", chance.choice(["1.0", "1.0", "1.1"]))
        patch += [w for w in added if w.tag_set not in kept][: chance.randint(0, 2)]
        try:
            pairing = pair_wheels(base, patch)
        except UsageError:
            continue  # ambiguous
        weighed += 1
        try:
            refuse_competing(pairing)
        except UsageError as refusal:
            assert _uncompared(pairing, grid), str(refusal)
        else:
            assert not _uncompared(pairing, grid), [w.path.name for w in base + patch]
    assert weighed > 30
