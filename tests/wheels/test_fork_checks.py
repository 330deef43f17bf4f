"""The per-archive passes in a forked child (`wheels.forkchecks`, `wheels.forkchild`): whatever
the child does (answers, dies at once or after its first message, exits early, hangs, writes
garbage, a message cut short, pickles of the wrong types, a budget charge refused), the report
and exit code are the in-process ones, on sound, hostile and randomly damaged wheels, and no
child is left behind. Each run is a fresh interpreter (`fork_driver.py`): a process forks only
while it runs one thread, and a test process does not."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
import zipfile
from pathlib import Path

import pytest
import wheelkit
from hypothesis import given

import k3diff
from k3diff.wheels import forkchecks, forkchild
from k3diff.zip.archive import ZipArchive
from k3diff.zip.bounds import InflateBudget
from wheels.damage_support import Edit, damage_edits, damage_settings, write_damaged

DRIVER = Path(__file__).with_name("fork_driver.py")
FAILURES = (
    "kill",
    "kill-after-offsets",
    "exit",
    "hang",
    "garbage",
    "short",
    "huge",
    "types",
    "negative",
    "budget",
)

Run = tuple[int, str, str]
"""Exit code, stdout, stderr."""


def _run(mode: str, base: Path, patch: Path, scratch: Path) -> tuple[Run, dict[str, bool]]:
    stats = scratch / f"stats-{mode}.json"
    env = {**os.environ, "PYTHONPATH": str(Path(k3diff.__file__).parents[1])}
    done = subprocess.run(
        [sys.executable, str(DRIVER), mode, str(stats), str(base), str(patch)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    return (done.returncode, done.stdout, done.stderr), json.loads(stats.read_text())


def _files(count: int, seed: str) -> dict[str, bytes]:
    return {
        f"pkg/sub{i % 7}/mod{i}.py": f"VALUE = {i!r}  # {seed}\n".encode() * (1 + i % 5)
        for i in range(count)
    }


def _pair(tmp_path: Path) -> tuple[Path, Path]:
    """A wheel and a patch of it: one module edited, one added, a control character and a
    name given twice in the patch (W613-W608 material for the soundness pass)."""
    files = _files(60, "base")
    base = wheelkit.make_wheel(tmp_path / "base", "pkg", "1.0", files)
    patched = {**files, "pkg/sub1/mod1.py": b"VALUE = 'edited'\n", "pkg/new\x07.py": b"X = 1\n"}
    patch = wheelkit.make_wheel(tmp_path / "patch", "pkg", "1.0", patched)
    with (
        warnings.catch_warnings(),
        zipfile.ZipFile(patch, "a") as archive,  # a name given twice, read as the last one
    ):
        warnings.simplefilter("ignore", UserWarning)
        archive.writestr("pkg/sub2/mod2.py", b"VALUE = 'twice'\n")
    return base, patch


def test_the_childs_answers_are_taken_and_change_nothing(tmp_path: Path) -> None:
    """Forked: both answers taken, the child reaped, the report byte for byte the in-process
    one (findings from the soundness and layout passes included)."""
    base, patch = _pair(tmp_path)
    expected, stats = _run("nofork", base, patch, tmp_path)
    assert not stats["forked"]
    assert "W608" in expected[1] and expected[0] != 0
    got, stats = _run("fork", base, patch, tmp_path)
    assert stats == {"forked": True, "adopted": True, "soundness": True, "children_gone": True}
    assert got == expected


@pytest.fixture(scope="module")
def in_process(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Run]:
    """`_pair` and its in-process run, made once for the failure modes."""
    scratch = tmp_path_factory.mktemp("fork")
    base, patch = _pair(scratch)
    return base, patch, _run("nofork", base, patch, scratch)[0]


@pytest.mark.parametrize("mode", FAILURES)
def test_a_failing_child_leaves_the_passes_here(
    tmp_path: Path, mode: str, in_process: tuple[Path, Path, Run]
) -> None:
    """Killed, exited, hung, garbled, mistyped, or its budget refused: nothing of the child is
    taken that is not whole and well-typed, the report and exit code are the in-process ones,
    and the child is reaped."""
    base, patch, expected = in_process
    got, stats = _run(mode, base, patch, tmp_path)
    assert stats["forked"] and stats["children_gone"]
    assert not stats["soundness"]
    assert stats["adopted"] == (mode in ("kill-after-offsets", "budget"))
    assert got == expected


@damage_settings(max_examples=8)
@given(changes=damage_edits())
def test_damaged_wheels_give_the_in_process_report(tmp_path: Path, changes: list[Edit]) -> None:
    """A patch damaged anywhere (local headers, data, the directory): the forked run's report,
    or its error, and exit code are the in-process run's."""
    base, patch = _pair(tmp_path)
    damaged = write_damaged(patch, tmp_path / "damaged.whl", changes)
    expected, _ = _run("nofork", base, damaged, tmp_path)
    got, stats = _run("fork", base, damaged, tmp_path)
    assert got == expected
    assert stats["children_gone"]


def test_only_a_single_threaded_process_forks() -> None:
    """A test process runs threads (pytest's, xdist's) or may: `can_fork` says so only when
    Python and the kernel both count one thread."""
    import threading

    started = threading.Event()
    stop = threading.Event()

    def wait() -> None:
        started.set()
        stop.wait()

    thread = threading.Thread(target=wait)
    thread.start()
    try:
        started.wait()
        assert not forkchild.single_threaded()
        assert not forkchild.can_fork()
    finally:
        stop.set()
        thread.join()


def test_small_wheels_do_not_fork(tmp_path: Path) -> None:
    """Below `FORK_ENTRIES` entries the in-process passes run unchanged."""
    base, patch = _pair(tmp_path)
    with ZipArchive.open(base) as old, ZipArchive.open(patch) as new:
        assert len(old.entries) + len(new.entries) < forkchecks.FORK_ENTRIES
        assert not forkchecks.worth_forking(old, new)
        with forkchecks.forked_checks(old, new) as forked:
            assert forked is None


def test_a_budget_charge_counts_only_what_fits() -> None:
    """`charge` counts bytes only when they fit, and `refund` takes them back: the child's
    inflated bytes never push a budget past its limit unseen."""
    budget = InflateBudget(100)
    assert budget.charge(60) and budget.spent == 60
    assert not budget.charge(41) and budget.spent == 60
    budget.refund(60)
    assert budget.spent == 0 and budget.spend(100) and not budget.spend(1)


def test_offsets_and_findings_are_checked_for_type() -> None:
    """Only two (positions, offsets) column pairs of equal, whole length are offsets; only a
    list of `Finding` is findings."""
    column = bytes(8)
    assert forkchecks._offsets(((column, column), (b"", b""))) == ({0: 0}, {})
    for bad in [None, (column,), ((column, column[:4]), (b"", b"")), ((column, "x"), (b"", b""))]:
        assert forkchecks._offsets(bad) is None
    assert forkchecks._findings([]) and not forkchecks._findings(["W608"])
