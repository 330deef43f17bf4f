"""A `k3diff wheels` process ends without taking its model apart (`k3diff.cli.quickexit`,
issue 41), and that changes nothing anyone sees: the exit status, stdout, stderr and the `-o`
file are those of the ordinary exit, `atexit` callbacks still run, and wherever the ordinary
exit would do more (a non-daemon thread still running, a tracer installed, `-X dev`, a stdout
that cannot be flushed, a command that did not allow it, an in-process caller) the process
exits the ordinary way.

Each run is a fresh interpreter running the console script's `sys.exit(main())`, with an
`atexit` callback that writes to stderr whether it was called by `quickexit.leave` (`quick`) or
by the interpreter's own exit (`ordinary`), and whether `k3diff.keepalive` kept the
comparison's working objects (`kept`: one comparison in a process that ends with it) or not
(`none`: a release set, a command that holds nothing, an in-process caller)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import wheelkit

from k3diff.cli import main

_PROBE = """
import atexit, sys, threading, traceback

def witness():
    import k3diff.keepalive
    quick = any(frame.name == "leave" for frame in traceback.extract_stack())
    kept = "kept" if k3diff.keepalive._kept else "none"
    sys.stderr.write(f"quick {kept}\\n" if quick else f"ordinary {kept}\\n")

atexit.register(witness)
mode = sys.argv.pop(1)
if mode == "thread":  # a non-daemon thread alive until the interpreter's own exit
    threading.Thread(target=threading.main_thread().join).start()
elif mode == "trace":
    sys.settrace(lambda *args: None)
elif mode == "ordinary":  # the reference: what the process does without the quick exit
    import k3diff.cli.quickexit
    k3diff.cli.quickexit.leave = lambda code: None
from k3diff.cli import main
sys.argv[0] = "k3diff"
sys.exit(main())
"""


def _run(
    mode: str, *argv: str | Path, stdout: int = subprocess.PIPE
) -> subprocess.CompletedProcess[str]:
    dev = ["-X", "dev"] if mode == "dev" else []
    return subprocess.run(
        [sys.executable, *dev, "-c", _PROBE, mode, *map(str, argv)],
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two small wheels of one project: a Python file and a native library changed (exit 1)."""
    tmp = tmp_path_factory.mktemp("quickexit")
    made = []
    for side, body in (("base", b"x + 1"), ("patch", b"x + 2")):
        files = {
            "engine/__init__.py": b"VERSION = 1\n",
            "engine/model.py": b"def run(x):\n    return " + body + b"\n",
            "engine/_C.cpython-311-x86_64-linux-gnu.so": wheelkit.elf_bytes(body * 20),
        }
        made.append(
            wheelkit.make_wheel(
                tmp / side, "engine", "1.0", files, tag="cp311-cp311-manylinux_2_28_x86_64"
            )
        )
    return made[0], made[1]


def _in_process(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    code = main([str(arg) for arg in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("fmt", ["text", "json", "markdown"])
def test_a_wheels_run_ends_quickly_with_what_the_ordinary_exit_writes(
    pair: tuple[Path, Path], fmt: str, capsys: pytest.CaptureFixture[str]
) -> None:
    done = _run("plain", "wheels", *pair, "--format", fmt)
    code, out, err = _in_process(capsys, "wheels", *pair, "--format", fmt)
    assert code == 1  # the native library changed: a failing verdict keeps its status
    assert (done.returncode, done.stdout) == (code, out)
    assert done.stderr == err + "quick kept\n"


def test_the_output_file_is_whole(
    pair: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    quick, ordinary = tmp_path / "quick.json", tmp_path / "ordinary.json"
    done = _run("plain", "wheels", *pair, "--format", "json", "-o", quick, "--no-file-hash")
    code, _, _ = _in_process(
        capsys, "wheels", *pair, "--format", "json", "-o", ordinary, "--no-file-hash"
    )
    assert done.returncode == code == 1
    assert done.stderr.endswith("quick kept\n")
    assert quick.read_bytes() == ordinary.read_bytes()


@pytest.mark.parametrize("mode", ["thread", "trace", "dev"])
def test_what_the_ordinary_exit_still_has_to_do_keeps_it(
    pair: tuple[Path, Path], mode: str
) -> None:
    done = _run(mode, "wheels", *pair)
    assert done.returncode == 1
    assert done.stderr.endswith("ordinary kept\n"), done.stderr


def test_a_command_that_holds_nothing_exits_the_ordinary_way() -> None:
    done = _run("plain", "schema", "wheels")
    assert done.returncode == 0 and done.stdout.startswith("{")
    assert done.stderr == "ordinary none\n"


def _closed_stdout(mode: str, pair: tuple[Path, Path]) -> tuple[int, str]:
    """(exit status, stderr) of a text report written to a pipe whose reader has gone."""
    child = subprocess.Popen(
        [sys.executable, "-c", _PROBE, mode, "wheels", *map(str, pair)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    child.stdout.close()
    _, err = child.communicate(timeout=300)
    return child.returncode, err


def test_a_closed_stdout_ends_as_the_ordinary_exit_ends(pair: tuple[Path, Path]) -> None:
    quick, ordinary = _closed_stdout("plain", pair), _closed_stdout("ordinary", pair)
    assert ordinary[1].endswith("ordinary kept\n")
    assert quick[0] == ordinary[0], (quick, ordinary)
    assert quick[1].rsplit("\n", 2)[0] == ordinary[1].rsplit("\n", 2)[0]


def test_a_release_set_keeps_no_pair_s_working_objects(pair: tuple[Path, Path]) -> None:
    """Each pair's archives and records are freed as before: kept, a set of many pairs would
    hold them all; the set's report may still end the process quickly."""
    done = _run("plain", "wheels", "--base", pair[0], "--patch", pair[1])
    assert done.returncode == 1
    assert done.stderr.endswith("quick none\n"), done.stderr


def test_an_in_process_caller_is_never_ended(
    pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    import k3diff.cli.quickexit as quickexit
    from k3diff import keepalive

    code, _, _ = _in_process(capsys, "wheels", *pair)
    assert code == 1  # returned: this test process is still here
    assert not quickexit._armed and not quickexit._held
    assert keepalive._kept is None
