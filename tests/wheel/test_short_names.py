"""8.3 short names (`LONGMO~1.PY`) are read as the long name beside them that NTFS may give them
(W615 in `wheels`/`audit`, A132 for sdists) by an index of each directory's long names by the
short forms they may take: the verdicts of trying every sibling, in one pass (shortnames77: a
directory of 3,000 hostile `~` names took 3 s, 6,000 took 14 s, the 100,000-entry cap about an
hour)."""

from __future__ import annotations

import itertools
import re
import time
from pathlib import Path

import pytest
from audit.helpers import audit_json
from audit.helpers import codes as audit_codes
from audit.sdistcraft import Member, make_sdist
from hypothesis import given, settings
from hypothesis import strategies as st

from k3diff.wheel.collision import windows_fold, windows_keys
from k3diff.wheel.shortnames import short_names
from wheel.test_installed_view import BASE_FILES, EVIL, audit_code, codes, wheels_json
from wheel.tricks import build

_SHORT = re.compile(r"([^~/.]{1,6})~[1-9]\d{0,5}(?:\.([^./]{1,3}))?")
_NOT_8_3 = re.compile(r"[^a-z0-9_^$~!#%&'(){}@`-]")
_NOT_8_3_ASCII = re.compile(r"[\x00-\x7f](?<![a-z0-9_^$~!#%&'(){}@`-])")
_PAST_ASCII = re.compile(r"[^\x00-\x7f]")


def _old_short_names(keys: list[str]) -> list[str]:
    """The check before shortnames77, every sibling tried (quadratic), with two changes: a
    directory is the one its replaced path names, its entries those of every path that names it
    (review77f: `longpa~1/` and `longpackage/` are one; each directory was its literal path's,
    so `longpa~1/longmodule.py` beside `longpackage/longmo~1.py` passed), so a parent no entry
    lies under (a short name read as a file's long name) has its own entries only, where it
    raised KeyError (an internal error, exit 2)."""
    paths = [key.split("/") for key in keys]
    found = [list(parts) for parts in paths]
    for depth in range(max((len(parts) for parts in paths), default=0)):
        children: dict[str, set[str]] = {}
        for raw, parts in zip(paths, found, strict=True):
            if depth < len(raw):
                children.setdefault("/".join(parts[:depth]), set()).add(raw[depth])
        for raw, parts in zip(paths, found, strict=True):
            short = _SHORT.fullmatch(raw[depth]) if depth < len(raw) else None
            if short is None:
                continue
            siblings = sorted(children["/".join(parts[:depth])] - {raw[depth]})
            parts[depth] = next((n for n in siblings if _old_abbreviates(short, n)), raw[depth])
    return ["/".join(parts) for parts in found]


def _old_abbreviates(short: re.Match[str], name: str) -> bool:
    stem, dot, extension = name.rpartition(".")
    if not dot:
        stem, extension = name, ""
    if len(stem) <= 8 and len(extension) <= 3 and not _NOT_8_3.search(stem + extension) and stem:
        return False
    prefix, wanted = short.group(1), short.group(2) or ""
    hashed = len(prefix) >= 4 and re.fullmatch("[0-9a-f]{4}", prefix[-4:]) is not None
    for long in (name, name.lstrip(".")):  # review78e: NTFS skips leading dots
        stem, dot, extension = long.rpartition(".")
        if not dot:
            stem, extension = long, ""
        stem, extension = stem.replace(" ", "").replace(".", ""), extension.replace(" ", "")
        # names78: a character past ASCII is `_` or kept, as the volume's OEM code page has it;
        # review78e: or left out (NTFS's default), where the stem may be left empty
        dropped = _PAST_ASCII.sub("", stem), _PAST_ASCII.sub("", extension)
        for sub, (kept_stem, kept_extension) in itertools.product(
            (_NOT_8_3.sub, _NOT_8_3_ASCII.sub), ((stem, extension), dropped)
        ):
            clean = sub("_", kept_stem)
            head = prefix[:-4]
            same_start = clean.startswith(prefix) or (
                hashed and (clean.startswith(head) if head else not clean)
            )
            if same_start and sub("_", kept_extension)[:3] == wanted:
                return True
    return False


def _short() -> st.SearchStrategy[str]:
    prefix = st.text("ab1+ ~.A\u00e9_", min_size=1, max_size=7) | st.sampled_from(
        ["ab12f3", "a1b2c", "5c2d", "ab", "b"]
    )
    extension = st.one_of(st.just(""), st.text("pyb+ .\u00e9_", max_size=4).map(".{}".format))
    number = st.sampled_from(["1", "2", "5", "10", "0", "1234567"])
    return st.builds("{}~{}{}".format, prefix, number, extension)


def _long() -> st.SearchStrategy[str]:
    return st.text("ab1+ .~_p\u00e9\u00e8", min_size=1, max_size=12)


def _keys() -> st.SearchStrategy[list[str]]:
    top = st.sampled_from(["d", "abcdefghi", "abcdef~1", "ab+cde~1", "abcdefghi.py", "ab~1.py"])
    below = st.lists(st.one_of(_short(), _long()), max_size=2)
    return st.lists(st.builds(lambda t, b: "/".join([t, *b]), top, below), max_size=12)


@settings(max_examples=400, deadline=None)
@given(_keys())
def test_the_index_reads_short_names_as_trying_every_sibling_did(keys: list[str]) -> None:
    assert short_names(keys) == _old_short_names(keys)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(_short(), _long()), max_size=14))
def test_one_directory_reads_as_trying_every_sibling_did(names: list[str]) -> None:
    keys = [windows_fold(f"pkg/{name}") for name in names]
    assert short_names(keys) == _old_short_names(keys)


def test_a_hashed_short_name_and_the_first_long_name_in_order() -> None:
    """Past `~4` NTFS keeps two characters and four hex digits: `ab12f3~5` may be any `ab…`;
    `ab_cde~1` only an `ab_cde…` (`+` is `_`), and `ab+cde~1`, which holds a character no
    short name does, none (it was read as any `ab…`, names78)."""
    keys = ["d/abzzzzzzzz.py", "d/abcdefghij.py", "d/ab12f3~5.py", "d/ab+cde~1", "d/ab+cdefg"]
    assert windows_keys(keys) == [*keys[:2], "d/abcdefghij.py", "d/ab+cde~1", "d/ab+cdefg"]
    assert windows_keys(["d/ab+cdefg", "d/ab_cde~1"]) == ["d/ab+cdefg"] * 2


def test_a_short_directory_read_as_a_file_is_no_internal_error(tmp_path: Path) -> None:
    """`demo/abcdef~1.txt/x~1` beside the file `demo/abcdefghi.txt`: reading the directory as
    the file's long name looked for siblings under a file (KeyError, exit 2 before). The
    directory is the file's short name on an 8.3 volume, where pip cannot make it once the
    file is written: W615 (names78; exit 0 before)."""
    base = build(tmp_path / "b", "1.0", BASE_FILES)
    extra = {"demo/abcdefghi.txt": b"", "demo/abcdef~1.txt/x~1": EVIL}
    patch = build(tmp_path / "p", "2.0", {**BASE_FILES, **extra})
    exit_code, report = wheels_json(base, patch)
    assert exit_code == 1 and "W615" in codes(report)
    assert audit_code(patch) == (1, {"W615"})


@pytest.mark.parametrize(
    "extra",
    [
        {"demo/longpa~1/longmodule.py": EVIL, "demo/longpackage/longmo~1.py": b""},
        {"demo/longpa~1/sub/longmodule.py": EVIL, "demo/longpa~1/sub/longmo~1.py": b""}
        | {"demo/longpackage/other.py": b""},
        {"demo/abcdef~1.txt/longmodule.py": EVIL, "demo/abcdef~1.txt/longmo~1.py": b""}
        | {"demo/abcdefghi.txt": b""},
    ],
)
def test_a_directory_named_short_and_long_is_one(tmp_path: Path, extra: dict[str, bytes]) -> None:
    """`longpa~1/` is `longpackage/` on Windows: a short name in either is read against the
    names in both, and names alike under the short one collide whether or not the long one has
    them (each directory was its literal path's: W615 missed, exit 0, review77f)."""
    base = build(tmp_path / "b", "1.0", BASE_FILES)
    patch = build(tmp_path / "p", "2.0", {**BASE_FILES, **extra})
    exit_code, report = wheels_json(base, patch)
    assert exit_code == 1 and "W615" in codes(report)
    assert audit_code(patch) == (1, {"W615"})


def test_deep_paths_are_read_once() -> None:
    """Each directory is numbered by its parent's number and name: a path of 30,000 components
    costs its length, where joining every prefix again took 3 s a path (half a gigabyte)."""
    deep = "/".join(["a"] * 30_000)
    keys = [f"{deep}/longmodule{i}.py" for i in range(50)] + [
        f"{deep}/longmo~{i}.py" for i in range(1, 51)
    ]
    started = time.process_time()
    found = windows_keys(keys)
    print(f"100 paths of 30,000 components: {time.process_time() - started:.2f} s CPU")
    assert found == [*keys[:50], *[f"{deep}/longmodule0.py"] * 50]


_MANY = 99_990
"""Hostile `~` names in one directory: the wheel's other entries make the 100,000-entry cap."""


def _hostile(count: int) -> list[str]:
    return [f"a{i:05d}~{1 + i % 9}.py" for i in range(count)]


def test_a_wheel_of_100_000_short_names_is_checked(tmp_path: Path) -> None:
    """One 8.3 name's long name among them is still W615; the time is printed, not asserted."""
    files = {f"demo/{name}": b"" for name in _hostile(_MANY)}
    files |= {"demo/a00000abcdef.py": b"", "demo/__init__.py": b""}
    wheel = build(tmp_path, "1.0", files)
    started = time.perf_counter()
    exit_code, found = audit_code(wheel)
    print(f"audit, {_MANY:,} short names in one directory: {time.perf_counter() - started:.1f} s")
    assert (exit_code, found) == (1, {"W615"})


def test_an_sdist_of_100_000_short_names_is_checked(tmp_path: Path) -> None:
    """A132 (names alike, a file beside a directory alike) over the 100,000-member cap."""
    members = [Member(f"demo-1.0/pkg/{name}") for name in _hostile(_MANY)]
    members += [Member("demo-1.0/pkg/a00000abcdef.py"), Member("demo-1.0/pkg/a00001~1/x")]
    sdist = make_sdist(tmp_path, members)
    started = time.perf_counter()
    exit_code, report = audit_json(sdist)
    print(f"audit, {_MANY:,} sdist members alike: {time.perf_counter() - started:.1f} s")
    assert exit_code == 1 and audit_codes(report)["A132"] >= 1


@pytest.mark.parametrize(
    ("extra", "alike"),
    [
        ({"demo/\u00e9t\u00e9long.py": EVIL, "demo/\u00c9T\u00c9LO~1.PY": b""}, True),
        ({"demo/\u00e9t\u00e9long.py": EVIL, "demo/_T_LO~1.PY": b""}, True),
        ({"demo/caf\u00e9module.py": EVIL, "demo/CAF\u00c9MO~1.PY": b""}, True),
        ({"demo/caf\u00e9.module": EVIL, "demo/CAF\u00c9MO~1.MOD": b""}, False),
        ({"demo/longpackage.py": EVIL, "demo/LONGPA~1.PY": b""}, True),
        ({"demo/lozzzzzzzz.py": EVIL, "demo/LONGPA~1.PY": b""}, False),
        ({"demo/lozzzzzzzz.py": EVIL, "demo/LO12AF~7.PY": b""}, True),
        ({"demo/\u00e9t\u00e9long.py": EVIL, "demo/ETELO~1.PY": b""}, False),
        ({"demo/\u00e9t\u00e9long.py": EVIL, "demo/\u00c8T\u00c8LO~1.PY": b""}, False),
    ],
)
def test_a_short_name_past_ascii_or_of_six(
    tmp_path: Path, extra: dict[str, bytes], alike: bool
) -> None:
    """NTFS keeps a character past ASCII in a short name, upper-cased, where the volume's OEM
    code page has it, else writes `_`: `ÉTÉLO~1.PY` or `_T_LO~1.PY` may be `étélong.py`'s
    (the first passed, exit 0, names78); `ETELO~1.PY` and `ÈTÈLO~1.PY` may not. A prefix of
    six is a hashed one (any `lo…`) only where its last four are hex digits: `LONGPA~1.PY` is
    no `lozzzzzzzz.py`'s, nor `CAFÉMO~1.MOD` the stem `café`'s (both W615 before)."""
    wheel = build(tmp_path, "1.0", {**BASE_FILES, **extra})
    assert audit_code(wheel) == ((1, {"W615"}) if alike else (0, set()))


DEFAULT_NTFS = {
    "past ASCII left out": {"demo/s\u00e9lecteur.py": EVIL, "demo/SLECTE~1.PY": b""},
    "a directory": {"demo/menu d\u00e9marrer/x.py": EVIL, "demo/MENUDM~1/x.py": b""},
    "no stem left, hashed": {
        "demo/\u00e9\u00e8\u00e0\u00f9\u00e7.txt": EVIL,
        "demo/5C2D~1.TXT": b"",
    },
    "the extension's left out": {"demo/test.\u00e9x\u00e8": EVIL, "demo/TEST~1.X": b""},
    "a leading dot skipped": {"demo/.gitignore": EVIL, "demo/GITIGN~1": b""},
    "a leading dot, no stem": {"demo/.abc": EVIL, "demo/ABC~1": b""},
}


@pytest.mark.parametrize("extra", DEFAULT_NTFS.values(), ids=DEFAULT_NTFS.keys())
def test_short_names_ntfs_makes_by_default_fail_both_commands(
    tmp_path: Path, extra: dict[str, bytes]
) -> None:
    """NTFS's default (`RtlGenerate8dot3Name` without extended characters, Microsoft's results
    as ReactOS's tests of it record them) leaves a character past ASCII out of a short name
    (`Menu Démarrer` is `MENUDM~1`, `test.éxè` `TEST~1.X`), hashes a stem left empty or of two
    characters at once (`éèàùç.txt` is `5C2D~1.TXT`), and skips leading dots (`.gitignore` is
    `GITIGN~1`): each was read as no long name's (exit 0, review78e)."""
    base = build(tmp_path / "b", "1.0", BASE_FILES)
    patch = build(tmp_path / "p", "2.0", {**BASE_FILES, **extra})
    exit_code, report = wheels_json(base, patch)
    assert exit_code == 1 and "W615" in codes(report)
    assert audit_code(patch) == (1, {"W615"})


@pytest.mark.parametrize(
    "names", [["pkg/s\u00e9lecteur.py", "pkg/SLECTE~1.PY"], ["pkg/.gitignore", "pkg/GITIGN~1"]]
)
def test_an_sdist_of_short_names_ntfs_makes_by_default_fails(
    tmp_path: Path, names: list[str]
) -> None:
    """A132 reads short names as W615 does (review78e: exit 0 before)."""
    sdist = make_sdist(tmp_path, [Member(f"demo-1.0/{name}") for name in names])
    exit_code, report = audit_json(sdist)
    assert exit_code == 1 and audit_codes(report)["A132"] == 1
