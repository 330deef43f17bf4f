"""A native library is waived one file at a time, by its own path as written (hostile59 items
1 and 2): a glob waiver on "RECORD does not vouch for it" (A105, A107, ...) covers no native
entry, and a native whose real name holds `[` (or, said so, `*` or `?`) can be waived."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import jsonschema
import pytest
import wheelkit
from cli_support import run_k3diff

from k3diff.documents.catalog import load_schema

SO = wheelkit.elf_bytes(b"\x55\x48\x89\xe5" * 512)
SO_CHANGED = wheelkit.elf_bytes(b"\x31\xc0\xc3\x90" * 512)
TAG = "cp311-cp311-manylinux_2_17_x86_64"
REASON = "reviewed"


def _waivers(tmp_path: Path, *entries: tuple[str, str], extra: str = "") -> Path:
    path = tmp_path / "waivers.toml"
    body = "".join(
        f'[[waiver]]\ncode = "{code}"\npath = "{member}"\nreason = "{REASON} {member}"\n{extra}\n'
        for code, member in entries
    )
    path.write_text(body, encoding="utf-8")
    return path


def _codes(stdout: str) -> dict[tuple[str, str], str]:
    """(code, path) -> severity of every finding of a one-artifact audit's JSON."""
    (artifact,) = json.loads(stdout)["artifacts"]
    return {(f["code"], f["path"]): f["severity"] for f in artifact["findings"]}


@pytest.mark.parametrize(
    ("member", "code", "overrides"),
    [
        ("pkg/evil.so", "A105", {"pkg/evil.so": None}),  # not in RECORD
        ("pkg/evil.dat", "A105", {"pkg/evil.dat": None}),  # an ELF by content, not by name
        ("pkg/evil.so", "A107", {"pkg/evil.so": f"pkg/evil.so,,{len(SO)}"}),  # row without a hash
        (
            "pkg/evil.so",
            "A108",
            {"pkg/evil.so": f"pkg/evil.so,md5=AAAAAAAAAAAAAAAAAAAAAA,{len(SO)}"},
        ),
    ],
)
def test_a_glob_waiver_on_an_unvouched_entry_never_covers_a_native(
    tmp_path: Path, member: str, code: str, overrides: dict[str, str | None]
) -> None:
    """`A105 path = "pkg/*"` waives an unlisted data file but not an unlisted library: the
    library needs its exact path, and the verdict line then names it."""
    files = {"pkg/__init__.py": b"x = 1\n", "pkg/extra.txt": b"y = 2\n", member: SO}
    wheel = wheelkit.make_wheel(
        tmp_path,
        "pkg",
        "1.0",
        files,
        tag=TAG,
        record_overrides={**overrides, "pkg/extra.txt": None},
    )
    glob = run_k3diff(
        "audit", wheel, "--format", "json",
        "--waivers", _waivers(tmp_path, (code, "pkg/*"), ("A105", "pkg/*")),
    )  # fmt: skip
    assert glob.exit_code == 1, glob.stdout
    document = json.loads(glob.stdout)
    jsonschema.validate(document, load_schema("audit"))
    (native,) = [f for f in document["artifacts"][0]["findings"] if f["path"] == member]
    assert native["native"] is True
    found = _codes(glob.stdout)
    assert found[(code, member)] == "error"
    assert found[("A105", "pkg/extra.txt")] == "info"
    exact = _waivers(tmp_path, (code, member), ("A105", "pkg/*"))
    text = run_k3diff("audit", wheel, "--waivers", exact)
    assert text.exit_code == 0, text.stdout
    verdict = text.stdout.strip().splitlines()[-1]
    assert f"{code} {member} — {REASON} {member}" in verdict, verdict


def test_a_glob_waiver_on_an_unlisted_data_file_still_applies(tmp_path: Path) -> None:
    """(An unlisted `.py` is code: `tests/wheel/test_waiver_code.py`.)"""
    files = {"pkg/__init__.py": b"x = 1\n", "pkg/extra.txt": b"y = 2\n"}
    wheel = wheelkit.make_wheel(
        tmp_path, "pkg", "1.0", files, record_overrides={"pkg/extra.txt": None}
    )
    result = run_k3diff("audit", wheel, "--waivers", _waivers(tmp_path, ("A105", "pkg/*")))
    assert result.exit_code == 0, result.stdout
    assert "1 finding waived: A105 pkg/extra.txt" in result.stdout.strip().splitlines()[-1]


NAMES = ["pkg/lib[x].so", "pkg/lib[!x]].so", "pkg/lib[0-9].so"]


@pytest.mark.parametrize("member", NAMES)
def test_a_native_whose_name_holds_a_bracket_is_waived_by_that_name(
    tmp_path: Path, member: str
) -> None:
    """The exact-path codes compare the path as written: `[` is a character of the name."""
    files = {"pkg/__init__.py": b"x = 1\n", member: SO}
    base = wheelkit.make_wheel(tmp_path / "base", "pkg", "1.0", files, tag=TAG)
    changed = {**files, member: SO_CHANGED}
    patch = wheelkit.make_wheel(tmp_path / "patch", "pkg", "1.0", changed, tag=TAG)
    waivers = _waivers(tmp_path, ("W101", member))
    result = run_k3diff("wheels", base, patch, "--waivers", waivers)
    assert result.exit_code == 0, result.stdout
    assert f"W101 {member} — {REASON}" in result.stdout.strip().splitlines()[-1]
    lie = f"{member},{wheelkit.record_hash(b'not the library')},{len(SO)}"
    tampered = wheelkit.make_wheel(
        tmp_path / "tampered", "pkg", "1.0", files, tag=TAG, record_overrides={member: lie}
    )
    assert run_k3diff("audit", tampered).exit_code == 1
    audited = run_k3diff("audit", tampered, "--waivers", _waivers(tmp_path, ("A103", member)))
    assert audited.exit_code == 0, audited.stdout


def test_a_bracket_path_is_no_glob_for_the_exact_path_codes(tmp_path: Path) -> None:
    """`pkg/lib[0-9].so` names that one file, not `pkg/lib1.so`: the W101 of `lib1.so` still
    fails, and the waiver is said to be unused."""
    files = {"pkg/__init__.py": b"x = 1\n", "pkg/lib1.so": SO}
    base = wheelkit.make_wheel(tmp_path / "base", "pkg", "1.0", files, tag=TAG)
    changed = {**files, "pkg/lib1.so": SO_CHANGED}
    patch = wheelkit.make_wheel(tmp_path / "patch", "pkg", "1.0", changed, tag=TAG)
    result = run_k3diff(
        "wheels", base, patch, "--waivers", _waivers(tmp_path, ("W101", "pkg/lib[0-9].so"))
    )
    assert result.exit_code == 1, result.stdout
    assert "unused: waiver 1 (W101 pkg/lib[0-9].so) matched no finding" in result.stdout


@pytest.mark.parametrize("member", ["pkg/lib*.so", "pkg/lib?.so"])
def test_a_star_or_question_mark_needs_literal(tmp_path: Path, member: str) -> None:
    """`*` and `?` read as a glob (exit 2, saying how to name such a file); `literal = true`
    says the name really holds one, and it is then compared as written."""
    files = {"pkg/__init__.py": b"x = 1\n", member: SO}
    base = wheelkit.make_wheel(tmp_path / "base", "pkg", "1.0", files, tag=TAG)
    changed = {**files, member: SO_CHANGED}
    patch = wheelkit.make_wheel(tmp_path / "patch", "pkg", "1.0", changed, tag=TAG)
    refused = run_k3diff("wheels", base, patch, "--waivers", _waivers(tmp_path, ("W101", member)))
    assert refused.exit_code == 2, refused.stdout
    assert "is waived by one exact path, not the glob" in refused.stderr
    assert "literal = true" in refused.stderr
    literal = _waivers(tmp_path, ("W101", member), extra="literal = true")
    # Such a name is also W619 (Windows refuses `*` and `?`), which no waiver covers.
    result = run_k3diff("wheels", base, patch, "--waivers", literal, "--ignore", "W619")
    assert result.exit_code == 0, result.stdout
    other = "pkg/lib1.so"  # the literal path is no glob: a sibling is not covered
    files_other = {"pkg/__init__.py": b"x = 1\n", other: SO}
    base2 = wheelkit.make_wheel(tmp_path / "base2", "pkg", "1.0", files_other, tag=TAG)
    patch2 = wheelkit.make_wheel(
        tmp_path / "patch2", "pkg", "1.0", {**files_other, other: SO_CHANGED}, tag=TAG
    )
    assert run_k3diff("wheels", base2, patch2, "--waivers", literal).exit_code == 1


def test_literal_must_be_a_boolean(tmp_path: Path) -> None:
    files = {"pkg/__init__.py": b"x = 1\n"}
    wheel = wheelkit.make_wheel(tmp_path, "pkg", "1.0", files)
    waivers = _waivers(tmp_path, ("A105", "pkg/x.py"), extra='literal = "yes"')
    result = run_k3diff("audit", wheel, "--waivers", waivers)
    assert result.exit_code == 2
    assert "'literal' must be true or false" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def _recompressed(wheel: Path, method: int, members: tuple[str, ...]) -> Path:
    """`wheel` rewritten with `members` compressed by `method` (pip reads bzip2 and lzma)."""
    out = wheel.parent / "recompressed" / wheel.name
    out.parent.mkdir()
    with zipfile.ZipFile(wheel) as source, zipfile.ZipFile(out, "w") as target:
        for info in source.infolist():
            kind = method if info.filename in members else zipfile.ZIP_DEFLATED
            target.writestr(info.filename, source.read(info), compress_type=kind)
    return out


@pytest.mark.parametrize("method", [zipfile.ZIP_LZMA, zipfile.ZIP_BZIP2])
@pytest.mark.parametrize("member", ["pkg/data/evil.so", "pkg/data/evil.dat"])
def test_a_glob_waiver_on_an_unread_entry_never_covers_what_may_be_native(
    tmp_path: Path, method: int, member: str
) -> None:
    """A114: k3diff does not read an lzma or bzip2 entry (pip does), so neither its RECORD hash
    nor its magic is checked: a glob waiver (`pkg/data/*`, for lzma data files) must not pass
    a library compressed so, whatever its name; its exact path does, and is named."""
    files = {"pkg/__init__.py": b"x = 1\n", "pkg/data/a.txt": b"hello\n", member: SO}
    built = wheelkit.make_wheel(tmp_path, "pkg", "1.0", files, tag=TAG)
    wheel = _recompressed(built, method, ("pkg/data/a.txt", member))
    glob = run_k3diff(
        "audit", wheel, "--format", "json", "--waivers", _waivers(tmp_path, ("A114", "pkg/data/*"))
    )
    assert glob.exit_code == 1, glob.stdout
    document = json.loads(glob.stdout)
    jsonschema.validate(document, load_schema("audit"))
    (unread,) = [f for f in document["artifacts"][0]["findings"] if f["path"] == member]
    assert unread["code"] == "A114" and unread["native"] is True
    assert unread["severity"] == "error"
    exact = _waivers(tmp_path, ("A114", member), ("A114", "pkg/data/a.txt"))
    text = run_k3diff("audit", wheel, "--waivers", exact)
    assert text.exit_code == 0, text.stdout
    assert f"A114 {member} — {REASON} {member}" in text.stdout.strip().splitlines()[-1]
