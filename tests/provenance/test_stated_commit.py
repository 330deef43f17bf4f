"""The commit a patch wheel states it was built from (its version's local segment, PEP 610
direct_url.json, a version module) is said in every output and, with --source --commit, held
against the commit compared: another commit, or one the repository lacks, fails (W408)."""

from __future__ import annotations

import hashlib
import itertools
import json
from pathlib import Path

import pytest
import wheelkit
from cli_support import run_k3diff

from provenance.repokit import commit, git, make_repo

A_FILES = {"pkg/__init__.py": b"", "pkg/engine.py": b"STEP = 1\n"}


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, str, str]:
    """Commit A (STEP = 1), then B (STEP = 2)."""
    path = tmp_path / "repo"
    a, b = make_repo(path, [A_FILES, {"pkg/engine.py": b"STEP = 2\n"}])
    return path, a, b


def _pair(tmp_path: Path, version: str, extra: dict[str, bytes] | None = None) -> list[Path]:
    base = wheelkit.make_wheel(tmp_path / "base", "engine", "1.0", {"pkg/__init__.py": b"",
                               "pkg/engine.py": b"STEP = 0\n"})  # fmt: skip
    files = {**A_FILES, **(extra or {})}
    return [base, wheelkit.make_wheel(tmp_path / "patch", "engine", version, files)]


def _run(wheels: list[Path], repo: Path, rev: str, fmt: str = "json") -> tuple[int, str]:
    result = run_k3diff("wheels", *wheels, "--source", repo, "--commit", rev, "--format", fmt)
    return result.exit_code, result.stdout


def _w408(document: dict[str, object]) -> list[dict[str, str]]:
    findings = document["findings"]
    assert isinstance(findings, list)
    return [f for f in findings if f["code"] == "W408"]


def test_a_version_stating_another_commit_fails_naming_both(
    repo: tuple[Path, str, str], tmp_path: Path
) -> None:
    path, a, b = repo
    wheels = _pair(tmp_path, f"1.0+g{b[:9]}")
    code, out = _run(wheels, path, a)
    document = json.loads(out)
    assert code == 1
    (finding,) = _w408(document)
    assert b in finding["detail"] and a in finding["detail"]
    assert finding["path"] == "engine-1.0+g" + b[:9] + ".dist-info/METADATA"
    stated = document["patch"]["stated_commits"]
    assert {s["field"] for s in stated} == {"Version", "file name"}
    assert {s["commit"] for s in stated} == {b[:9]}
    for fmt in ("text", "markdown"):
        said = _run(wheels, path, a, fmt)[1]
        assert f"states commit {b[:9]} (read from" in said, fmt
        assert "W408" in said, fmt


@pytest.mark.parametrize(
    "where", ["direct_url", "torch", "scm", "flashinfer", "deepspeed", "purelib", "platlib"]
)
def test_a_stated_full_commit_is_read_from_direct_url_and_version_modules(
    tmp_path: Path, where: str
) -> None:
    """The wheel holds commit A's files exactly, its version module (at A too) stating the
    commit before A: only W408 fails. FlashInfer's build backend writes `_build_meta.py`
    (`__git_commit__`, `git rev-parse HEAD`), DeepSpeed's setup.py
    `git_version_info_installed.py` (`git_hash`, `git rev-parse --short HEAD`). pip installs
    `engine-1.0.data/purelib/pkg/_version.py` (or `platlib/`) as `pkg/_version.py`: read
    there too (was no statement, exit 0)."""
    path = tmp_path / "repo"
    (c0,) = make_repo(path, [{"README": b"first\n"}])
    direct_url = {"url": "https://example.com/engine.git", "vcs_info": {"commit_id": c0}}
    extra = {
        "direct_url": {"engine-1.0.dist-info/direct_url.json": json.dumps(direct_url).encode()},
        "torch": {"pkg/version.py": f"__version__ = '1.0'\ngit_version = '{c0}'\n".encode()},
        "scm": {"pkg/_version.py": f"__commit_id__ = commit_id = 'g{c0[:8]}'\n".encode()},
        "flashinfer": {
            "pkg/_build_meta.py": f'__version__ = "1.0"\n__git_commit__ = "{c0}"\n'.encode()
        },
        "purelib": {"engine-1.0.data/purelib/pkg/_version.py": f"commit_id = '{c0}'\n".encode()},
        "platlib": {"engine-1.0.data/platlib/pkg/_version.py": f"commit_id = '{c0}'\n".encode()},
        "deepspeed": {
            "pkg/git_version_info_installed.py": (
                f"version='1.0+{c0[:7]}'\ngit_hash='{c0[:7]}'\ngit_branch='main'\n"
                "installed_ops={}\n"
            ).encode()
        },
    }[where]
    in_repo = {k[k.index("pkg/") :]: v for k, v in extra.items() if "pkg/" in k}  # installed
    a = commit(path, {**A_FILES, **in_repo}, "A")
    wheels = _pair(tmp_path, "1.0", extra)
    code, out = _run(wheels, path, a)
    assert code == 1
    (finding,) = _w408(json.loads(out))
    assert finding["path"] == next(iter(extra))
    assert c0 in finding["detail"] and a in finding["detail"]
    ignored = run_k3diff("wheels", *wheels, "--source", path, "--commit", a, "--ignore", "W408")
    assert ignored.exit_code == 0, ignored.stdout


def test_the_same_commit_abbreviated_passes(repo: tuple[Path, str, str], tmp_path: Path) -> None:
    path, a, _b = repo
    code, out = _run(_pair(tmp_path, f"1.0.dev4+g{a[:7]}"), path, a)
    assert code == 0, out
    document = json.loads(out)
    assert not _w408(document)
    assert [s["dirty"] for s in document["patch"]["stated_commits"]] == [False, False]


@pytest.mark.parametrize(
    "local",
    [
        "g{short}.d20260101",
        "g{short}.d20260101123456",  # setuptools-scm's node-and-timestamp (review69b)
        "4.g{short}.dirty",
        "untagged.4.g{short}.dirty",
        "{short}.d20260101",
        "{short}.d20260101123456",
    ],
)
def test_a_dirty_build_of_the_commit_compared_does_not_pass(
    repo: tuple[Path, str, str], tmp_path: Path, local: str
) -> None:
    """A wheel whose version says its work tree had uncommitted changes (setuptools-scm's
    `.dYYYYMMDD`, versioneer's `.dirty`) was built from no commit: matching Python files
    passed, exit 0, the dirty build said and nothing failed (prov69). It is W411, waivable."""
    path, a, _b = repo
    wheels = _pair(tmp_path, "1.0+" + local.format(short=a[:7]))

    code, out = _run(wheels, path, a)

    assert code == 1, out
    document = json.loads(out)
    assert not _w408(document)
    assert [s["dirty"] for s in document["patch"]["stated_commits"]] == [True, True]
    failing = [(f["code"], f["path"]) for f in document["findings"] if f["severity"] == "error"]
    assert failing == [("W411", "engine-1.0+" + local.format(short=a[:7]) + ".dist-info/METADATA")]
    (finding,) = [f for f in document["findings"] if f["code"] == "W411"]
    assert f"states commit {a[:7]} (read from" in finding["detail"]
    assert "a dirty build: the work tree had uncommitted changes" in finding["detail"]
    text = _run(wheels, path, "main~1", "text")[1]
    assert "W411" in text
    ignored = run_k3diff("wheels", *wheels, "--source", path, "--commit", a, "--ignore", "W411")
    assert ignored.exit_code == 0, ignored.stdout


@pytest.mark.parametrize("local", ["d20260101", "d20260101123456", "dirty", "1234567.dirty"])
def test_a_dirty_build_that_states_no_commit_does_not_pass(
    repo: tuple[Path, str, str], tmp_path: Path, local: str
) -> None:
    """A dirty build at a tag states the date alone (versioningit's `1.0+d20260101`,
    setuptools-scm's `+d20260101123456` with node-and-timestamp), or `+dirty` (dunamai), or a
    commit of digits alone, unread: built from no commit all the same. It passed, exit 0, and
    the timestamp, 15 hex digits with a letter, was read as a commit the repository lacks,
    W408 (review69b). It is W411, waivable, and states no commit."""
    path, a, _b = repo
    wheels = _pair(tmp_path, "1.0+" + local)

    code, out = _run(wheels, path, a)

    assert code == 1, out
    document = json.loads(out)
    assert document["patch"]["stated_commits"] == []
    failing = [(f["code"], f["path"]) for f in document["findings"] if f["severity"] == "error"]
    assert failing == [("W411", f"engine-1.0+{local}.dist-info/METADATA")]
    (finding,) = [f for f in document["findings"] if f["code"] == "W411"]
    assert finding["detail"].startswith(
        f"the patch wheel's version 1.0+{local} (read from engine-1.0+{local}.dist-info/METADATA "
        "Version) marks a dirty build and states no commit: built from a work tree with "
        "uncommitted changes"
    )
    ignored = run_k3diff("wheels", *wheels, "--source", path, "--commit", a, "--ignore", "W411")
    assert ignored.exit_code == 0, ignored.stdout


def test_a_clean_version_without_a_commit_states_nothing(
    repo: tuple[Path, str, str], tmp_path: Path
) -> None:
    path, a, _b = repo
    code, out = _run(_pair(tmp_path, "1.0+cu121"), path, a)
    assert code == 0, out


@pytest.mark.parametrize(
    ("local", "stated"),
    [
        ("dev{short}", "{short}"),  # a builder's +dev<hex>
        ("{short}", "{short}"),  # DeepSpeed's from-source +a1b2c3d
        ("dev12.{short}", "{short}"),  # the count, then the hash as a bare segment
        ("dev12", None),  # a count: no statement
        ("20260101", None),  # a date: no statement
        ("1234567", None),  # digits alone cannot be told from a count
    ],
)
def test_bare_and_dev_hex_are_read_where_they_cannot_be_a_count(
    tmp_path: Path, local: str, stated: str | None
) -> None:
    """`+dev<hex>` and a bare hex segment state a commit when it has 7 digits or more and a
    letter among them (prov69; before, neither was read, so such a wheel stating another
    commit passed)."""
    path = tmp_path / "repo"
    (a,) = make_repo(path, [A_FILES])
    short = "deadbee1"  # a letter among its 8 digits; no commit of the repository
    wheels = _pair(tmp_path, "1.0+" + local.format(short=short))

    code, out = _run(wheels, path, a)

    document = json.loads(out)
    said = [s["commit"] for s in document["patch"]["stated_commits"]]
    if stated is None:
        assert (code, said, _w408(document)) == (0, [], [])
    else:
        assert said == [stated.format(short=short)] * 2
        (finding,) = _w408(document)
        assert "deadbee1 (read from" in finding["detail"]
        assert "not a commit in the repository" in finding["detail"]
        assert code == 1


def test_a_stated_commit_the_repository_lacks_is_not_a_pass(
    repo: tuple[Path, str, str], tmp_path: Path
) -> None:
    path, a, _b = repo
    code, out = _run(_pair(tmp_path, "2.5.0+gitdeadbeef"), path, a)
    assert code == 1
    (finding,) = _w408(json.loads(out))
    assert "deadbeef" in finding["detail"] and "not a commit in" in finding["detail"]


@pytest.mark.parametrize("value", ["--output=/tmp/x", "HEAD^", "main@{1}", "a1b2:pkg", "abc"])
def test_a_stated_value_that_is_no_commit_id_is_never_a_statement(
    tmp_path: Path, value: str
) -> None:
    module = {"pkg/version.py": f"git_version = {value!r}\n".encode()}
    path = tmp_path / "repo"
    (a,) = make_repo(path, [{**A_FILES, **module}])
    code, out = _run(_pair(tmp_path, "1.0", module), path, a)
    document = json.loads(out)
    assert document["patch"]["stated_commits"] == []
    assert code == 0 and not _w408(document)


def test_the_bundle_source_row_names_the_stated_commit_and_fails_on_it(
    repo: tuple[Path, str, str], tmp_path: Path
) -> None:
    path, a, b = repo
    wheels = _pair(tmp_path, f"1.0+g{b[:9]}")
    made = run_k3diff(
        "wheels", *wheels, "--source", path, "--commit", a, "--format", "json", "-o", "w.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert made.exit_code == 1, made.stderr
    result = run_k3diff("report", "w.json", "--out", "b", cwd=tmp_path)
    assert result.exit_code == 1, result.stderr
    summary = json.loads((tmp_path / "b" / "summary.json").read_text())
    (row,) = [r for r in summary["matrix"] if r["evidence"] == "source match"]
    assert row["status"] == "FAIL", row
    said = (tmp_path / "b" / "REPORT.md").read_text()
    assert f"the patch wheel states commit {b[:9]} (read from" in said
    assert "W408" in said


def test_a_document_written_before_stated_commits_is_run_again_without_them(
    repo: tuple[Path, str, str], tmp_path: Path
) -> None:
    """torch wheels state their commit (torch/version.py): a document an older k3diff wrote of
    them lacks the field, and `report` given the wheels compares it all the same."""
    _path, a, _b = repo
    wheels = _pair(tmp_path, f"1.0+g{a[:9]}")
    made = run_k3diff("wheels", *wheels, "--format", "json", "-o", "w.json", cwd=tmp_path)
    assert made.exit_code == 0, made.stderr
    document = json.loads((tmp_path / "w.json").read_text())
    assert document["patch"]["stated_commits"]
    for side in ("base", "patch"):
        del document[side]["stated_commits"], document[side]["not_commits"]
    (tmp_path / "old.json").write_text(json.dumps(document))
    result = run_k3diff("report", "old.json", *wheels, "--out", "b", cwd=tmp_path)
    assert result.exit_code == 0, result.stdout + result.stderr
    document["base"]["stated_commits"] = []  # a newer document, the patch said to state none
    document["patch"]["stated_commits"] = []
    (tmp_path / "edited.json").write_text(json.dumps(document))
    result = run_k3diff("report", "edited.json", *wheels, "--out", "c", cwd=tmp_path)
    assert result.exit_code == 2 and "patch.stated_commits" in result.stderr, result.stderr


def test_an_abbreviation_naming_two_commits_is_not_the_commit_compared(
    repo: tuple[Path, str, str], tmp_path: Path
) -> None:
    """A stated `g1a2b` is the commit compared only when it names that commit alone in REPO."""
    path, a, _b = repo
    tree = git(path, "rev-parse", f"{a}^{{tree}}")
    seen: dict[str, bytes] = {}
    for n in itertools.count():  # two commits of A's files sharing 4 hex digits (birthday)
        body = (f"tree {tree}\nparent {a}\nauthor A <a@example.com> 0 +0000\n"
                f"committer A <a@example.com> 0 +0000\n\nc{n}\n").encode()  # fmt: skip
        oid = hashlib.sha1(b"commit %d\0" % len(body) + body).hexdigest()
        if oid[:4] in seen:
            break
        seen[oid[:4]] = body
    first = git(path, "hash-object", "-t", "commit", "-w", "--stdin", stdin=seen[oid[:4]])
    assert git(path, "hash-object", "-t", "commit", "-w", "--stdin", stdin=body) == oid
    code, out = _run(_pair(tmp_path, f"1.0+g{oid[:4]}"), path, first)
    assert code == 1
    (finding,) = _w408(json.loads(out))
    assert f"states commit {oid[:4]} " in finding["detail"]
    assert "names 2 commits in" in finding["detail"]
