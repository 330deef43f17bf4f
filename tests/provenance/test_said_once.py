"""What `wheels --source` says about a revision and a stated commit, said once and by name
(newuser68).

* A stated commit outside ``OLD..NEW`` was printed twice in text and Markdown: as a `Note:` line
  of the source section and as the W408 detail of the failing findings table. A note that is a
  failing finding is said there alone; one that fails nothing (waived, `--ignore`d, or W409,
  informational) is still a `Note:`, the one place its text is printed in full.
* With a tag and a branch both named `main`, `main~1` and `main^` were refused as ambiguous,
  but `main~2` (no such commit through the tag, which git prefers) as `not a commit in this
  repository`: every revision form reading the name is refused naming the ambiguity.
* A reflog form (`main@{0}`, `HEAD@{1}`, `@{-1}`, `main@{upstream}`) is refused whatever it
  would name (prov69): `main@{0}` beside a tag `main` went through the branch's reflog unwarned.
* So is a revision choosing a commit by its message (`:/text`, `main^{/text}`; prov70).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import wheelkit
from cli_support import run_k3diff

from provenance.repokit import git, make_repo

A_FILES = {"pkg/__init__.py": b"", "pkg/engine.py": b"STEP = 1\n"}


@pytest.fixture
def history(tmp_path: Path) -> tuple[Path, list[str]]:
    """c0 (README) -> A (the package) -> M (a doc) -> B (engine changed), on branch main."""
    path = tmp_path / "repo"
    ids = make_repo(
        path, [{"README": b"x\n"}, A_FILES, {"doc.txt": b"d\n"}, {"pkg/engine.py": b"STEP = 2\n"}]
    )
    return path, ids


def _wheels(tmp_path: Path, stated: str) -> list[Path]:
    base = {**A_FILES, "pkg/engine.py": b"STEP = 0\n"}
    patch = {**A_FILES, "pkg/engine.py": b"STEP = 2\n"}
    return [
        wheelkit.make_wheel(tmp_path / "base", "engine", "1.0", base),
        wheelkit.make_wheel(tmp_path / "patch", "engine", f"1.0+g{stated[:9]}", patch),
    ]


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_a_stated_commit_outside_the_range_is_said_once(
    history: tuple[Path, list[str]], tmp_path: Path, fmt: str
) -> None:
    path, (_c0, a, _m, b) = history
    wheels = _wheels(tmp_path, a)  # OLD itself: outside OLD..NEW
    said = f"not in OLD..NEW = {a}..{b} (it is OLD itself, which OLD..NEW excludes)"

    result = run_k3diff("wheels", *wheels, "--source", path, "--commits", "main~2..main",
                        "--format", fmt)  # fmt: skip

    assert result.exit_code == 1, result.stderr
    assert result.stdout.count(said) == 1, result.stdout
    assert "W408" in result.stdout.split(said)[0].rsplit("\n", 1)[-1]  # in the findings' row


def test_a_stated_commit_outside_the_range_is_a_note_where_it_fails_nothing(
    history: tuple[Path, list[str]], tmp_path: Path
) -> None:
    path, (_c0, a, _m, b) = history
    wheels = _wheels(tmp_path, a)
    said = f"not in OLD..NEW = {a}..{b} (it is OLD itself, which OLD..NEW excludes)"

    result = run_k3diff(
        "wheels", *wheels, "--source", path, "--commits", "main~2..main", "--ignore", "W408"
    )

    assert result.exit_code == 0, result.stdout
    (line,) = [line for line in result.stdout.splitlines() if said in line]
    assert line.startswith("Note: the patch wheel states commit "), line


@pytest.mark.parametrize(
    "spec",
    [
        ["--commits", "main~2..main"],  # through the tag, no such commit
        ["--commits", "main~1..main"],
        ["--commits", "main^..main"],
        ["--commits", "main^2..main"],  # no second parent either way
        ["--commit", "main~3"],
    ],
)
def test_a_name_of_a_tag_and_a_branch_is_refused_as_ambiguous_in_every_form(
    history: tuple[Path, list[str]], tmp_path: Path, spec: list[str]
) -> None:
    path, (_c0, a, m, _b) = history
    git(path, "tag", "main", m)
    rev = spec[1].split("..")[0]

    result = run_k3diff("wheels", *_wheels(tmp_path, a), "--source", path, *spec)

    assert result.exit_code == 2, result.stdout
    assert result.stderr == (
        f"k3diff: error: {path}: main (in {rev}) names both tag main and branch main; "
        "give the full id\n"
    )


@pytest.mark.parametrize(
    "spec",
    [
        ["--commit", "main@{0}"],  # through branch main's reflog, silently, beside tag main
        ["--commit", "HEAD@{1}"],
        ["--commit", "@{-1}"],
        ["--commit", "main@{upstream}"],
        ["--commits", "main@{1}..main"],
        ["--commits", "main~2..main@{now}"],
    ],
)
@pytest.mark.parametrize("tagged", [True, False], ids=["tag-main", "no-tag"])
def test_a_reflog_form_is_refused_in_every_position(
    history: tuple[Path, list[str]], tmp_path: Path, spec: list[str], tagged: bool
) -> None:
    """A clone's reflog (and its upstream setting) records what the clone did, not what the
    repository holds: `main@{0}` with a tag `main` resolved through the branch's reflog with
    no warning, and was compared (prov69). Every `@{…}` form is refused, before git reads it."""
    path, (_c0, a, m, _b) = history
    git(path, "checkout", "-q", "-b", "side")  # a reflog with a previous branch (@{-1})
    git(path, "checkout", "-q", "main")
    if tagged:
        git(path, "tag", "main", m)
    rev = next(part for part in spec[1].split("..") if "@{" in part)

    result = run_k3diff("wheels", *_wheels(tmp_path, a), "--source", path, *spec)

    assert result.exit_code == 2, result.stdout
    assert result.stdout == ""
    assert result.stderr == (
        f"k3diff: error: {path}: revision {rev!r} reads this clone's reflog or upstream "
        "(@{…}), which records what the clone did, not what the repository holds (refused): "
        "give a branch, a tag or a commit id\n"
    )


@pytest.mark.parametrize(
    "spec",
    [
        ["--commit", ":/commit 3"],
        ["--commit", "main^{/commit 3}"],
        ["--commit", ":/!-commit [012]"],  # git's negated match
        ["--commits", "main^{/commit 1}..main"],
        ["--commits", "main~2..:/commit 3"],
    ],
)
def test_a_revision_chosen_by_commit_message_is_refused_in_every_position(
    history: tuple[Path, list[str]], tmp_path: Path, spec: list[str]
) -> None:
    """`:/text` and `REV^{/text}` name the youngest commit whose message matches: the message
    is the repository authors' text, and whoever pushes a newer commit saying it changes the
    commit compared. `main^{/text}` resolved and was compared, exit 0 (prov70); `:/text` was
    refused, but as `not a commit in this repository` (git does not read `:/` under the
    `^{commit}` k3diff appends). Both are refused before git reads them, as `@{…}` is."""
    path, (_c0, _a, _m, b) = history
    wheels = _wheels(tmp_path, b)  # B's files, stating B: passes where the revision is B
    rev = next(part for part in spec[1].split("..") if "/" in part)

    result = run_k3diff("wheels", *wheels, "--source", path, *spec)

    assert result.exit_code == 2, result.stdout
    assert result.stdout == ""
    assert result.stderr == (
        f"k3diff: error: {path}: revision {rev!r} chooses the youngest commit whose message "
        "matches (:/… or ^{/…}): a message is text the repository's authors write, and the "
        "commit it names changes whenever a newer one matches (refused): give a branch, a tag "
        "or a commit id\n"
    )
    # The other peels read the object graph alone, and stay accepted.
    for peeled in ("main^{}", "main^{commit}", "main^{object}"):
        assert run_k3diff("wheels", *wheels, "--source", path, "--commit", peeled).exit_code == 0
