"""Details added on a pool worker (`schedule.compare_batch` with `entrydetails.worker_may_detail`)
reach the same report as when the main thread added every one (`compare._collect`): the same
entries field for field, the same findings and exit code, every output format the same text,
or the same error. On changed, added and missing sources and metadata, RECORD rows to hash,
entries above the worker's size limit, `--explain`, and damaged archives."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
import wheelkit
from hypothesis import given

from k3diff.errors import K3diffError
from k3diff.output import OutputFormat
from k3diff.report.wheels import render
from k3diff.wheel.kinds import EntryKind
from k3diff.wheels import entrydetails, schedule
from k3diff.wheels.compare import WheelOptions, compare_wheels
from k3diff.wheels.model import EntryResult
from k3diff.wheels.proof import How, Status
from wheels.damage_support import Edit, damage_edits, damage_settings, write_damaged

BASE = {f"pkg/mod{i}.py": f"VALUE = {i}\n".encode() * (i + 1) * 30 for i in range(12)}
BASE["pkg/lib.so"] = wheelkit.elf_bytes(b"\x90" * 3000)
BASE["pkg/data/notes.txt"] = b"notes\n" * 50
PATCH = {name: data for name, data in BASE.items() if name != "pkg/mod0.py"}
PATCH.update(
    {
        "pkg/mod1.py": b"VALUE = 'changed'\n" * 40,
        "pkg/mod2.py": BASE["pkg/mod2.py"] + b"EXTRA = 2\n",
        "pkg/mod3.py": b"\0binary\0" * 30,
        "pkg/new.py": b"NEW = 1\n",
        "pkg/lib.so": wheelkit.elf_bytes(b"\x91" * 3000),
    }
)


def _outcome(base: Path, patch: Path, options: WheelOptions) -> tuple[Any, ...]:
    try:
        report = compare_wheels(base, patch, options)
    except K3diffError as exc:
        return ("error", type(exc).__name__)
    texts = tuple(render(report, fmt) for fmt in OutputFormat)
    return (report.entries, report.findings, report.exit_code, texts)


def both_ways(
    base: Path, patch: Path, monkeypatch: pytest.MonkeyPatch, options: WheelOptions
) -> tuple[Any, ...]:
    """The outcome with details on the workers and with every one on the main thread."""
    fast = _outcome(base, patch, options)
    with monkeypatch.context() as patched:
        patched.setattr(schedule, "worker_may_detail", lambda result, comparators: False)
        slow = _outcome(base, patch, options)
    assert fast == slow
    return fast


@pytest.mark.parametrize("explain", [False, True])
@pytest.mark.parametrize("limit", [entrydetails.WORKER_DETAIL_BYTES, 200])
def test_changed_sources_are_detailed_the_same_either_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, explain: bool, limit: int
) -> None:
    monkeypatch.setattr(entrydetails, "WORKER_DETAIL_BYTES", limit)
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", BASE)
    patch = wheelkit.make_wheel(tmp_path / "p", "pkg", "1.1", PATCH)
    options = WheelOptions(jobs=2, file_hash=False, explain=explain)
    entries, _, code, _ = both_ways(base, patch, monkeypatch, options)
    by_path = {entry.path: entry for entry in entries}
    assert by_path["pkg/mod1.py"].diff is not None and by_path["pkg/mod2.py"].diff is not None
    assert by_path["pkg/mod3.py"].diff is not None and by_path["pkg/mod3.py"].diff.binary
    assert (by_path["pkg/lib.so"].native is not None) == explain
    assert int(code) == 1


def test_only_small_entries_without_a_native_explainer_go_to_a_worker() -> None:
    changed = EntryResult(
        path="pkg/a.py",
        base_path="pkg/a.py",
        patch_path="pkg/a.py",
        kind=EntryKind.PYTHON,
        status=Status.CHANGED,
        how=How.CONTENT,
        recompressed=False,
        base_size=10,
        patch_size=entrydetails.WORKER_DETAIL_BYTES,
        base_crc32=1,
        patch_crc32=2,
    )
    text, explaining = entrydetails.DETAIL_COMPARATORS, entrydetails.EXPLAINING_COMPARATORS
    assert entrydetails.worker_may_detail(changed, text)
    assert entrydetails.worker_may_detail(changed, explaining)
    big = dataclasses.replace(changed, patch_size=entrydetails.WORKER_DETAIL_BYTES + 1)
    assert not entrydetails.worker_may_detail(big, text)
    native = dataclasses.replace(changed, kind=EntryKind.NATIVE)
    assert entrydetails.worker_may_detail(native, text)
    assert not entrydetails.worker_may_detail(native, explaining)


@damage_settings(60)
@given(edits=damage_edits())
def test_damaged_patches_are_the_same_either_way(
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    edits: list[Edit],
) -> None:
    directory = tmp_path_factory.mktemp("damaged")
    base = wheelkit.make_wheel(directory / "b", "pkg", "1.0", BASE)
    patch = wheelkit.make_wheel(directory / "p", "pkg", "1.1", PATCH)
    write_damaged(patch, patch, edits)
    both_ways(base, patch, monkeypatch, WheelOptions(jobs=2, file_hash=False))
