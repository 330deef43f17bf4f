"""`k3diff wheels BASE PATCH` opens both wheels and starts its raw and sniff children before it
imports the comparison (`wheels.headstart`), the raw child niced before it compares, and the
report is the one a run without that head start gives. A head start that fails gives none (the
comparison reports the problem as before); one whose run stops on a usage error is ended."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import wheelkit
from cli_support import run_json, run_k3diff

from k3diff.wheels import headstart

from .sniff_support import FILES

LIBRARY = bytes(range(256)) * 8 + os.urandom(8192)  # ≈ 10 KB compressed: a huge pair below

PROBE = """\
import json, os, sys
from k3diff.wheels import rawchild, sniffchild
try:
    from k3diff.wheels import headstart as thresholds
except ImportError:  # the code before: the threshold lived in `early`
    from k3diff.wheels import early as thresholds
thresholds.EARLY_BYTES = 2000  # lib.so is a huge pair
sniffchild.CHILD_ENTRIES = 8  # the patch is screened by the sniff child
seen = {}
niceness = sys.argv[1]
rawchild._CHILD += (  # once it has compared
    f"\\nopen({niceness!r}, 'w').write(str(os.getpriority(os.PRIO_PROCESS, 0)))\\n"
)

def spied(name, real):
    def call(*args, **kwargs):
        seen.setdefault(name, "k3diff.wheels.compare" in sys.modules)  # the first call
        return real(*args, **kwargs)
    return call

rawchild._spawn = spied("raw child spawned", rawchild._spawn)
sniffchild.SniffChild.start = spied("sniff child started", sniffchild.SniffChild.start)
from k3diff.cli import main
code = main(["wheels", *sys.argv[2:], "--no-file-hash", "--format", "json"])
os.write(2, json.dumps({"code": code, "compare imported first": seen}).encode())
"""


def _pair(tmp_path: Path) -> tuple[Path, Path]:
    files = {**FILES, "pkg/lib.so": LIBRARY}
    return (
        wheelkit.make_wheel(tmp_path / "base", "pkg", "1.0", files),
        wheelkit.make_wheel(tmp_path / "patch", "pkg", "1.0", files),
    )


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a process's niceness")
def test_the_children_start_before_the_comparison_is_imported_and_change_no_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    own = os.getpriority(os.PRIO_PROCESS, 0)
    if own + 10 > 19:
        pytest.skip("already too nice to tell")
    base, patch = _pair(tmp_path)
    niceness = tmp_path / "niceness"
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(niceness), str(base), str(patch)],
        capture_output=True,
        check=False,
        timeout=120,
    )
    told = json.loads(done.stderr.decode().splitlines()[-1])
    assert told == {
        "code": 0,
        "compare imported first": {"raw child spawned": False, "sniff child started": False},
    }
    assert int(niceness.read_text()) == own + 10  # it compared nicer than the run
    monkeypatch.setattr(headstart, "EARLY_BYTES", 2000)
    monkeypatch.setattr(headstart, "head_start", lambda *args: None)
    assert json.loads(done.stdout) == run_json("wheels", base, patch, "--no-file-hash")[1]


def test_a_wheel_that_does_not_open_is_reported_as_without_a_head_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base, patch = _pair(tmp_path)
    patch.write_bytes(b"not a zip file at all")
    failed = run_k3diff("wheels", base, patch, "--no-file-hash")
    assert failed.exit_code == 2
    assert len(failed.stderr.strip().splitlines()) == 1 and str(patch) in failed.stderr
    monkeypatch.setattr(headstart, "head_start", lambda *args: None)
    without = run_k3diff("wheels", base, patch, "--no-file-hash")
    assert (failed.exit_code, failed.stdout, failed.stderr) == (
        without.exit_code,
        without.stdout,
        without.stderr,
    )


def test_a_run_stopped_by_a_usage_error_ends_its_head_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base, patch = _pair(tmp_path)
    monkeypatch.setattr(headstart, "EARLY_BYTES", 2000)
    started: list[headstart.HeadStart] = []
    closed: list[headstart.HeadStart] = []
    real_start, real_close = headstart.HeadStart.start, headstart.HeadStart.close

    def start(self: headstart.HeadStart) -> None:
        started.append(self)
        real_start(self)

    def close(self: headstart.HeadStart) -> Any:
        closed.append(self)
        return real_close(self)

    monkeypatch.setattr(headstart.HeadStart, "start", start)
    monkeypatch.setattr(headstart.HeadStart, "close", close)
    result = run_k3diff("wheels", base, patch, "--select", "W9999")
    assert result.exit_code == 2 and "--select" in result.stderr
    assert len(started) == 1 and started[0].raw is not None
    assert closed == started
    assert started[0].base.fileno() == -1 and started[0].patch.fileno() == -1


def test_a_wheel_replaced_on_disk_after_it_was_opened_is_hashed_as_compared(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The report's SHA-256 is of the bytes compared: the file opened (by the head start, or
    by the comparison), not whatever its path names when the hash is read. A patch replaced on
    disk after the head start opened it was compared as opened and reported with its
    replacement's digest (a digest a reader looks up names a wheel nobody compared)."""
    base, patch = _pair(tmp_path)
    compared = hashlib.sha256(patch.read_bytes()).hexdigest()
    other = wheelkit.make_wheel(tmp_path / "other", "pkg", "1.0", {**FILES, "pkg/x.py": b"x=1\n"})
    real = headstart.head_start

    def replaced_after(base_path: Path, patch_path: Path) -> headstart.HeadStart | None:
        started = real(base_path, patch_path)
        os.replace(other, patch_path)
        return started

    monkeypatch.setattr(headstart, "head_start", replaced_after)
    code, doc = run_json("wheels", base, patch)
    assert code == 0  # the bytes compared are the base's
    assert hashlib.sha256(patch.read_bytes()).hexdigest() != compared
    assert doc["patch"]["sha256"] == compared
