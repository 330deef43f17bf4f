"""The hardened git runner: what it overrides, what it drops, and that it cannot hang."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from k3diff.errors import SourceError
from k3diff.provenance import gitrun
from k3diff.provenance.check import check_source
from k3diff.provenance.gitrun import driver_overrides, environment, git_command
from provenance.repokit import make_repo


def test_every_driver_key_the_configuration_names_is_disarmed() -> None:
    names = [
        "filter.lfs.smudge", "filter.lfs.process", "filter.a=b.clean", "filter.x.required",
        "diff.evil.textconv", "diff.evil.command", "merge.evil.driver",
        "credential.https://example.com.helper", "remote.origin.uploadpack",
        "protocol.ssh.allow", "gpg.ssh.program", "pager.log",
        "core.bare", "user.name", "remote.origin.url",
    ]  # fmt: skip

    assert dict(driver_overrides(names)) == {
        "filter.lfs.smudge": "", "filter.lfs.process": "", "filter.a=b.clean": "",
        "filter.x.required": "false", "diff.evil.textconv": "", "diff.evil.command": "",
        "merge.evil.driver": "", "credential.https://example.com.helper": "",
        "remote.origin.uploadpack": os.devnull, "protocol.ssh.allow": "never",
        "gpg.ssh.program": os.devnull, "pager.log": "false",
    }  # fmt: skip


def test_the_callers_git_variables_are_dropped_and_overrides_travel_unsplit(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for name in ("GIT_DIR", "GIT_CONFIG_PARAMETERS", "GIT_EXTERNAL_DIFF", "GIT_SSH_COMMAND",
                 "GIT_REPLACE_REF_BASE", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_ASKPASS"):  # fmt: skip
        monkeypatch.setenv(name, "/attacker")

    overrides = [("filter.a=b.smudge", ""), ("filter.lfs.smudge", "")]
    env = environment(tmp_path / "repo", overrides)
    command = git_command(tmp_path / "repo", ["ls-tree", "HEAD"], overrides)

    assert not {k for k, v in env.items() if v == "/attacker"}
    # '-c' splits at the first '=': a driver name holding one travels through the environment.
    assert (env["GIT_CONFIG_COUNT"], env["GIT_CONFIG_KEY_0"]) == ("1", "filter.a=b.smudge")
    assert env["GIT_CONFIG_VALUE_0"] == ""
    for option in ("core.fsmonitor=false", "protocol.ssh.allow=never", "filter.lfs.smudge="):
        assert command[command.index(option) - 1] == "-c"
    assert command[:3] == ["git", "--no-pager", "--no-replace-objects"]
    assert command[-3:] == [str(tmp_path / "repo"), "ls-tree", "HEAD"]
    assert env["GIT_NO_REPLACE_OBJECTS"] == "1"
    assert env["GIT_CONFIG_GLOBAL"] == os.devnull


def test_a_caller_inside_a_git_hook_cannot_inject_configuration(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # A parent `git -c core.fsmonitor=…` passes GIT_CONFIG_PARAMETERS down to its hooks.
    marker, program = tmp_path / "ran", tmp_path / "fsmonitor"
    program.write_text(f"#!/bin/sh\ntouch {marker}\nexit 1\n")
    program.chmod(0o755)
    repo = tmp_path / "repo"
    make_repo(repo, [{"pkg/a.py": b"A = 1\n"}])
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", f"'core.fsmonitor'='{program}'")

    assert check_source(repo, "HEAD", {"pkg/a.py": b"A = 1\n"}).ok
    assert not marker.exists()


def test_an_include_of_a_fifo_ends_in_one_line_not_a_hang(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    make_repo(repo, [{"pkg/a.py": b"A = 1\n"}])
    fifo = tmp_path / "config.fifo"
    os.mkfifo(fifo)
    with (repo / ".git" / "config").open("a") as config:
        config.write(f"[include]\n\tpath = {fifo}\n")
    monkeypatch.setattr(gitrun, "GIT_TIMEOUT_S", 2.0)

    with pytest.raises(SourceError, match=r"took longer than 2 s \(stopped\)"):
        check_source(repo, "HEAD", {"pkg/a.py": b"A = 1\n"})


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to give the repository away")
def test_a_repository_owned_by_another_user_is_refused_in_one_line(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    make_repo(repo, [{"pkg/a.py": b"A = 1\n"}])
    for path in (repo, *repo.rglob("*")):
        os.lchown(path, 65534, 65534)

    with pytest.raises(SourceError, match="owned by another user, and git refuses it"):
        check_source(repo, "HEAD", {"pkg/a.py": b"A = 1\n"})


def test_a_git_too_old_for_the_plumbing_is_refused_in_one_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def old_git(*_args: object, **_kwargs: object) -> subprocess.CompletedProcess[bytes]:
        return subprocess.CompletedProcess([], 0, b"git version 2.25.1\n", b"")

    gitrun.check_git_version.cache_clear()
    monkeypatch.setattr(gitrun, "run_git", old_git)
    try:
        with pytest.raises(SourceError, match=r"^git 2\.25 is too old: k3diff needs git 2\.28"):
            gitrun.check_git_version()
    finally:
        gitrun.check_git_version.cache_clear()
