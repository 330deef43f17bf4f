"""`wheels --source`: a file that is not the commit's says what to do, not only a waiver
(newuser73).

A real setuptools project, built at its head and checked against the commit before it
(`--commit HEAD~2`), failed W401 with "Next steps" offering only a waiver; checked over a range
that ends before the wheel's change, W403 likewise. The usual cause is the wrong commit, so the
step for W401 fills in the `--commits OLD..NEW` command that finds the commit each file comes
from (or, over a range already, says none of it holds the file), and the one for W403 says the
wheel was built before the range's last change; each names the rebuild and the comparison, and
the waiver follows as `or accept`. The bundle says the same from the document.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from pathlib import Path

import wheelkit
from cli_support import run_k3diff
from provenance.repokit import git, make_repo

BASE = {"pkg/__init__.py": b"", "pkg/mod.py": b"def f():\n    return 1\n"}
BUILT = {"pkg/__init__.py": b"", "pkg/mod.py": b"def f():\n    return 2\n"}


def _setup(tmp_path: Path) -> None:
    """A repository whose commits hold mod.py returning 1, 2, then 3; the base wheel holds the
    first, the patch the second."""
    make_repo(
        tmp_path / "repo",
        [
            {"pkg/__init__.py": b"", "pkg/mod.py": BASE["pkg/mod.py"]},
            {"pkg/mod.py": BUILT["pkg/mod.py"]},
            {"pkg/mod.py": b"def f():\n    return 3\n"},
        ],
    )
    wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", BASE)
    wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", BUILT)


WHEELS = ("b/pkg-1.0-py3-none-any.whl", "p/pkg-1.0-py3-none-any.whl")


def _steps(stdout: str) -> list[str]:
    return stdout.split("\nNext steps\n", 1)[1].splitlines()


def test_a_mismatch_at_one_commit_names_the_range_check(tmp_path: Path) -> None:
    _setup(tmp_path)
    result = run_k3diff("wheels", *WHEELS, "--source", "repo", "--commit", "HEAD~2", cwd=tmp_path)
    assert result.exit_code == 1
    steps = _steps(result.stdout)
    assert steps[0].startswith(
        "  1 × W401 on 1 file: the wheel's file is not the one at HEAD~2 (the report's source diff shows how)"
    )
    first = _sha(tmp_path, "HEAD~2")
    command = f"k3diff wheels {WHEELS[0]} {WHEELS[1]} --source repo --commits {first}..HEAD"
    assert command in steps[0]
    assert (
        f"(python -m build --wheel) and compare it with this one (k3diff wheels BUILT.whl {WHEELS[1]})"
        in steps[0]
    )
    assert steps[1].startswith("  or accept each reviewed file with a waiver")


def test_the_range_check_the_step_names_finds_the_commit(tmp_path: Path) -> None:
    """The command the step fills in, with the range, passes where the wheel is the commit's
    before the head, and fails W403 with its own step where the range ends after it."""
    _setup(tmp_path)
    within = run_k3diff(
        "wheels", *WHEELS, "--source", "repo", "--commits", "HEAD~2..HEAD~1", cwd=tmp_path
    )
    assert within.exit_code == 0
    stale = run_k3diff(
        "wheels", *WHEELS, "--source", "repo", "--commits", "HEAD~2..HEAD", cwd=tmp_path
    )
    assert stale.exit_code == 1
    steps = _steps(stale.stdout)
    assert steps[0].startswith(
        "  1 × W403 on 1 file: the wheel's file is the one an older commit than the range's "
        "head holds (the detail names it), so the wheel was built before the range's last "
        "change to it: build it from the head"
    )
    assert steps[1].startswith("  or accept each reviewed file with a waiver")


def test_a_mismatch_over_a_range_says_none_of_it_holds_the_file(tmp_path: Path) -> None:
    _setup(tmp_path)
    result = run_k3diff(
        "wheels", *WHEELS, "--source", "repo", "--commits", "HEAD~1..HEAD", cwd=tmp_path
    )
    assert result.exit_code == 1
    steps = _steps(result.stdout)
    # HEAD~1 is OLD, checked too: it holds the wheel's file, which is then stale, not W401
    assert steps[0].startswith("  1 × W403 on 1 file")
    tampered = tmp_path / "p2"
    wheelkit.make_wheel(
        tampered, "pkg", "1.0", {**BUILT, "pkg/mod.py": b"def f():\n    return 9\n"}
    )
    result = run_k3diff(
        "wheels",
        WHEELS[0],
        "p2/pkg-1.0-py3-none-any.whl",
        "--source",
        "repo",
        "--commits",
        "HEAD~2..HEAD",
        cwd=tmp_path,
    )
    assert result.exit_code == 1
    steps = _steps(result.stdout)
    assert steps[0].startswith(
        "  1 × W401 on 1 file: no commit of HEAD~2..HEAD holds the wheel's file (the report's source diff "
        "is against the range's head): widen the range"
    )


def test_the_bundle_says_the_same_step_from_the_document(tmp_path: Path) -> None:
    _setup(tmp_path)
    wheels = run_k3diff(
        "wheels",
        *WHEELS,
        "--source",
        "repo",
        "--commit",
        "HEAD~2",
        "--format",
        "json",
        "-o",
        "wheels.json",
        cwd=tmp_path,
    )
    assert wheels.exit_code == 1
    result = run_k3diff("report", "wheels.json", *WHEELS, "repo", "--out", "bundle", cwd=tmp_path)
    assert result.exit_code == 1
    report = (tmp_path / "bundle" / "REPORT.md").read_text()
    assert "1 × W401 on 1 file: the wheel's file is not the one at HEAD~2" in report
    assert f"--source repo --commits {_sha(tmp_path, 'HEAD~2')}..HEAD" in report


def _sha(tmp_path: Path, rev: str) -> str:
    return git(tmp_path / "repo", "rev-parse", rev)


def _checks(step: str) -> list[str]:
    """The `k3diff wheels … --commits …` command the W401 step names, as words."""
    command = step.split("check it against the commits it may come from (", 1)[1]
    return shlex.split(command.split(":", 1)[0])


def test_the_range_the_w401_step_names_finds_the_commit_the_wheel_is_from(
    tmp_path: Path,
) -> None:
    """cleanup75: the step said `--commits OLD..NEW`; it fills in the commit checked and the
    repository's HEAD, and run as printed it names the commit the wheel's file is from (W403,
    whose own step's command then passes)."""
    _setup(tmp_path)
    result = run_k3diff("wheels", *WHEELS, "--source", "repo", "--commit", "HEAD~2", cwd=tmp_path)
    assert result.exit_code == 1
    words = _checks(_steps(result.stdout)[0])
    assert "OLD" not in " ".join(words) and "NEW" not in " ".join(words)

    rerun = run_k3diff(*words[1:], cwd=tmp_path)

    assert rerun.exit_code == 1
    assert f"older commit {_sha(tmp_path, 'HEAD~1')}" in rerun.stdout
    step = next(line for line in _steps(rerun.stdout) if "W403" in line)
    assert run_k3diff(*_against(step)[1:], cwd=tmp_path).exit_code == 0


@dataclass(frozen=True)
class _Checked:
    """A source check as the steps read it (`wheelfailing.Source`)."""

    repo: str
    rev: str | None
    range: str | None
    commit: str
    head_commit: str | None = None


def test_a_w401_step_keeps_a_placeholder_only_for_what_is_unknown() -> None:
    """Checked at HEAD, the wheel can only be older: OLD, said unknown. A document's commit
    that is not hex (hostile: `$(touch x)`) reaches no command: OLD..NEW."""
    from k3diff.report.wheelfailing import source_steps

    failing = [("W401", "pkg/mod.py", False)]
    for rev, commit, span in (
        ("HEAD", "c" * 40, f"OLD..{'c' * 40}"),
        ("v1", "$(touch x)", "OLD..NEW"),
    ):
        source = _Checked("-r epo", rev, None, commit)
        (_, step), *_ = source_steps(failing, source, ("b.whl", "p.whl"))
        assert f"--source './-r epo' --commits {span}:" in step
        assert "which the report does not know" in step or span == "OLD..NEW"


def _against(step: str) -> list[str]:
    """The `k3diff wheels … --commit …` command the W403 step names, as words."""
    command = step.split("check the wheel against its commit (", 1)[1].rsplit(")", 1)[0]
    return shlex.split(command)


def test_the_stale_step_names_the_older_commit_and_its_command_passes(tmp_path: Path) -> None:
    """steps74: the W403 step said `--commit COMMIT` while its detail named the commit; it
    now fills in the whole command, which passes (the wheel is that commit's), in the report
    and in the bundle."""
    _setup(tmp_path)
    args = ("--source", "repo", "--commits", "HEAD~2..HEAD")
    stale = run_k3diff("wheels", *WHEELS, *args, "--format", "json", "-o", "w.json", cwd=tmp_path)
    assert stale.exit_code == 1
    text = run_k3diff("wheels", *WHEELS, *args, cwd=tmp_path)
    step = next(line for line in _steps(text.stdout) if "W403" in line)
    words = _against(step)
    assert "COMMIT" not in words
    assert words[:7] == ["k3diff", "wheels", *WHEELS, "--source", "repo", "--commit"]
    commit = words[7]
    assert f"older commit {commit}" in text.stdout
    rerun = run_k3diff(*words[1:], cwd=tmp_path)
    assert rerun.exit_code == 0, rerun.stdout
    bundled = run_k3diff("report", "w.json", *WHEELS, "repo", "--out", "bundle", cwd=tmp_path)
    assert bundled.exit_code == 1
    assert f"--source repo --commit {commit}" in (tmp_path / "bundle" / "REPORT.md").read_text()


def test_a_hostile_or_mixed_detail_keeps_the_placeholder() -> None:
    """A document's W403 detail is hostile: only a commit's hex reaches the command; two
    different commits, or none, keep `COMMIT`."""
    from k3diff.report.wheelfailing import source_steps

    class Source:
        repo, rev, range, commit, head_commit = "-r epo", None, "a..b", "b" * 40, None

    failing = [("W403", "pkg/mod.py", False)]
    for details in (
        ["matches m at older commit $(touch x)"],
        ["matches m at older commit abcd", "matches n at older commit beef"],
        [],
    ):
        (_, step), *_ = source_steps(failing, Source(), ("b.whl", "p.whl"), details=details)
        assert step.endswith("--source './-r epo' --commit COMMIT)")
    (_, step), *_ = source_steps(
        failing, Source(), ("b.whl", "p.whl"), details=["matches m at older commit abcd"]
    )
    assert step.endswith("--commit abcd)")


def test_a_w401_step_at_head_named_by_its_id_names_a_range_up_to_it(tmp_path: Path) -> None:
    """setupstop76: checked at the repository's HEAD named by its id, the step named
    ``ID..HEAD``, which holds no commit; it names ``OLD..ID``, as for ``HEAD``, in the report
    and in the bundle from the document (which records the HEAD checked at)."""
    _setup(tmp_path)
    head = _sha(tmp_path, "HEAD")
    args = ("--source", "repo", "--commit", head)
    result = run_k3diff("wheels", *WHEELS, *args, "--format", "json", "-o", "w.json", cwd=tmp_path)
    assert result.exit_code == 1
    text = run_k3diff("wheels", *WHEELS, *args, cwd=tmp_path)
    step = _steps(text.stdout)[0]
    assert f"--commits OLD..{head}: OLD the first commit it may come from" in step
    assert f"{head}..HEAD" not in step
    bundled = run_k3diff("report", "w.json", *WHEELS, "repo", "--out", "bundle", cwd=tmp_path)
    assert bundled.exit_code == 1
    report = (tmp_path / "bundle" / "REPORT.md").read_text()
    assert f"--commits OLD..{head}" in report and f"{head}..HEAD" not in report


def test_a_document_s_head_is_its_word_and_an_older_one_lacks_it(tmp_path: Path) -> None:
    """The clone's HEAD moves on after the document (a new commit): `report` runs the check
    again and takes the document's `head_commit`, as it takes its revision names; a document
    written before it had one lacks it and is run again without it (exit 1: W401, not 2)."""
    _setup(tmp_path)
    head = _sha(tmp_path, "HEAD")
    args = ("--source", "repo", "--commit", head, "--format", "json", "-o", "w.json")
    assert run_k3diff("wheels", *WHEELS, *args, cwd=tmp_path).exit_code == 1
    document = json.loads((tmp_path / "w.json").read_text())
    assert document["provenance"]["head_commit"] == head
    git(tmp_path / "repo", "commit", "--allow-empty", "-q", "-m", "later", tick=9)
    moved = run_k3diff("report", "w.json", *WHEELS, "repo", "--out", "moved", cwd=tmp_path)
    assert moved.exit_code == 1, moved.stderr
    assert f"--commits OLD..{head}" in (tmp_path / "moved" / "REPORT.md").read_text()
    del document["provenance"]["head_commit"]
    (tmp_path / "old.json").write_text(json.dumps(document))
    older = run_k3diff("report", "old.json", *WHEELS, "repo", "--out", "older", cwd=tmp_path)
    assert older.exit_code == 1, older.stderr
