"""A directory read beside another archive's entries is the directory read alone; the names it
spells as the other's are the other's objects (`zip.besidenames`)."""

from __future__ import annotations

import io
import os
import zipfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from k3diff.zip.directory import ZipEntry, read_central_directory

_NAMES = st.lists(
    st.from_regex(r"[a-c]{1,3}/[a-c.]{1,4}", fullmatch=True), min_size=1, max_size=40, unique=True
)


def _zip(names: list[str], contents: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in names:
            archive.writestr(name, contents.get(name, name.encode() * 3))
    return buffer.getvalue()


def _read(path: Path, data: bytes, beside: tuple[ZipEntry, ...] = ()) -> tuple[ZipEntry, ...]:
    path.write_bytes(data)
    fd = os.open(path, os.O_RDONLY)
    try:
        return read_central_directory(path, fd, len(data), beside).entries
    finally:
        os.close(fd)


@st.composite
def _pairs(draw: st.DrawFn) -> tuple[list[str], list[str], dict[str, bytes]]:
    """A base's names and a patch's: some renamed in place (same length or not), some added
    or removed anywhere, some contents edited (so later offsets move)."""
    base = draw(_NAMES)
    patch = list(base)
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from(["rename", "add", "remove"]))
        index = draw(st.integers(0, max(len(patch) - 1, 0)))
        new = draw(st.from_regex(r"[a-d]{1,3}/[a-d.]{1,4}", fullmatch=True))
        if new in patch:
            continue
        if kind == "rename" and patch:
            patch[index] = new
        elif kind == "add":
            patch.insert(index, new)
        elif len(patch) > 1:
            del patch[index]
    edited = draw(st.lists(st.sampled_from(patch), max_size=3))
    return base, patch, {name: b"edited " * 40 for name in edited}


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(pair=_pairs())
def test_a_directory_read_beside_another_is_the_directory_read_alone(
    tmp_path: Path, pair: tuple[list[str], list[str], dict[str, bytes]]
) -> None:
    base_names, patch_names, contents = pair
    base = _read(tmp_path / "base.zip", _zip(base_names, {}))
    patch = _zip(patch_names, contents)
    alone = _read(tmp_path / "alone.zip", patch)
    beside = _read(tmp_path / "beside.zip", patch, base)
    assert beside == alone
    assert [type(entry.name) for entry in beside] == [str] * len(beside)
    assert [type(entry.name_bytes) for entry in beside] == [bytes] * len(beside)
    if patch_names == base_names:  # every name spelt alike in place: every object the base's
        assert all(map(lambda a, b: a.name is b.name, beside, base))
        assert all(map(lambda a, b: a.name_bytes is b.name_bytes, beside, base))


def test_names_are_shared_from_the_end_after_an_added_entry(tmp_path: Path) -> None:
    names = [f"pkg/m{index:02}.py" for index in range(20)]
    base = _read(tmp_path / "base.zip", _zip(names, {}))
    patch_names = [*names[:5], "pkg/new.py", *names[5:]]
    beside = _read(tmp_path / "patch.zip", _zip(patch_names, {names[2]: b"x" * 500}), base)
    assert [entry.name for entry in beside] == patch_names
    shared = [entry.name for entry in beside if any(entry.name is b.name for b in base)]
    assert shared == names


def test_a_name_changed_in_place_is_not_shared(tmp_path: Path) -> None:
    names = [f"pkg/m{index:02}.py" for index in range(20)]
    base = _read(tmp_path / "base.zip", _zip(names, {}))
    renamed = [("pkg/x07.py" if name == "pkg/m07.py" else name) for name in names]
    beside = _read(tmp_path / "patch.zip", _zip(renamed, {}), base)
    assert [entry.name for entry in beside] == renamed
    assert beside[7].name_bytes == b"pkg/x07.py"
    assert beside[8].name is base[8].name


def test_mostly_new_names_are_the_patch_s_own(tmp_path: Path) -> None:
    names = [f"pkg/m{index:02}.py" for index in range(16)]
    base = _read(tmp_path / "base.zip", _zip(names, {}))
    other = [f"lib/m{index:02}.py" for index in range(3)] + names[3:]
    beside = _read(tmp_path / "patch.zip", _zip(other, {}), base)
    assert [entry.name for entry in beside] == other
    assert not any(a.name is b.name for a, b in zip(beside, base, strict=True))
