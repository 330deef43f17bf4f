"""The inflate budget is reckoned only when it could refuse (issue 41, case e).

No budget is below `INFLATE_BUDGET_SLACK`, so until an archive has produced more than that its
declared sizes need not be summed: a comparison that inflates a few metadata files and changed
sources (nearly every one) never sums them. Whatever is spent, every read is refused or allowed
exactly as by the budget reckoned up front."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
import wheelkit
from cli_support import run_k3diff
from hypothesis import given
from hypothesis import strategies as st
from wheelkit import raw_member, raw_zip

from k3diff.errors import CorruptEntryError
from k3diff.zip import bounds
from k3diff.zip.archive import ZipArchive
from k3diff.zip.bounds import INFLATE_BUDGET_SLACK, InflateBudget
from k3diff.zip.directory import ZipEntry

SLACK = INFLATE_BUDGET_SLACK


@given(
    declared=st.integers(0, 3 * SLACK),
    spends=st.lists(st.integers(0, SLACK // 2), max_size=12),
)
def test_a_deferred_budget_allows_exactly_what_the_reckoned_one_does(
    declared: int, spends: list[int]
) -> None:
    reckoned: list[int] = []

    def limit() -> int:
        reckoned.append(declared)
        return declared + SLACK  # every budget is at least the slack

    eager, deferred = InflateBudget(declared + SLACK), InflateBudget(limit, SLACK)
    spent = 0
    for produced in spends:
        spent += produced
        assert deferred.spend(produced) == eager.spend(produced)
        # Reckoned once, and only after more than the slack was spent.
        assert len(reckoned) == (1 if spent > SLACK else 0)
    assert deferred.limit == eager.limit
    assert len(reckoned) == 1
    assert deferred.describe() == eager.describe()


@given(limit=st.integers(0, 4096), spends=st.lists(st.integers(0, 2048), max_size=8))
def test_a_budget_given_as_a_number_refuses_as_soon_as_it_is_spent(
    limit: int, spends: list[int]
) -> None:
    """Below the slack too: only an archive's own budget may wait until the slack is spent."""
    budget, spent = InflateBudget(limit), 0
    for produced in spends:
        spent += produced
        assert budget.spend(produced) == (spent <= limit)


def test_an_archive_reckons_its_budget_once_past_the_slack(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """1,000 declared bytes, factor 1, slack 1,500: the first read is under the slack (nothing
    summed), the second passes it (summed once: 2,500), the third is refused."""
    monkeypatch.setattr(bounds, "INFLATE_BUDGET_FACTOR", 1)
    monkeypatch.setattr(bounds, "INFLATE_BUDGET_SLACK", 1500)
    sums = _counted(monkeypatch)
    path = tmp_path / "a.zip"
    path.write_bytes(raw_zip([raw_member("a.txt", b"x" * 1000)]))
    with ZipArchive.open(path) as archive:
        (entry,) = archive.entries
        assert b"".join(archive.content_chunks(entry)) == b"x" * 1000
        assert sums == []
        assert b"".join(archive.content_chunks(entry)) == b"x" * 1000
        assert sums == [2500]
        with pytest.raises(CorruptEntryError, match="inflate budget of 2,500 bytes"):
            b"".join(archive.content_chunks(entry))
        assert archive.small_content(entry) is None
    assert sums == [2500]


def test_a_wheels_run_never_sums_the_declared_sizes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A comparison of two ordinary wheels (changed sources diffed, RECORD read and hashed)
    inflates far less than the slack: neither archive's declared sizes are summed, and the
    report is the one the budget gave when it was reckoned up front."""
    files = {f"pkg/m{n:02d}.py": b"value = %d\n" % n * 400 for n in range(40)}
    base = wheelkit.make_wheel(tmp_path / "base", "pkg", "1.0", files)
    patch = wheelkit.make_wheel(
        tmp_path / "patch", "pkg", "1.0", {**files, "pkg/m07.py": b"value = 'edited'\n"}
    )
    sums = _counted(monkeypatch)
    deferred = run_k3diff("wheels", base, patch, "--format", "json")
    assert sums == []
    monkeypatch.setattr(InflateBudget, "deferred", classmethod(_reckoned_now))
    reckoned = run_k3diff("wheels", base, patch, "--format", "json")
    assert len(sums) == 2  # both archives, once each
    assert (deferred.exit_code, deferred.stderr) == (reckoned.exit_code, reckoned.stderr)
    assert json.loads(deferred.stdout) == json.loads(reckoned.stdout)
    entry = next(e for e in json.loads(deferred.stdout)["entries"] if e["path"] == "pkg/m07.py")
    assert (entry["status"], entry["diff"]["added"]) == ("changed", 1)


def _counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The limits `InflateBudget.for_ends` reckons from now on, in order."""
    sums: list[int] = []
    for_ends = InflateBudget.for_ends

    def counting(
        _cls: type[InflateBudget], entries: Sequence[ZipEntry], ends: dict[int, int]
    ) -> InflateBudget:
        budget = for_ends(entries, ends)
        sums.append(budget.limit)
        return budget

    monkeypatch.setattr(InflateBudget, "for_ends", classmethod(counting))
    return sums


def _reckoned_now(
    cls: type[InflateBudget], entries: Sequence[ZipEntry], ends: Callable[[], dict[int, int]]
) -> InflateBudget:
    """The budget reckoned when it is made, as before it was deferred."""
    return InflateBudget.for_ends(entries, ends())
