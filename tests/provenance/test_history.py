"""The commit a report names is the commit compared: no replace ref, graft, same-named ref or
borrowed object store changes that, and the report says what it resolved and what it ignored."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
import wheelkit
from cli_support import run_k3diff

from k3diff.errors import SourceError
from k3diff.provenance.check import SourceStatus, check_source, check_source_range
from provenance.repokit import commit, git, make_repo

V1 = {"pkg/__init__.py": b"", "pkg/engine.py": b"STEP = 1\n"}
V2 = {"pkg/engine.py": b"STEP = 2\n"}
V3 = {"pkg/engine.py": b"STEP = 3\n"}
EVIL = {"pkg/__init__.py": b"", "pkg/engine.py": b"import miner\n"}


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, list[str]]:
    """one (v1) -> two (v2) -> three (v3) on main."""
    path = tmp_path / "repo"
    return path, make_repo(path, [V1, V2, V3])


def _evil_commit(repo: Path, parent: str | None = None) -> str:
    """A commit holding EVIL that no ref reaches (an attacker's object)."""
    engine = git(repo, "hash-object", "-w", "--stdin", stdin=EVIL["pkg/engine.py"])
    empty = git(repo, "hash-object", "-w", "--stdin", stdin=b"")
    package = git(repo, "mktree", stdin=f"100644 blob {empty}\t__init__.py\n"
                  f"100644 blob {engine}\tengine.py\n".encode())  # fmt: skip
    root = git(repo, "mktree", stdin=f"040000 tree {package}\tpkg\n".encode())
    return git(repo, "commit-tree", root, *(["-p", parent] if parent else []), "-m", "evil")


def _wheels(tmp_path: Path, patch_files: dict[str, bytes]) -> tuple[Path, Path]:
    base = wheelkit.make_wheel(tmp_path / "base", "engine", "1.0", {"pkg/__init__.py": b"",
                               "pkg/engine.py": b"STEP = 0\n"})  # fmt: skip
    return base, wheelkit.make_wheel(tmp_path / "patch", "engine", "1.0", patch_files)


def _json(*args: str | Path) -> tuple[int, dict[str, object], str]:
    result = run_k3diff(*args, "--format", "json")
    return result.exit_code, json.loads(result.stdout or "{}"), result.stderr


# --- replace refs and grafts -----------------------------------------------------------------


def _stored(notes: Any) -> list[dict[str, str]]:
    """The notes but the one saying the wheel's version is not checked (these repositories hold
    no build configuration: `builtversion`)."""
    return [n for n in notes if "METADATA Version" not in n["message"]]


def test_a_replace_ref_cannot_forge_the_compared_commit(
    repo: tuple[Path, list[str]], tmp_path: Path
) -> None:
    path, (one, _two, three) = repo
    git(path, "replace", three, _evil_commit(path, parent=_two))
    wheels = _wheels(tmp_path, EVIL)

    for spec in (["--commit", three], ["--commit", "HEAD"], ["--commits", f"{one}..HEAD"]):
        code, report, stderr = _json("wheels", *wheels, "--source", path, *spec)
        assert (code, stderr) == (1, ""), spec
        provenance = report["provenance"]
        assert isinstance(provenance, dict)
        assert provenance["commit"] == three
        assert _stored(provenance["notes"]) == [
            {"code": "W406", "message": "refs/replace present: ignored (1 ref)"}
        ]
        entries = report["entries"]
        assert isinstance(entries, list)
        (engine,) = [e for e in entries if e["path"] == "pkg/engine.py"]
        assert engine["source"]["status"] == "mismatch"
        findings = report["findings"]
        assert isinstance(findings, list)
        assert {(f["code"], f["severity"]) for f in findings if f["code"] == "W406"} == {
            ("W406", "info")
        }


def test_grafts_are_ignored_and_named(repo: tuple[Path, list[str]]) -> None:
    path, (_one, two, three) = repo
    evil = _evil_commit(path)
    (path / ".git" / "info").mkdir(exist_ok=True)
    (path / ".git" / "info" / "grafts").write_text(f"{three} {evil}\n")

    # Honouring the graft, three's parent would be the evil commit and the wheel "stale" there.
    report = check_source_range(path, f"{two}..{three}", {"pkg/engine.py": EVIL["pkg/engine.py"]})

    assert report.files[0].status is SourceStatus.MISMATCH
    assert report.commits_examined == 2
    assert [note.message for note in report.notes] == ["info/grafts present: ignored"]


def _forge_commit_graph(repo: Path, child: str, parent: str) -> None:
    """Write the repository's commit-graph file, then make it say `child`'s first parent is
    `parent` (its trailing checksum recomputed, as a forger would)."""
    git(repo, "update-ref", "refs/heads/keep", parent)  # so the graph lists `parent` too
    git(repo, "commit-graph", "write", "--reachable")
    git(repo, "update-ref", "-d", "refs/heads/keep")
    graph = repo / ".git" / "objects" / "info" / "commit-graph"
    data = bytearray(graph.read_bytes())
    chunks = {bytes(data[at : at + 4]): int.from_bytes(data[at + 4 : at + 12])
              for at in range(8, 8 + 12 * data[6], 12)}  # fmt: skip
    count = int.from_bytes(data[chunks[b"OIDF"] + 255 * 4 : chunks[b"OIDF"] + 256 * 4])
    names = chunks[b"OIDL"]
    ids = [bytes(data[names + 20 * n : names + 20 * (n + 1)]).hex() for n in range(count)]
    record = chunks[b"CDAT"] + 36 * ids.index(child) + 20  # after the tree id: parent 1
    data[record : record + 4] = ids.index(parent).to_bytes(4)
    data[-20:] = hashlib.sha1(bytes(data[:-20])).digest()
    graph.chmod(0o644)
    graph.write_bytes(bytes(data))
    assert git(repo, "rev-list", "--parents", "-1", child).split()[1:] == [parent]


def test_a_forged_commit_graph_cannot_put_a_commit_in_the_range(
    repo: tuple[Path, list[str]], tmp_path: Path
) -> None:
    """git trusts the commit-graph file's parents and trees unread: forged, it made an
    attacker's commit the parent of `three`, and a wheel holding its file "stale" there, a
    build of the range's own history (review67). It is mismatch: no commit of the range holds it."""
    path, (_one, two, three) = repo
    evil = _evil_commit(path)
    _forge_commit_graph(path, three, evil)

    code, report, stderr = _json(
        "wheels", *_wheels(tmp_path, EVIL), "--source", path, "--commits", f"{two}..{three}"
    )

    assert (code, stderr) == (1, "")
    entries = report["entries"]
    assert isinstance(entries, list)
    (engine,) = [e for e in entries if e["path"] == "pkg/engine.py"]
    assert (engine["source"]["status"], engine["source"]["matched_commit"]) == ("mismatch", None)
    provenance = report["provenance"]
    assert isinstance(provenance, dict)
    assert provenance["commits_examined"] == 2


# --- one revision, one commit ----------------------------------------------------------------


def test_a_tag_named_like_a_short_id_is_refused(
    repo: tuple[Path, list[str]], tmp_path: Path
) -> None:
    path, (one, two, _three) = repo
    short = one[:7]
    git(path, "tag", short, two)
    git(path, "config", "core.warnAmbiguousRefs", "false")  # the repository cannot silence it
    wheels = _wheels(tmp_path, {"pkg/__init__.py": b"", "pkg/engine.py": b"STEP = 2\n"})

    for spec in (
        ["--commit", short],
        ["--commits", f"{short}..HEAD"],
        ["--commits", f"HEAD~2..{short}"],
    ):
        result = run_k3diff("wheels", *wheels, "--source", path, *spec)
        assert result.exit_code == 2, spec
        assert result.stderr == (
            f"k3diff: error: {path}: {short} names both tag {short} and commit {one}; "
            "give the full id\n"
        )


def test_the_full_id_always_names_the_commit(repo: tuple[Path, list[str]]) -> None:
    path, (one, two, _three) = repo
    git(path, "tag", one[:7], two)
    git(path, "branch", one, two)  # a branch named like the full id, pointing elsewhere

    report = check_source(path, one, {"pkg/engine.py": b"STEP = 1\n"})

    assert report.ok and report.commit == one
    assert report.revisions[0].describe() == one


def test_a_tag_and_a_branch_of_one_name_are_refused(repo: tuple[Path, list[str]]) -> None:
    path, (one, two, _three) = repo
    git(path, "tag", "release", one)
    git(path, "branch", "release", two)

    with pytest.raises(SourceError) as raised:
        check_source(path, "release", {"pkg/engine.py": b"STEP = 2\n"})
    assert str(raised.value) == (
        f"{path}: release names both tag release and branch release; give the full id"
    )


def test_report_prints_full_ids_with_the_ref_and_what_it_resolved_to(
    repo: tuple[Path, list[str]], tmp_path: Path
) -> None:
    path, (one, _two, three) = repo
    git(path, "tag", "-a", "-m", "release one", "v1", one)
    tag = git(path, "rev-parse", "v1")
    wheels = _wheels(tmp_path, {"pkg/__init__.py": b"", "pkg/engine.py": b"STEP = 3\n"})

    text = run_k3diff("wheels", *wheels, "--source", path, "--commits", "v1..main")
    markdown = run_k3diff("wheels", *wheels, "--source", path, "--commits", "v1..main",
                          "--format", "markdown")  # fmt: skip
    code, report, _ = _json("wheels", *wheels, "--source", path, "--commits", "v1..main")

    old = f"{one} (v1: refs/tags/v1 -> tag {tag})"
    new = f"{three} (main: refs/heads/main)"
    assert f"Old: {old}\nNew: {new}\n" in text.stdout
    # Markdown keeps `->` as written: `>` alone opens no tag (one escaping helper for all).
    assert f"Old: {old}  \nNew: {new}  \n" in markdown.stdout
    assert code == text.exit_code == 0
    provenance = report["provenance"]
    assert isinstance(provenance, dict)
    assert provenance["revisions"] == [
        {"given": "v1", "commit": one, "ref": "refs/tags/v1", "ref_target": tag,
         "ref_target_type": "tag"},
        {"given": "main", "commit": three, "ref": "refs/heads/main", "ref_target": None,
         "ref_target_type": None},
    ]  # fmt: skip


def test_head_names_its_branch_and_a_short_id_its_full_id(repo: tuple[Path, list[str]]) -> None:
    path, (one, _two, three) = repo

    assert check_source(path, "HEAD", {}).revisions[0].describe() == (
        f"{three} (HEAD: refs/heads/main)"
    )
    assert check_source(path, one[:9], {}).revisions[0].describe() == f"{one} ({one[:9]})"
    assert check_source(path, "main~2", {}).revisions[0].describe() == f"{one} (main~2)"


# --- alternates ------------------------------------------------------------------------------


def test_a_commit_from_a_borrowed_object_store_is_named(tmp_path: Path) -> None:
    other = tmp_path / "other"
    make_repo(other, [V1])
    borrower = tmp_path / "borrower"
    git(tmp_path, "clone", "-q", "--shared", str(other), str(borrower))
    only_there = commit(other, V2, "only in other")  # never fetched: borrower sees it anyway
    wheels = _wheels(tmp_path, {"pkg/__init__.py": b"", "pkg/engine.py": b"STEP = 2\n"})

    code, report, stderr = _json("wheels", *wheels, "--source", borrower, "--commit", only_there)

    store = (other / ".git" / "objects").resolve()
    assert (code, stderr) == (0, "")
    provenance = report["provenance"]
    assert isinstance(provenance, dict)
    assert [n["message"] for n in _stored(provenance["notes"])] == [
        f"objects may come from the object store of {store}",
        f"commit {only_there} comes from the object store of {store}",
    ]
    findings = report["findings"]
    assert isinstance(findings, list)
    assert [f["code"] for f in findings if f["code"].startswith("W40")] == ["W407", "W407"]


def test_a_commit_of_the_borrower_itself_is_not_said_to_be_borrowed(tmp_path: Path) -> None:
    other = tmp_path / "other"
    make_repo(other, [V1])
    borrower = tmp_path / "borrower"
    git(tmp_path, "clone", "-q", "--shared", str(other), str(borrower))
    own = commit(borrower, V2, "own")
    git(borrower, "gc", "-q")  # packed, so the pack index is searched too

    report = check_source(borrower, own, {"pkg/engine.py": b"STEP = 2\n"})

    assert report.ok
    assert [note.code for note in report.notes] == ["W407"]
    assert "comes from" not in report.notes[0].message


def test_an_alternate_that_is_a_symbolic_link_loop_is_skipped_as_git_skips_it(
    repo: tuple[Path, list[str]], tmp_path: Path
) -> None:
    """Resolving the store an `objects/info/alternates` line names raised on a symbolic link
    loop: "internal error (a bug in k3diff)", exit 2 (review67). git skips such a line, and so
    does k3diff: the check runs, and no store is said to be borrowed."""
    path, (_one, _two, three) = repo
    (tmp_path / "loop1").symlink_to(tmp_path / "loop2")
    (tmp_path / "loop2").symlink_to(tmp_path / "loop1")
    (path / ".git" / "objects" / "info" / "alternates").write_text(f"{tmp_path}/loop1/objects\n")
    wheels = _wheels(tmp_path, {"pkg/__init__.py": b"", "pkg/engine.py": b"STEP = 3\n"})

    code, report, stderr = _json("wheels", *wheels, "--source", path, "--commit", three)

    assert (code, stderr) == (0, "")
    provenance = report["provenance"]
    assert isinstance(provenance, dict)
    assert _stored(provenance["notes"]) == []
