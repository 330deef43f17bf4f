"""The one way k3diff runs git: configuration that could run a program is overridden, always.

A source repository is an input, and inputs are hostile. Its configuration (``.git/config``, and
whatever that file pulls in through ``include.path`` or ``includeIf``, or a submodule's config
kept in its outer repository, or the repository a ``.git`` file points at) can name programs that
git runs: an fsmonitor hook, hooks, a pager, external diff and textconv drivers, clean/smudge
filters, ssh and credential helpers, gpg. Reading or editing those files cannot stop all of them,
since includes are resolved inside git. What does: configuration given on git's command line wins
over every file, whatever includes the files contain. So every call gets:

- fixed overrides for every code-running key git has (`HARDENED_CONFIG`);
- overrides for the keys named after a driver (``filter.NAME.smudge``, ``diff.NAME.textconv``,
  ``credential.URL.helper`` …), which have no wildcard: their names are read once per repository
  from ``git config --list --name-only`` (reading configuration runs nothing) and each is blanked
  (`driver_overrides`);
- an environment with every ``GIT_*`` variable of the caller removed (nothing can point git at
  another repository, object store, graft file or config) and only these set: no system or
  global configuration, replace objects and grafts off, no protocol allowed (a partial clone's
  lazy fetch would otherwise run ssh or a credential helper), no terminal prompt, no pager.

The overrides travel as ``-c key=value`` (command scope, understood by every git), except a key
whose driver name holds ``=`` (``-c`` splits at the first one), which travels as
``GIT_CONFIG_COUNT``/``GIT_CONFIG_KEY_n``/``GIT_CONFIG_VALUE_n`` (the same scope, git >= 2.31).
Beyond that, k3diff calls only plumbing that never runs a driver at all:
``rev-parse``, ``for-each-ref``, ``ls-tree``, ``cat-file --batch``/``--batch-check`` (no
``--filters``/``--textconv``), ``rev-list`` and raw ``diff-tree --no-ext-diff --no-textconv``.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

from k3diff.errors import SourceError

GIT_MEMORY_BYTES = 2 << 30
"""Most data memory (heap and private writable mappings; not the mapped pack files) one git
process may take. git reads a commit or tree whole: a loose object of a few megabytes that
inflates to gigabytes (review67: a 1 GiB commit from a 4.6 MB file took 1 GiB in `rev-parse`
before k3diff's own 16 MiB cap on what it reads could refuse it) would otherwise take what the
machine has. Plenty for real histories: `rev-list --topo-order --parents --all` of git.git
(203,352 commits) runs within 256 MiB."""

GIT_TIMEOUT_S = 600.0
"""Seconds one git call may take (an include of a FIFO, or a loose object that is a FIFO, would
otherwise hang the run)."""

_NO_PROGRAM = "/dev/null"
"""What a program-naming key is set to: a path that exists and can never be executed."""

_PROTOCOLS = ("file", "git", "ssh", "http", "https", "ftp", "ftps", "ext", "fd")

HARDENED_CONFIG: tuple[tuple[str, str], ...] = (
    ("core.fsmonitor", "false"),
    ("core.hooksPath", os.devnull),
    ("core.pager", "cat"),
    ("core.sshCommand", _NO_PROGRAM),
    ("core.gitProxy", ""),
    ("core.askPass", ""),
    ("core.alternateRefsCommand", ""),
    ("core.attributesFile", os.devnull),
    ("core.untrackedCache", "false"),
    ("core.quotePath", "false"),
    # A commit-graph file is a cache of each commit's parents and tree that git trusts unread
    # (only `git commit-graph verify` checks it): a forged one rewrites history for rev-list and
    # diff-tree, as a graft would (review67). The commit objects themselves are read instead.
    ("core.commitGraph", "false"),
    # Ambiguity between a ref and an object id must reach us as a warning (see revisions.py).
    ("core.warnAmbiguousRefs", "true"),
    ("credential.helper", ""),  # an empty value clears every helper configured before it
    ("diff.external", ""),
    ("gpg.program", _NO_PROGRAM),
    ("gpg.openpgp.program", _NO_PROGRAM),
    ("gpg.x509.program", _NO_PROGRAM),
    ("gpg.ssh.program", _NO_PROGRAM),
    ("gpg.ssh.defaultKeyCommand", ""),
    ("uploadpack.packObjectsHook", ""),
    ("gc.auto", "0"),
    ("maintenance.auto", "false"),
    ("log.showSignature", "false"),
    ("advice.graftFileDeprecated", "false"),
    ("protocol.allow", "never"),
    # A per-protocol policy beats protocol.allow, so each one is closed by name too.
    *((f"protocol.{name}.allow", "never") for name in _PROTOCOLS),
)
"""Overrides applied to every git call (a key git reads as a program, hook or transport)."""

_DRIVER_KEYS = (
    (re.compile(r"filter\..+\.(?:clean|smudge|process)", re.S), ""),
    (re.compile(r"filter\..+\.required", re.S), "false"),
    (re.compile(r"diff\..+\.(?:textconv|command)", re.S), ""),
    (re.compile(r"merge\..+\.driver", re.S), ""),
    (re.compile(r"credential\..+\.helper", re.S), ""),
    (re.compile(r"remote\..+\.(?:uploadpack|receivepack)", re.S), _NO_PROGRAM),
    (re.compile(r"protocol\..+\.allow", re.S), "never"),
    (re.compile(r"gpg\..+\.program", re.S), _NO_PROGRAM),
    (re.compile(r"pager\..+", re.S), "false"),
)
"""Keys with a user-chosen middle part that name a program, and the value that disarms each."""

ENVIRONMENT = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_NO_REPLACE_OBJECTS": "1",
    "GIT_GRAFT_FILE": os.devnull,  # --no-replace-objects already ignores grafts; doubly sure
    "GIT_TERMINAL_PROMPT": "0",  # never ask for credentials on the user's terminal
    "GIT_OPTIONAL_LOCKS": "0",  # reading must not refresh or lock the index
    "GIT_LITERAL_PATHSPECS": "1",  # a prefix such as 'src/' is a path, never a glob
    "GIT_NO_LAZY_FETCH": "1",  # a partial clone must not go to the network (git >= 2.44)
    "GIT_ALLOW_PROTOCOL": "none",  # …and on older git no transport is allowed at all
    "GIT_PROTOCOL_FROM_USER": "0",
    "GIT_ATTR_NOSYSTEM": "1",
    "GIT_PAGER": "cat",
    "PAGER": "cat",
    "GIT_ADVICE": "0",
    "LC_ALL": "C",  # git's messages are parsed (first line, ambiguity warnings): keep them stable
}
"""Variables every git call gets; every other ``GIT_*`` variable of the caller is removed."""

GLOBAL_OPTIONS = ("--no-pager", "--no-replace-objects", "--literal-pathspecs")


def driver_overrides(config_names: Iterable[str]) -> tuple[tuple[str, str], ...]:
    """The overrides that disarm the driver-style keys among `config_names` (lower-case
    section and key, as ``git config --name-only`` prints them)."""
    found: dict[str, str] = {}
    for name in config_names:
        for pattern, value in _DRIVER_KEYS:
            if pattern.fullmatch(name):
                found[name] = value
    return tuple(sorted(found.items()))


def _split(
    overrides: Sequence[tuple[str, str]],
) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(overrides for ``-c``, overrides whose key holds '=' and so go through the environment)."""
    config = [*HARDENED_CONFIG, *overrides]
    return [kv for kv in config if "=" not in kv[0]], [kv for kv in config if "=" in kv[0]]


def environment(path: Path, overrides: Sequence[tuple[str, str]] = ()) -> dict[str, str]:
    """The environment for git running in `path`: see the module docstring."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(ENVIRONMENT)
    # Stop discovery at REPO itself: a plain directory inside some other checkout is an error,
    # not a silent switch to the enclosing repository.
    env["GIT_CEILING_DIRECTORIES"] = str(path.parent)
    _options, unsplittable = _split(overrides)
    env["GIT_CONFIG_COUNT"] = str(len(unsplittable))
    for n, (key, value) in enumerate(unsplittable):
        env[f"GIT_CONFIG_KEY_{n}"] = key
        env[f"GIT_CONFIG_VALUE_{n}"] = value
    return env


_LIMITED = 'ulimit -d "$0" 2>/dev/null; exec "$@"'
"""The shell's whole script: cap the data memory (KiB, its first argument; a hard limit already
lower stays), then become git, given the rest as arguments: none of them is read as shell
syntax."""


def launched(command: Sequence[str]) -> list[str]:
    """The argument list that runs `command` (a git call) under `GIT_MEMORY_BYTES`: through
    ``/bin/sh``'s ``ulimit -d``, which costs about a millisecond, where a ``preexec_fn`` would
    make every call fork all of k3diff (+130 ms a call with 800 MB resident, measured) and is
    not safe beside threads. git is looked up on PATH here, as Popen would; Windows has no
    such limit and runs git as it is."""
    if sys.platform == "win32":
        return list(command)
    program = shutil.which(command[0])
    if program is None:
        raise SourceError("git is not installed or not on PATH")
    return ["/bin/sh", "-c", _LIMITED, str(GIT_MEMORY_BYTES >> 10), program, *command[1:]]


def git_command(
    repo_path: Path, args: Sequence[str], overrides: Sequence[tuple[str, str]] = ()
) -> list[str]:
    """The argument list of one hardened git call in `repo_path`."""
    options, _unsplittable = _split(overrides)
    config = [arg for key, value in options for arg in ("-c", f"{key}={value}")]
    return ["git", *GLOBAL_OPTIONS, *config, "-C", str(repo_path), *args]


def run_git(
    repo_path: Path,
    args: Sequence[str],
    *,
    stdin: bytes | None = None,
    overrides: Sequence[tuple[str, str]] = (),
) -> subprocess.CompletedProcess[bytes]:
    """Run one git command in `repo_path` and return what it did, whatever its exit status."""
    try:
        return subprocess.run(
            launched(git_command(repo_path, args, overrides)),
            input=stdin,
            stdin=None if stdin is not None else subprocess.DEVNULL,
            capture_output=True,
            env=environment(repo_path, overrides),
            check=False,
            timeout=GIT_TIMEOUT_S,
        )
    except subprocess.TimeoutExpired as exc:
        raise SourceError(
            f"{repo_path}: git {args[0]} took longer than {GIT_TIMEOUT_S:g} s (stopped)"
        ) from exc
    except FileNotFoundError as exc:
        raise SourceError("git is not installed or not on PATH") from exc
    except OSError as exc:
        raise SourceError(f"{repo_path}: cannot run git: {exc.strerror or exc}") from exc


MINIMUM_GIT = (2, 28)
"""The oldest git k3diff runs (``rev-parse --show-object-format``)."""


@functools.cache
def check_git_version() -> None:
    """Refuse a git too old for the plumbing used here, once per process, in one line."""
    done = run_git(Path(os.sep), ["version"])
    found = re.match(rb"git version (\d+)\.(\d+)", done.stdout)
    if found is None:  # an unusual build string: let the calls themselves say what fails
        return
    version = (int(found[1]), int(found[2]))
    if version < MINIMUM_GIT:
        raise SourceError(
            f"git {version[0]}.{version[1]} is too old: k3diff needs git "
            f"{MINIMUM_GIT[0]}.{MINIMUM_GIT[1]} or later"
        )


def failure_message(code: int, stderr: bytes) -> str:
    """What a failed git command said, or how it ended when it said nothing: git overflows its
    stack on a tree nested 100,000 deep and dies by a signal without a word."""
    said = first_line(stderr)
    if said != "no message":
        return said
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return (
            f"git was killed by {name} without a message (an object nested too deeply or too "
            "large for git, or git itself crashed)"
        )
    return f"git exited with status {code} without a message"


_ASIDES = re.compile(
    r"unable to normalize alternate object path|object directory .* does not exist"
    r"|ignoring alternate object stores|unable to find alternate object database",
    re.S,
)
"""git's complaints about a broken ``objects/info/alternates`` entry: git skips the entry and
goes on, so the reason the command failed, if any, comes after them (left67b: they took its
place in the message)."""


def first_line(stderr: bytes) -> str:
    """git's first non-empty message line, without its ``fatal:``/``error:`` prefix (an aside
    about a broken alternate only when git said nothing else)."""
    lines = [
        line.strip().removeprefix("fatal: ").removeprefix("error: ")
        for line in stderr.decode("utf-8", "replace").splitlines()
        if line.strip() and not line.startswith(("warning:", "hint:"))
    ]
    said = next((line for line in lines if not _ASIDES.match(line)), lines[0] if lines else None)
    if said is None:
        return "no message"
    if said.startswith("Out of memory"):  # git's xmalloc, under `memory_limit`
        said += (
            f"; k3diff gives git at most {GIT_MEMORY_BYTES >> 20:,} MiB of memory: an object that "
            "inflates past it is refused"
        )
    return said
