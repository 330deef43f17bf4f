"""Pairing a release set by the parts of each filename's tag set (`wheels.setpairing`, hunt72)
pairs exactly as pairing by the expanded tags did before it (the per-wheel search, kept here
as it was): the same pairs, the same wheels left over, the same ambiguity refused in the same
words, with names spelled every way PEP 503 makes one, build tags, versions packaging refuses,
compressed sets (`py2.py3`), upper-case tags and raised platform baselines (review72b)."""

from __future__ import annotations

import re
import tracemalloc
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from cli_support import run_k3diff
from hypothesis import given, settings
from hypothesis import strategies as st
from packaging.utils import InvalidWheelFilename, parse_wheel_filename
from packaging.version import InvalidVersion
from wheelkit import make_wheel

from k3diff.errors import UsageError
from k3diff.numbers import named
from k3diff.wheel.tags import expand
from k3diff.wheels.releaseset import Pairing, SetWheel, set_wheel
from k3diff.wheels.setpairing import pair_wheels

_GLIBC = re.compile(r"^(manylinux|musllinux)(?:1|2010|2014|_\d+_\d+)_(.+)$")
_MACOS = re.compile(r"^macosx_\d+_\d+_(.+)$")


def _old_tags(wheel: SetWheel) -> frozenset[str]:
    """The tags pairing read before hunt72: packaging's, else the set expanded."""
    try:
        return frozenset(str(tag) for tag in parse_wheel_filename(wheel.path.name)[3])
    except (InvalidWheelFilename, InvalidVersion):
        return expand(wheel.tag_set)


def _old_family(tag: str) -> str:
    python, abi, platform = tag.split("-", 2)
    if (glibc := _GLIBC.match(platform)) is not None:
        platform = f"{glibc.group(1)}_{glibc.group(2)}"
    elif (macos := _MACOS.match(platform)) is not None:
        platform = f"macosx_{macos.group(1)}"
    return f"{python}-{abi}-{platform}"


def _old_exact(wheel: SetWheel, other: SetWheel) -> bool:
    return other.key_name == wheel.key_name and bool(_old_tags(other) & _old_tags(wheel))


def _old_same_family(wheel: SetWheel, other: SetWheel) -> bool:
    families = {_old_family(t) for t in _old_tags(wheel)}
    return other.key_name == wheel.key_name and any(
        _old_family(t) in families for t in _old_tags(other)
    )


def _old_pair_by(
    base: Sequence[SetWheel],
    patch: Sequence[SetWheel],
    related: Callable[[SetWheel, SetWheel], bool],
) -> list[tuple[SetWheel, SetWheel]]:
    pairs: list[tuple[SetWheel, SetWheel]] = []
    for own_side, wheels, other_side, others in (
        ("base", base, "patch", patch),
        ("patch", patch, "base", base),
    ):
        for wheel in wheels:
            found = [o for o in others if related(wheel, o)]
            if len(found) > 1:
                raise UsageError(
                    f"ambiguous pairing: {own_side} wheel {wheel.path} has "
                    f"{len(found)} {other_side} candidates of the same name and tags: "
                    f"{named([str(o.path) for o in found])}; "
                    "give the wheels to compare with --base/--patch"
                )
            if found and own_side == "base":
                pairs.append((wheel, found[0]))
    return pairs


def _old_pair_wheels(base: Sequence[SetWheel], patch: Sequence[SetWheel]) -> Pairing:
    pairs = _old_pair_by(base, patch, _old_exact)
    left_base = [w for w in base if all(w is not b for b, _ in pairs)]
    left_patch = [w for w in patch if all(w is not p for _, p in pairs)]
    pairs += _old_pair_by(left_base, left_patch, _old_same_family)
    paired_base = {id(b) for b, _ in pairs}
    paired_patch = {id(p) for _, p in pairs}
    return Pairing(
        pairs=tuple(sorted(pairs, key=lambda pair: pair[0].path.name)),
        only_base=tuple(w for w in base if id(w) not in paired_base),
        only_patch=tuple(w for w in patch if id(w) not in paired_patch),
    )


_NAMES = ["demo", "Demo", "demo_x", "demo.x", "Demo__X", "demo-x", "other"]
_VERSIONS = ["1.0", "2.0", "1.0.post1", "bad!", "1.0+local"]
_BUILDS = ["", "1", "2abc", "x1"]
_PYTHONS = ["py2", "py3", "cp311", "CP311", "cp312", "pp310"]
_ABIS = ["none", "abi3", "cp311", "cp312"]
_PLATFORMS = [
    "any", "manylinux1_x86_64", "manylinux_2_17_x86_64", "manylinux2014_x86_64",
    "manylinux2014_aarch64", "musllinux_1_1_x86_64", "macosx_10_9_x86_64",
    "macosx_11_0_x86_64", "macosx_11_0_arm64", "win_amd64", "Win_AMD64",
]  # fmt: skip


def _part(values: list[str]) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(values), min_size=1, max_size=3).map(".".join)


_FILENAMES = st.builds(
    lambda name, version, build, python, abi, platform: (
        "-".join(
            [name.replace("-", "_"), version, *([build] if build else []), python, abi, platform]
        )
        + ".whl"
    ),
    st.sampled_from(_NAMES),
    st.sampled_from(_VERSIONS),
    st.sampled_from(_BUILDS),
    _part(_PYTHONS),
    _part(_ABIS),
    _part(_PLATFORMS),
)


def _side(directory: str, names: list[str]) -> list[SetWheel]:
    wheels = [set_wheel(Path(directory, name)) for name in sorted(set(names))]
    return [wheel for wheel in wheels if wheel is not None]


def _outcome(pair: Callable[[], Pairing]) -> object:
    try:
        pairing = pair()
    except UsageError as exc:
        return str(exc)
    return (
        [(b.path, p.path) for b, p in pairing.pairs],
        [w.path for w in pairing.only_base],
        [w.path for w in pairing.only_patch],
    )


@settings(max_examples=600, deadline=None)
@given(st.lists(_FILENAMES, max_size=6), st.lists(_FILENAMES, max_size=6))
def test_pairing_by_parts_is_pairing_by_expanded_tags(
    base_names: list[str], patch_names: list[str]
) -> None:
    base, patch = _side("base", base_names), _side("patch", patch_names)
    assert _outcome(lambda: pair_wheels(base, patch)) == _outcome(
        lambda: _old_pair_wheels(base, patch)
    )


def test_the_first_ambiguity_is_refused_before_the_next_wheel_is_looked_up() -> None:
    """review73a: every wheel's candidates were looked up and kept before the first was read,
    so 6,000 names sharing `py3-none-any` on each side took 630 MB and 12 s to be refused
    (measured for 2,000: a peak of 65 MB before, 5 MB after; 1,000 here, the cap since
    audit74)."""
    names = [f"demo-1.0-py3.x{n}-none-any.whl" for n in range(1000)]
    base, patch = _side("base", names), _side("patch", names)
    tracemalloc.start()
    try:
        with pytest.raises(UsageError, match="has 1000 patch candidates"):
            pair_wheels(base, patch)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 * 2**20, peak


def test_a_release_set_over_the_cap_is_refused_naming_its_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """audit74: each wheel was looked up among every wheel of its project on the other side
    (64,000 names each pairing with one, every tag part shared with thousands: 37 s). A side
    holding more wheels of one project than a release does is refused, naming its directory."""
    monkeypatch.setattr("k3diff.wheels.setpairing.MAX_SAME", 2)
    for side in ("base", "patch"):
        for tag in ("cp312-cp312-linux_x86_64", "cp313-cp313-linux_x86_64"):
            make_wheel(tmp_path / side, "demo", "1.0", {"demo/v.py": b""}, tag=tag)
    assert run_k3diff("wheels", "base", "patch", cwd=tmp_path).exit_code == 0
    make_wheel(tmp_path / "patch", "Demo", "1.0", {"demo/v.py": b""}, tag="py3-none-win32")
    refused = run_k3diff("wheels", "base", "patch", cwd=tmp_path)
    assert refused.exit_code == 2, refused.stdout
    assert refused.stderr == (
        "k3diff: error: patch: 3 wheels of project demo (PEP 503-normalised), over k3diff's cap "
        "of 2: a release holds one per platform and Python; give one release on each side\n"
    )
