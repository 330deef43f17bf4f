"""A128: two wheels of one audit that pip reads as one project, version and build, sharing a
tag, fail it: pip installs whichever it lists first, and names alike but for case are one file
on a case-insensitive filesystem. `wheels` refuses such a set as ambiguous; `audit` passed it."""

from __future__ import annotations

import tracemalloc
from pathlib import Path, PurePath

import pytest
from cli_support import run_k3diff
from hypothesis import given, settings
from hypothesis import strategies as st
from packaging.utils import parse_wheel_filename
from wheelkit import make_wheel

from audit.helpers import audit_json
from k3diff.audit.samewheels import same_wheel_findings
from k3diff.errors import InputError

FILES = {"demo/__init__.py": b"VALUE = 1\n"}


def _dist(tmp_path: Path, *names: str) -> Path:
    """A release directory holding a wheel of each file name (NAME-VERSION[-BUILD]-TAGS.whl)."""
    dist = tmp_path / "dist"
    for filename in names:
        parts = filename.removesuffix(".whl").split("-")
        tag = "-".join(parts[-3:])
        make_wheel(dist, parts[0], parts[1], FILES, tag=tag, filename=filename)
    return dist


def _a128(report: dict[str, object]) -> dict[str, str]:
    artifacts = report["artifacts"]
    assert isinstance(artifacts, list)
    return {
        Path(a["path"]).name: f["detail"]
        for a in artifacts
        for f in a["findings"]
        if f["code"] == "A128"
    }


def test_names_alike_but_for_case_fail_the_audit(tmp_path: Path) -> None:
    dist = _dist(tmp_path, "Demo-1.0-py3-none-any.whl", "demo-1.0-py3-none-any.whl")
    code, report = audit_json(dist)
    assert code == 1
    assert report["verdict"]["ok"] is False
    found = _a128(report)
    assert found["Demo-1.0-py3-none-any.whl"] == (
        f"the same project, version and build to pip as {dist}/demo-1.0-py3-none-any.whl, "
        "with tag py3-none-any in common: pip installs whichever it lists first; "
        f"{dist}/demo-1.0-py3-none-any.whl: this name but for case, one file on a "
        "case-insensitive filesystem (macOS, Windows)"
    )
    assert set(found) == {"Demo-1.0-py3-none-any.whl", "demo-1.0-py3-none-any.whl"}
    text = run_k3diff("audit", dist)
    assert text.exit_code == 1 and "A128" in text.stdout


@pytest.mark.parametrize(
    "names",
    [
        ("demo_pkg-1.0-py3-none-any.whl", "demo.pkg-1.0-py3-none-any.whl"),  # PEP 503 name
        ("demo-1.0-py3-none-any.whl", "demo-1.0.0-py3-none-any.whl"),  # PEP 440 version
        ("demo-1.0-1-py3-none-any.whl", "demo-1.0-01-py3-none-any.whl"),  # build number
        ("demo-1.0-py2.py3-none-any.whl", "demo-1.0-py3.py2-none-any.whl"),  # tag order
        ("demo-1.0-py3-none-any.whl", "demo-1.0-py2.py3-none-any.whl"),  # a tag in common
    ],
)
def test_names_pip_reads_alike_fail_the_audit(tmp_path: Path, names: tuple[str, str]) -> None:
    code, report = audit_json(_dist(tmp_path, *names))
    assert code == 1
    found = _a128(report)
    assert set(found) == set(names)
    assert all("case-insensitive" not in detail for detail in found.values())


@pytest.mark.parametrize(
    "names",
    [
        ("demo-1.0-py3-none-any.whl", "demo-1.1-py3-none-any.whl"),  # two versions
        ("demo-1.0-1-py3-none-any.whl", "demo-1.0-2-py3-none-any.whl"),  # a rebuild
        ("demo-1.0-py3-none-any.whl", "demo-1.0-1-py3-none-any.whl"),
        (
            "demo-1.0-cp312-cp312-manylinux_2_17_x86_64.whl",
            "demo-1.0-cp313-cp313-manylinux_2_17_x86_64.whl",
        ),
        ("demo-1.0-py3-none-any.whl", "other-1.0-py3-none-any.whl"),
    ],
)
def test_a_release_s_usual_wheels_pass(tmp_path: Path, names: tuple[str, str]) -> None:
    code, report = audit_json(_dist(tmp_path, *names))
    assert (code, _a128(report)) == (0, {})


def test_files_given_one_by_one_are_held_together_by_directory(tmp_path: Path) -> None:
    dist = _dist(tmp_path, "Demo-1.0-py3-none-any.whl", "demo-1.0-py3-none-any.whl")
    code, report = audit_json(*sorted(dist.iterdir()))
    assert code == 1 and len(_a128(report)) == 2
    # the base and the patch wheel of one project, audited together from their own
    # directories (as the bundle ties an audit to both wheels compared), are no A128
    base = _dist(tmp_path / "base", "demo-1.0-py3-none-any.whl")
    patch = _dist(tmp_path / "patch", "demo-1.0-py3-none-any.whl")
    code, report = audit_json(
        base / "demo-1.0-py3-none-any.whl", patch / "demo-1.0-py3-none-any.whl"
    )
    assert (code, _a128(report)) == (0, {})


def test_many_names_sharing_a_tag_are_not_listed_whole(tmp_path: Path) -> None:
    """review73a: each wheel's list of the others was made whole and every list kept, so 8,000
    empty files named `demo-1.0-py3.xN-none-any.whl` (each shares `py3-none-any` with every
    other) held 64 million positions: 570 MB and 25 s where the audit took 55 MB and 2 s.
    Each set is now made as asked for and only its first names read (measured for 2,000
    names: a peak of 34 MB before, 6 MB after; 1,000 here, the cap since audit74)."""
    paths = [str(tmp_path / f"demo-1.0-py3.x{n}-none-any.whl") for n in range(1000)]
    tracemalloc.start()
    try:
        found = same_wheel_findings(paths)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(found) == 1000 and peak < 8 * 2**20, peak
    assert found[0].detail.startswith(
        f"the same project, version and build to pip as {paths[1]}, {paths[2]}, {paths[3]}, "
        f"{paths[4]}, {paths[5]} and 994 more, with tag py3-none-any in common"
    )


def test_a_directory_over_the_cap_is_refused_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """audit74: the wheels of one project, version and build were each looked up among all the
    others, so a directory of hostile names cost the square of their count (16,000 sharing a
    tag: 36 s). The tags are compared within a group, and a group over the cap is refused."""
    monkeypatch.setattr("k3diff.audit.samewheels.MAX_SAME", 3)
    names = [f"demo-1.0-py3.x{n}-none-any.whl" for n in range(3)]
    dist = _dist(tmp_path, *names, "other-1.0-py3-none-any.whl")
    code, report = audit_json(dist)  # three at the cap: A128 on each
    assert (code, len(_a128(report))) == (1, 3)
    _dist(tmp_path, "demo-1.0.0-py3.x3-none-any.whl")  # pip reads 1.0.0 as 1.0: a fourth
    refused = run_k3diff("audit", dist)
    assert refused.exit_code == 2, refused.stdout
    assert refused.stderr == (
        f"k3diff: error: {dist}: 4 wheels of one project, version and build (as pip reads "
        "demo-1.0-py3.x0-none-any.whl), over k3diff's cap of 3: a release holds one per "
        "platform and Python; audit the wheels of one release directory\n"
    )
    _dist(tmp_path / "v2", *(name.replace("1.0", "2.0") for name in names))  # another version
    assert run_k3diff("audit", dist, tmp_path / "v2" / "dist").exit_code == 2
    apart = [tmp_path / "v2" / "dist", *sorted(dist.glob("demo-1.0-*"))]
    assert audit_json(*apart)[0] == 1  # three of each version: each group at the cap


def test_hostile_names_past_the_cap_are_refused_before_any_lookup() -> None:
    names = [f"/dist/demo-1.0-py3.x{n}-none-any.whl" for n in range(1001)]
    with pytest.raises(InputError, match=r"^/dist: 1,001 wheels of one project, version and "):
        same_wheel_findings(names)
    # a thousand at the cap, and as many of each of 15 other versions: found group by group
    many = [f"/dist/demo-1.{n // 1000}-py3.x{n}-none-any.whl" for n in range(16_000)]
    found = same_wheel_findings(many)
    assert len(found) == 16_000
    assert found[15_999].detail.startswith(
        "the same project, version and build to pip as /dist/demo-1.15-py3.x15000-none-any.whl"
    )
    assert "and 994 more, with tag py3-none-any in common" in found[15_999].detail


_NAMES = st.sampled_from(["demo", "Demo", "demo_pkg", "demo.pkg", "other"])
_VERSIONS = st.sampled_from(["1.0", "1.0.0", "1.1"])
_BUILDS = st.sampled_from(["", "1", "01", "2"])
_PYTHONS = st.lists(st.sampled_from(["py2", "py3", "cp312", "PY3"]), min_size=1, max_size=3)
_PLATFORMS = st.lists(st.sampled_from(["any", "linux_x86_64", "win32"]), min_size=1, max_size=2)


@given(
    st.lists(
        st.tuples(
            _NAMES, _VERSIONS, _BUILDS, _PYTHONS, st.sampled_from(["none", "abi3"]), _PLATFORMS
        ),
        min_size=2,
        max_size=12,
    )
)
@settings(max_examples=200, deadline=None)
def test_the_groups_read_names_as_packaging_does(
    wheels: list[tuple[str, str, str, list[str], str, list[str]]],
) -> None:
    """The masks of a group (audit74) find what every pair read by packaging's
    `parse_wheel_filename`, as pip 26 reads a wheel, gives: one name, version and build, and a
    tag in common."""
    paths = [
        f"dist/{n}-{v}{'-' + b if b else ''}-{'.'.join(p)}-{a}-{'.'.join(x)}.whl"
        for n, v, b, p, a, x in wheels
    ]
    read = [parse_wheel_filename(PurePath(path).name) for path in paths]
    expected = {
        i
        for i, (name, version, build, tags) in enumerate(read)
        for j, other in enumerate(read)
        if i != j and (name, version, build) == other[:3] and tags & other[3]
    }
    assert set(same_wheel_findings(paths, resolve=False)) == expected
