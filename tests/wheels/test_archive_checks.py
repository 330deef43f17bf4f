"""The archive checks that run while the pool compares (`archivechecks.check_archives`): the
same report as when they ran after the comparison, and the same error precedence: a
comparison's error comes first, theirs is raised once the results are in."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import wheelkit

from k3diff.errors import ArchiveError
from k3diff.wheels import compare, schedule
from k3diff.wheels.collect import collect as collect_results
from k3diff.wheels.compare import WheelOptions, compare_wheels

FILES = {f"pkg/mod{i}.py": f"VALUE = {i}\n".encode() for i in range(20)}
FILES["pkg-1.0.data/scripts/tool"] = b"#!/bin/sh\necho hi\n"


def _pair(tmp_path: Path) -> tuple[Path, Path]:
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", FILES)
    changed = {**FILES, "pkg/mod3.py": b"VALUE = 'changed'\n"}
    return base, wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", changed)


def test_the_checks_reach_the_report(tmp_path: Path) -> None:
    report = compare_wheels(*_pair(tmp_path), WheelOptions(file_hash=False))
    assert report.surfaces is not None
    assert any(s.key == "bin/tool" for s in report.surfaces.patch)


def test_their_error_is_raised_after_the_comparison(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    collected: list[str] = []
    original = collect_results

    def collect(*args: Any) -> Any:
        collected.append("collected")
        return original(*args)

    def failing(*args: Any, **kwargs: Any) -> Any:
        raise ArchiveError("the checks failed")

    monkeypatch.setattr(compare, "collect", collect)
    monkeypatch.setattr(compare, "check_archives", failing)
    with pytest.raises(ArchiveError, match="the checks failed"):
        compare_wheels(*_pair(tmp_path), WheelOptions(file_hash=False))
    assert collected == ["collected"]


def test_a_comparisons_error_comes_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def failing(*args: Any, **kwargs: Any) -> Any:
        raise ArchiveError("the checks failed")

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise ArchiveError("a comparison failed")

    monkeypatch.setattr(compare, "check_archives", failing)
    monkeypatch.setattr(schedule, "compare_batch", broken)
    monkeypatch.setattr(schedule, "_compare_span", broken)
    with pytest.raises(ArchiveError, match="a comparison failed"):
        compare_wheels(*_pair(tmp_path), WheelOptions(file_hash=False))
