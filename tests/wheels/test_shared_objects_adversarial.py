"""A patch built to look like its base where the patch's entries and installed view are taken
from the base's objects (`zip.besidenames`, `wheel.installedbeside`) gets the verdict it gets
with nothing taken: the same exit status, JSON report and text, through the CLI.

Each patch differs from its base where a shared record or view might hide it: the UTF-8 flag
(which decides how non-ASCII bytes decode), an Info-ZIP Unicode path field, reordered,
swapped, renamed (case, normalisation, `./`, `..`, NUL, a longer name) entries, the other root
scheme, `.data` files, directory entries, a RECORD that lists a shared name wrongly, many new
files. The run with nothing shared replaces both mechanisms by "share nothing", so the two runs
differ exactly where sharing changes what k3diff reads.
"""

from __future__ import annotations

import base64
import hashlib
import struct
import unicodedata
import zlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
import wheelkit
from cli_support import run_json, run_k3diff

import k3diff.wheel.installedbeside as installedbeside
import k3diff.zip.besidenames as besidenames

_DIST = "engine-1.0.dist-info"
_SIZE = 40
"""Files in the base: more than `installedbeside._FEW_OTHERS`, so its view is shared."""


@dataclass(frozen=True)
class Member:
    """One entry as written: its name bytes, content, flags and central extra field."""

    name: bytes
    content: bytes
    flags: int = 0
    extra: bytes = b""

    @property
    def text(self) -> str:
        """The name as zipfile decodes it (UTF-8 when flagged, else CP437)."""
        return self.name.decode("utf-8" if self.flags & 0x800 else "cp437")


def _files() -> list[Member]:
    return [Member(f"engine/m{i:03}.py".encode(), f"X = {i}\n".encode()) for i in range(_SIZE)]


def _hash(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _wheel(
    directory: Path, files: list[Member], *, purelib: bool = True, wrong: bytes = b""
) -> Path:
    """A wheel of `files` and its dist-info (RECORD honest but for the hash of `wrong`)."""
    wheel = f"Wheel-Version: 1.0\nGenerator: t\nRoot-Is-Purelib: {str(purelib).lower()}\n"
    members = [
        *files,
        Member(
            f"{_DIST}/METADATA".encode(), b"Metadata-Version: 2.1\nName: engine\nVersion: 1.0\n"
        ),
        Member(f"{_DIST}/WHEEL".encode(), f"{wheel}Tag: py3-none-any\n".encode()),
    ]
    listed = [f"{m.text},sha256={_hash(m.content + b'!' * (m.name == wrong))},{len(m.content)}"
              for m in members if m.name and not m.name.endswith(b"/")]  # fmt: skip
    record = "\n".join([*listed, f"{_DIST}/RECORD,,", ""])
    members.append(Member(f"{_DIST}/RECORD".encode(), record.encode()))
    raw = []
    for member in members:
        made = wheelkit.raw_member(member.name, member.content, flags=member.flags)
        raw.append(replace(made, central_extra=member.extra))
    directory.mkdir()
    path = directory / "engine-1.0-py3-none-any.whl"
    path.write_bytes(wheelkit.raw_zip(raw))
    return path


def _unicode_path(name: bytes, renamed: str) -> bytes:
    """An Info-ZIP Unicode path field (0x7075) naming the entry `renamed` (zipfile 3.12+)."""
    body = struct.pack("<BL", 1, zlib.crc32(name)) + renamed.encode()
    return struct.pack("<HH", 0x7075, len(body)) + body


def _renamed(files: list[Member], at: int, name: bytes, **changes: Any) -> list[Member]:
    return [*files[:at], replace(files[at], name=name, **changes), *files[at + 1 :]]


def _swap(files: list[Member], i: int, j: int) -> list[Member]:
    swapped = list(files)
    swapped[i], swapped[j] = swapped[j], swapped[i]
    return swapped


_NEW = Member(b"engine/new.py", b"NEW = 1\n")
_CAFE = "engine/caf\u00e9.py"
_Pair = Callable[[list[Member]], tuple[list[Member], list[Member], dict[str, Any]]]


def _same_base(patch: Callable[[list[Member]], list[Member]], **options: Any) -> _Pair:
    return lambda files: (files, patch(files), options)


CASES: dict[str, _Pair] = {
    "utf8 flag on shared ascii names": _same_base(lambda f: [replace(m, flags=0x800) for m in f]),
    "same non-ascii bytes, utf8 flag dropped": lambda f: (
        [*f, Member(_CAFE.encode(), b"C = 1\n", 0x800)],
        [*f, Member(_CAFE.encode(), b"C = 1\n", 0)],
        {},
    ),
    "unicode path field in the patch": _same_base(
        lambda f: _renamed(f, 5, f[5].name, extra=_unicode_path(f[5].name, "engine/evil.py"))
    ),
    "unicode path field in the base": lambda f: (
        _renamed(f, 5, f[5].name, extra=_unicode_path(f[5].name, "engine/evil.py")),
        f,
        {},
    ),
    "two entries swapped": _same_base(lambda f: _swap(f, 3, 30)),
    "first and last swapped": _same_base(lambda f: _swap(f, 0, len(f) - 1)),
    "one removed, one added, counts equal": _same_base(lambda f: [*f[:7], *f[8:25], _NEW, *f[25:]]),
    "removed at the end, added at the front": _same_base(lambda f: [_NEW, *f[:-1]]),
    "renamed by case alone": _same_base(lambda f: _renamed(f, 5, b"engine/M005.py")),
    "case twin beside the shared name": _same_base(
        lambda f: [*f, replace(f[5], name=b"Engine/m005.py")]
    ),
    "a longer name holding the base's": _same_base(lambda f: _renamed(f, 5, b"engine/m005.pyc")),
    "a name cut at a nul": _same_base(lambda f: _renamed(f, 5, b"engine/m005.py\0.x")),
    "nfc in the base, nfd in the patch": lambda f: (
        [*f, Member(_CAFE.encode(), b"C = 1\n", 0x800)],
        [*f, Member(unicodedata.normalize("NFD", _CAFE).encode(), b"C = 1\n", 0x800)],
        {},
    ),
    "a dot component": _same_base(lambda f: [*f, replace(f[5], name=b"engine/./m005.py")]),
    "a dot-dot component": _same_base(lambda f: [*f, replace(f[5], name=b"engine/x/../m005.py")]),
    "root scheme changed": _same_base(lambda f: f, patch_purelib=False),
    "a .data file in the patch": _same_base(
        lambda f: [*f, Member(b"engine-1.0.data/purelib/engine/m005.py", b"D = 1\n")]
    ),
    "a .data file in the base": lambda f: (
        [*f[:5], Member(b"engine-1.0.data/platlib/engine/d.py", b"D = 1\n"), *f[5:]],
        f,
        {},
    ),
    "directory entries in the patch": _same_base(
        lambda f: [Member(b"engine/", b""), *f, Member(b"engine/m005.py/", b"")]
    ),
    "directory entries in the base": lambda f: ([Member(b"engine/", b""), *f], f, {}),
    "a shared name hashed wrongly in RECORD": _same_base(lambda f: f, wrong=b"engine/m005.py"),
    "forty new files": _same_base(
        lambda f: [*f, *(Member(f"engine/n{i:02}.py".encode(), b"N = 1\n") for i in range(40))]
    ),
    "one new file": _same_base(lambda f: [*f[:20], _NEW, *f[20:]]),
}

VIEW_SHARED = {
    "a .data file in the base",
    "a shared name hashed wrongly in RECORD",
    "directory entries in the base",
    "one new file",
    "unicode path field in the base",
    "utf8 flag on shared ascii names",
}
"""Cases whose patch takes the base's installed files (and names): the test is not vacuous."""
NAMES_ONLY = {
    "a .data file in the patch",
    "a dot component",
    "a dot-dot component",
    "a longer name holding the base's",
    "a name cut at a nul",
    "case twin beside the shared name",
    "first and last swapped",
    "renamed by case alone",
    "root scheme changed",
    "two entries swapped",
}
"""Cases whose patch directory takes the base's names, its installed view its own."""


@pytest.fixture
def shared(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Counts of the runs in which each mechanism shared the base's objects."""
    taken: Counter[str] = Counter()
    for module, name in ((besidenames, "names_beside"), (installedbeside, "view_beside")):
        real = getattr(module, name)

        def counted(*args: Any, _real: Any = real, _name: str = name) -> Any:
            found = _real(*args)
            taken[_name] += found is not None
            return found

        monkeypatch.setattr(module, name, counted)
    return taken


def _verdict(base: Path, patch: Path) -> tuple[int, dict[str, Any], int, str, str]:
    code, report = run_json("wheels", base, patch)
    text = run_k3diff("wheels", base, patch)
    return code, report, text.exit_code, text.stdout, text.stderr


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_patch_s_verdict_is_the_one_it_gets_with_nothing_shared(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shared: Counter[str], case: str
) -> None:
    base_files, patch_files, options = CASES[case](_files())
    base = _wheel(tmp_path / "base", base_files)
    purelib, wrong = options.get("patch_purelib", True), options.get("wrong", b"")
    patch = _wheel(tmp_path / "patch", patch_files, purelib=purelib, wrong=wrong)
    with_shared = _verdict(base, patch)
    assert with_shared[0] == with_shared[2]
    assert shared["names_beside"] >= (case in VIEW_SHARED | NAMES_ONLY)
    assert shared["view_beside"] >= (case in VIEW_SHARED)
    monkeypatch.setattr(besidenames, "names_beside", lambda *args: None)
    monkeypatch.setattr(installedbeside, "view_beside", lambda *args: None)
    assert _verdict(base, patch) == with_shared
