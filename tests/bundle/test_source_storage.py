"""How the repository given to `wheels --source` stores its history (W406: replace refs or
grafts, ignored; W407: objects borrowed through alternates) is a fact of that directory, not of
the commit: `report` runs the source check again in whichever directory given holds the
recorded commit, and compared those notes with the rest of the document, so a plain clone of a
`--shared` clone, or a clone without the replace refs (`git clone` does not copy them), made it
refuse the document `wheels` had just written (exit 2; w408c). They are compared apart now and
said where they differ; what the commit holds, and what the wheel states of it, is still
compared whole."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import wheelkit
from cli_support import run_k3diff
from provenance.repokit import commit, git, make_repo

V1 = {"pkg/__init__.py": b"", "pkg/engine.py": b"STEP = 1\n"}
V2 = {"pkg/__init__.py": b"", "pkg/engine.py": b"STEP = 2\n"}


def _wheels(tmp_path: Path, version: str = "1.0") -> list[str]:
    base = wheelkit.make_wheel(tmp_path / "base", "engine", "1.0", {"pkg/__init__.py": b"",
                               "pkg/engine.py": b"STEP = 0\n"})  # fmt: skip
    return [str(base), str(wheelkit.make_wheel(tmp_path / "patch", "engine", version, V2))]


def _document(
    tmp_path: Path, wheels: list[str], repo: str, rev: str, code: int = 0
) -> dict[str, Any]:
    made = run_k3diff(
        "wheels", *wheels, "--source", repo, "--commit", rev, "--format", "json",
        "-o", "w.json", cwd=tmp_path,
    )  # fmt: skip
    assert made.exit_code == code, made.stdout + made.stderr
    document: dict[str, Any] = json.loads((tmp_path / "w.json").read_text())
    return document


def _report(tmp_path: Path, wheels: list[str], repo: Path, out: str) -> tuple[int, str, str]:
    """`report` from another directory than the one `wheels` ran in."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(exist_ok=True)
    result = run_k3diff("report", tmp_path / "w.json", *wheels, repo, "--out", out, cwd=elsewhere)
    said = elsewhere / out / "REPORT.md"
    return result.exit_code, result.stderr, said.read_text() if said.exists() else ""


def _stored(notes: Any) -> list[dict[str, str]]:
    """The notes but the one saying the wheel's version is not checked (these repositories hold
    no build configuration: `builtversion`)."""
    return [n for n in notes if "METADATA Version" not in n["message"]]


def test_a_shared_clone_s_document_is_run_again_in_any_clone_holding_the_commit(
    tmp_path: Path,
) -> None:
    origin = tmp_path / "origin"
    make_repo(origin, [V1])
    git(tmp_path, "clone", "-q", "--shared", "origin", "borrower")
    compared = commit(origin, V2, "only in origin")  # the borrower reads it from origin's store
    wheels = _wheels(tmp_path)
    document = _document(tmp_path, wheels, "borrower", compared)  # a relative REPO
    store = (origin / ".git" / "objects").resolve()
    borrowed = f"commit {compared} comes from the object store of {store}"
    assert [n["message"] for n in _stored(document["provenance"]["notes"])] == [
        f"objects may come from the object store of {store}",
        borrowed,
    ]
    (tmp_path / "link").symlink_to(tmp_path / "borrower")
    code, stderr, said = _report(tmp_path, wheels, tmp_path / "link", "same")
    assert code == 0, stderr
    assert "notes otherwise how it stores the recorded commit's history" not in said

    plain = tmp_path / "plain"
    git(tmp_path, "clone", "-q", "--no-local", str(origin), str(plain))
    code, stderr, said = _report(tmp_path, wheels, plain, "plain")
    assert code == 0, stderr
    assert (
        f"the repository given ({plain}) notes otherwise how it stores the recorded commit's "
        f"history (the document: objects may come from the object store of {store}; "
        f"{borrowed}; the repository given: no such note): a clone of the same history may "
        "store it otherwise"
    ) in said.replace("\\_", "_")


def test_a_clone_without_the_replace_refs_runs_the_document_again_and_says_so(
    tmp_path: Path,
) -> None:
    repo = tmp_path / "repo"
    one, two = make_repo(repo, [V1, V2])
    git(repo, "replace", two, one)  # ignored by every k3diff git call, and named (W406)
    wheels = _wheels(tmp_path)
    document = _document(tmp_path, wheels, str(repo), two)
    assert [n["code"] for n in _stored(document["provenance"]["notes"])] == ["W406"]
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--no-local", str(repo), str(clone))
    assert git(clone, "for-each-ref", "refs/replace/") == ""

    code, stderr, said = _report(tmp_path, wheels, clone, "b")

    assert code == 0, stderr
    assert (
        "(the document: refs/replace present: ignored (1 ref); the repository given: no such "
        "note): a clone of the same history may store it otherwise"
    ) in said


def test_a_repository_that_now_holds_the_stated_commit_is_still_refused(
    tmp_path: Path,
) -> None:
    """What the repository says of the wheel's statement is evidence: the stated commit was no
    commit in the repository (W408), and the repository given to `report` has it since."""
    repo = tmp_path / "repo"
    (one,) = make_repo(repo, [V1])
    fork = tmp_path / "fork"
    git(tmp_path, "clone", "-q", "--no-local", str(repo), str(fork))
    later = commit(fork, V2, "later")
    wheels = _wheels(tmp_path, f"1.0+g{later[:9]}")
    document = _document(tmp_path, wheels, "repo", one, code=1)
    (w408,) = [f for f in document["findings"] if f["code"] == "W408"]
    assert "not a commit in the repository" in w408["detail"]
    git(repo, "fetch", "-q", str(fork), "main")  # the repository has moved on since

    code, stderr, _ = _report(tmp_path, wheels, repo, "b")

    assert code == 2
    assert "does not follow from the wheels given with it" in stderr
    assert ".detail" in stderr


def test_a_relative_alternates_line_names_the_store_itself(tmp_path: Path) -> None:
    """`objects/info/alternates` may name a store relative to the objects directory; the note
    named it as `…/borrower/.git/objects/../../../origin/.git/objects` (so a copy of the two
    moved elsewhere named another path for the same store)."""
    origin = tmp_path / "origin"
    make_repo(origin, [V1])
    git(tmp_path, "clone", "-q", "--shared", "origin", "borrower")
    alternates = tmp_path / "borrower" / ".git" / "objects" / "info" / "alternates"
    alternates.write_text("../../../origin/.git/objects\n")
    compared = commit(origin, V2, "only in origin")

    document = _document(tmp_path, _wheels(tmp_path), "borrower", compared)

    store = (origin / ".git" / "objects").resolve()
    assert [n["message"] for n in _stored(document["provenance"]["notes"])] == [
        f"objects may come from the object store of {store}",
        f"commit {compared} comes from the object store of {store}",
    ]


def test_a_release_set_says_it_once_for_all_its_pairs(tmp_path: Path) -> None:
    origin = tmp_path / "origin"
    make_repo(origin, [V1])
    git(tmp_path, "clone", "-q", "--shared", "origin", "borrower")
    compared = commit(origin, V2, "only in origin")
    for name in ("engine", "engine_extra"):
        wheelkit.make_wheel(tmp_path / "old", name, "1.0", V1)
        wheelkit.make_wheel(tmp_path / "new", name, "1.1", V2)
    made = run_k3diff(
        "wheels", "old", "new", "--source", "borrower", "--commit", compared,
        "--format", "json", "-o", "w.json", cwd=tmp_path,
    )  # fmt: skip
    assert made.exit_code == 0, made.stdout + made.stderr
    plain = tmp_path / "plain"
    git(tmp_path, "clone", "-q", "--no-local", str(origin), str(plain))

    dirs = [str(tmp_path / "old"), str(tmp_path / "new")]
    code, stderr, said = _report(tmp_path, dirs, plain, "b")

    assert code == 0, stderr
    assert said.count("notes otherwise how it stores the recorded commit's history") == 1
    assert f"w.json: the repository given ({plain})" in said.replace("\\_", "_")


def test_storage_notes_edited_are_said_and_findings_unlike_them_refused(tmp_path: Path) -> None:
    """Compared apart, the storage notes are the document's word, said beside the repository's:
    an edited one is named in the qualification; a W406/W407 finding that is not what its notes
    write (one each, at info) is refused as any other edit is."""
    origin = tmp_path / "origin"
    make_repo(origin, [V1])
    git(tmp_path, "clone", "-q", "--shared", "origin", "borrower")
    compared = commit(origin, V2, "only in origin")
    wheels = _wheels(tmp_path)
    document = _document(tmp_path, wheels, "borrower", compared)
    forged = "commit verified by the release team's signed attestation"
    document["provenance"]["notes"][1]["message"] = forged
    (second,) = [f for f in document["findings"] if f["detail"].startswith(f"commit {compared}")]
    second["detail"] = forged
    (tmp_path / "w.json").write_text(json.dumps(document))

    code, stderr, said = _report(tmp_path, wheels, tmp_path / "borrower", "edited")

    assert code == 0, stderr
    assert "(the document: objects may come from the object store of" in said
    assert f"; {forged}; the repository given: " in said
    second["detail"] = "anything else"
    (tmp_path / "w.json").write_text(json.dumps(document))
    code, stderr, _ = _report(tmp_path, wheels, tmp_path / "borrower", "unlike")
    assert code == 2
    assert "its W406/W407 findings are not the ones its provenance.notes write" in stderr
