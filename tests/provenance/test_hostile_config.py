"""A source repository's configuration never runs a program, wherever it is put.

Each case builds a repository whose configuration names a marker-writing program behind every
code-running key git has (fsmonitor, hooks, external diff, textconv, diff driver command,
clean/smudge/process filters, pager, ssh, credential helper, gpg, askpass), put in one of five
places: `.git/config` itself, a file it includes (`include.path`), a file included on a
condition (`includeIf "gitdir:…"`), a submodule's config kept in its outer repository, and a
repository that a `.git` file points at. Then `k3diff wheels --source … --commit B` and
`--commits A..B` (with a changed Python file absent at B) must give the right verdict with no
marker written, and plain git, run the same way a user would, must write each marker: so the
case proves the program really was wired up and would have run.
"""

from __future__ import annotations

import http.server
import json
import os
import pty
import subprocess
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import wheelkit
from cli_support import run_k3diff

from provenance.repokit import commit, git, git_env

MARKERS = (
    "fsmonitor", "hooks", "diff-external", "textconv", "diff-command", "clean", "smudge",
    "process", "pager", "ssh", "credential", "gpg", "askpass",
)  # fmt: skip
"""One marker program per code-running key."""

# How each marker program behaves after writing its marker: filters and pagers pass their
# input on; a transport or helper fails at once (it would otherwise wait for a protocol).
_TAILS = {
    "clean": "exec cat",
    "smudge": "exec cat",
    "pager": "exec cat",
    "textconv": 'exec cat "$1"',
}

HISTORY: list[dict[str, bytes | None]] = [
    {
        ".gitattributes": b"*.py filter=evil diff=evil\n*.txt filter=evilp\n",
        "README.txt": b"read me\n",
        "NOTES": b"a\n",
        "pkg/__init__.py": b"",
        "pkg/engine.py": b"def step():\n    return 1\n",
        "pkg/gone.py": b"GONE = 1\n",
    },
    {"pkg/engine.py": b"def step():\n    return 2\n", "pkg/gone.py": None, "NOTES": b"b\n"},
]
"""A then B: B edits engine.py and NOTES (no attributes) and deletes gone.py."""

BASE_WHEEL = {"pkg/__init__.py": b"", "pkg/engine.py": b"def step():\n    return 1\n",
              "pkg/gone.py": b"GONE = 0\n"}  # fmt: skip
PATCH_WHEEL = {"pkg/__init__.py": b"", "pkg/engine.py": b"def step():\n    return 3\n",
               "pkg/gone.py": b"GONE = 1\n"}  # fmt: skip
"""engine.py matches no commit (mismatch); gone.py is A's version, absent at B."""

MISSING_BLOB = "0123456789abcdef0123456789abcdef01234567"
"""An object a partial clone's promisor remote would be asked for (lazy fetch)."""
EMPTY_BLOB = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
"""The empty file's blob id: the lazy commit holds most of the wheel's files (prefix
detection stops on a tree holding too few of them), and the empty `__init__.py` matches unread."""


@dataclass(frozen=True)
class Hostile:
    """A hostile source repository and what a test needs to run against it."""

    source: Path
    """The directory passed to --source."""
    gitdir: Path
    """Its git directory (where the format keys live)."""
    commits: tuple[str, str]
    """A and B."""
    marks: Path
    """Where the marker programs write; empty as long as nothing ran."""
    signed: str
    """A commit object carrying a (fake) signature, for the gpg control."""

    def ran(self) -> list[str]:
        return sorted(p.name for p in self.marks.iterdir())


def _marker_programs(root: Path) -> tuple[Path, Path]:
    bin_dir, marks = root / "bin", root / "marks"
    bin_dir.mkdir()
    marks.mkdir()
    for name in MARKERS:
        tail = _TAILS.get(name, "exit 1")
        script = bin_dir / f"mark-{name}"
        script.write_text(f'#!/bin/sh\necho ran "$@" >> "{marks}/{name}"\n{tail}\n')
        script.chmod(0o755)
    hooks = root / "hooks"
    hooks.mkdir()
    for hook in ("pre-commit", "post-commit", "reference-transaction", "post-index-change",
                 "post-checkout", "fsmonitor-watchman", "pre-auto-gc"):  # fmt: skip
        (hooks / hook).symlink_to(bin_dir / "mark-hooks")
    return bin_dir, hooks


def _program_keys(bin_dir: Path, hooks: Path) -> str:
    """The configuration that names a marker program behind every code-running key."""
    b = bin_dir
    return f"""
[core]
\tfsmonitor = {b}/mark-fsmonitor
\thooksPath = {hooks}
\tpager = {b}/mark-pager
\tsshCommand = {b}/mark-ssh
\taskPass = {b}/mark-askpass
\twarnAmbiguousRefs = false
[diff]
\texternal = {b}/mark-diff-external
[diff "evil"]
\ttextconv = {b}/mark-textconv
\tcommand = {b}/mark-diff-command
[filter "evil"]
\tclean = {b}/mark-clean
\tsmudge = {b}/mark-smudge
\trequired = true
[filter "evilp"]
\tprocess = {b}/mark-process
[credential]
\thelper = {b}/mark-credential
[gpg]
\tprogram = {b}/mark-gpg
[protocol]
\tallow = always
[protocol "ssh"]
\tallow = always
[protocol "http"]
\tallow = always
[log]
\tshowSignature = true
[pager]
\tlog = {b}/mark-pager
"""


# Repository-format keys: read by git from the repository's own config file only (never through
# an include), so they go there in every placement. They make the repository a partial clone
# whose promisor is reached over ssh: reading a missing object would run ssh.
FORMAT_KEYS = """
[core]
\trepositoryformatversion = 1
[extensions]
\tpartialClone = promisor
[remote "promisor"]
\turl = ssh://example.invalid/engine.git
\tpromisor = true
"""


def _append(path: Path, text: str) -> None:
    with path.open("a") as handle:
        handle.write(text)


def _signed_commit(repo: Path) -> str:
    raw = git(repo, "cat-file", "commit", "HEAD")
    head, _, message = raw.partition("\n\n")
    signature = "gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEz\n -----END PGP SIGNATURE-----"
    body = f"{head}\n{signature}\n\n{message}\n".encode()
    return git(repo, "hash-object", "-t", "commit", "-w", "--stdin", stdin=body)


def _history(repo: Path) -> tuple[str, str]:
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    a, b = (commit(repo, edits, f"commit {n}") for n, edits in enumerate(HISTORY))
    return a, b


def _placed(root: Path, placement: str) -> tuple[Path, Path]:
    """Build the repository for `placement`: (the --source directory, its git directory)."""
    if placement == "submodule":
        inner = root / "inner"
        _history(inner)
        outer = root / "outer"
        outer.mkdir()
        git(outer, "init", "-q", "-b", "main")
        git(outer, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(inner), "sub")
        commit(outer, {}, "add the submodule")
        return outer / "sub", outer / ".git" / "modules" / "sub"
    repo = root / "repo"
    _history(repo)
    if placement == "gitfile":
        real = root / "elsewhere" / "real.git"
        real.parent.mkdir()
        (repo / ".git").rename(real)
        (repo / ".git").write_text(f"gitdir: {real}\n")
        return repo, real
    return repo, repo / ".git"


def build_hostile(root: Path, placement: str) -> Hostile:
    """A repository for `placement` with every program key set, the markers still empty."""
    bin_dir, hooks = _marker_programs(root)
    source, gitdir = _placed(root, placement)
    a, b = git(source, "rev-parse", "main~1"), git(source, "rev-parse", "main")
    signed = _signed_commit(source)
    keys = _program_keys(bin_dir, hooks)
    _append(gitdir / "config", FORMAT_KEYS)
    if placement in ("direct", "gitfile", "submodule"):
        _append(gitdir / "config", keys)
    if placement == "submodule":  # the outer repository's own config too
        _append(source.parent / ".git" / "config", keys)
    if placement in ("include", "includeIf"):
        included = root / "hostile.inc"
        included.write_text(keys)
        section = "[include]" if placement == "include" else f'[includeIf "gitdir:{source}/"]'
        _append(gitdir / "config", f"{section}\n\tpath = {included}\n")
    return Hostile(source, gitdir, (a, b), root / "marks", signed)


PLACEMENTS = ("direct", "include", "includeIf", "submodule", "gitfile")


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("wheels")
    base = wheelkit.make_wheel(root / "base", "engine", "1.0", BASE_WHEEL)
    patch = wheelkit.make_wheel(root / "patch", "engine", "1.0", PATCH_WHEEL)
    return base, patch


@pytest.fixture(params=PLACEMENTS)
def hostile(request: pytest.FixtureRequest, tmp_path: Path) -> Hostile:
    return build_hostile(tmp_path, str(request.param))


def _sources(report: dict[str, object]) -> dict[str, str]:
    entries = report["entries"]
    assert isinstance(entries, list)
    return {e["path"]: e["source"]["status"] for e in entries if "source" in e}


def _errors(report: dict[str, object]) -> list[str]:
    findings = report["findings"]
    assert isinstance(findings, list)
    return sorted(f["code"] for f in findings if f["severity"] == "error")


def test_commit_and_range_run_nothing_and_give_the_right_verdict(
    hostile: Hostile, wheels: tuple[Path, Path]
) -> None:
    a, b = hostile.commits
    single = run_k3diff("wheels", *wheels, "--source", hostile.source, "--commit", b,
                        "--format", "json")  # fmt: skip
    ranged = run_k3diff("wheels", *wheels, "--source", hostile.source, "--commits", f"{a}..{b}",
                        "--format", "json")  # fmt: skip

    assert hostile.ran() == []
    assert (single.exit_code, single.stderr) == (1, "")
    assert _sources(json.loads(single.stdout)) == {
        "pkg/engine.py": "mismatch",
        "pkg/gone.py": "absent",
    }
    assert _errors(json.loads(single.stdout)) == ["W401", "W402"]
    assert (ranged.exit_code, ranged.stderr) == (1, "")
    assert _sources(json.loads(ranged.stdout)) == {
        "pkg/engine.py": "mismatch",
        "pkg/gone.py": "stale",
    }
    assert _errors(json.loads(ranged.stdout)) == ["W401", "W403"]


# --- controls: plain git runs every marker program from the same repository ------------------


def _plain(h: Hostile, *args: str, **env: str) -> None:
    subprocess.run(
        ["git", "-C", str(h.source), *args],
        env={**git_env(), "GIT_TERMINAL_PROMPT": "0", **env},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=60,
        check=False,
    )


def _in_terminal(h: Hostile, *args: str) -> None:
    main, sub = pty.openpty()
    try:
        subprocess.run(["git", "-C", str(h.source), *args], env={**git_env(), "TERM": "dumb", "PAGER": "cat"},
                       stdin=sub, stdout=sub, stderr=sub, timeout=60, check=False)  # fmt: skip
    finally:
        os.close(main)
        os.close(sub)


@pytest.fixture(scope="module")
def refusing_server() -> Iterator[str]:
    """A loopback HTTP server that answers every request 401 (git then asks its helper)."""

    class Refuse(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="engine"')
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Refuse)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/engine.git"
    server.shutdown()
    thread.join()


Control = Callable[[Hostile, str], None]

CONTROLS: dict[str, Control] = {
    "fsmonitor": lambda h, url: _plain(h, "diff-tree", "-r", *h.commits, "--", "pkg"),
    "diff-command": lambda h, url: _plain(h, "diff", *h.commits, "--", "pkg"),
    "diff-external": lambda h, url: _plain(h, "diff", *h.commits, "--", "NOTES"),
    "textconv": lambda h, url: _plain(h, "diff", "--no-ext-diff", *h.commits),
    "smudge": lambda h, url: _plain(h, "cat-file", "--filters", f"{h.commits[1]}:pkg/engine.py"),
    "process": lambda h, url: _plain(h, "cat-file", "--filters", f"{h.commits[1]}:README.txt"),
    "clean": lambda h, url: _plain(h, "hash-object", "--path=pkg/engine.py", "pkg/engine.py"),
    "pager": lambda h, url: _in_terminal(h, "log", "-1"),
    "ssh": lambda h, url: _plain(h, "cat-file", "-e", MISSING_BLOB),
    "credential": lambda h, url: _plain(
        h,
        "-c",
        f"url.{url}.insteadOf=ssh://example.invalid/engine.git",
        "cat-file",
        "-e",
        MISSING_BLOB,
    ),
    "gpg": lambda h, url: _plain(h, "verify-commit", h.signed),
    "hooks": lambda h, url: _plain(h, "update-ref", "refs/heads/control", h.commits[0]),
}
"""For each marker, a plain git command that runs its program (with `url`: a 401 server)."""


def test_plain_git_runs_every_program_so_each_case_is_real(
    hostile: Hostile, refusing_server: str
) -> None:
    not_run = []
    for marker, control in CONTROLS.items():
        control(hostile, refusing_server)
        if marker not in hostile.ran():
            not_run.append(marker)
    assert not_run == []


def test_an_object_missing_from_a_partial_clone_is_never_fetched(
    tmp_path: Path, wheels: tuple[Path, Path]
) -> None:
    # The promisor is reached over ssh (core.sshCommand is a marker; protocol.*.allow=always):
    # reading the missing blob would run it. k3diff refuses to fetch: exit 2, one line.
    h = build_hostile(tmp_path, "direct")
    listing = f"100644 blob {EMPTY_BLOB}\t__init__.py\n100644 blob {MISSING_BLOB}\tengine.py\n"
    package = git(h.source, "mktree", "--missing", stdin=listing.encode())
    root = git(h.source, "mktree", stdin=f"040000 tree {package}\tpkg\n".encode())
    lazy = git(h.source, "commit-tree", root, "-m", "lazy")

    result = run_k3diff("wheels", *wheels, "--source", h.source, "--commit", lazy)

    assert h.ran() == []
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1
    assert f"object {MISSING_BLOB} is missing from the repository" in result.stderr
