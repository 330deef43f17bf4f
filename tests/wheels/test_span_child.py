"""Spans compared by the child process (`wheels.spanchild`): its "equal" is taken only for the
very span it was asked about, that span's kinds then sniffed from its entries' heads alone
(`spans.head_natives`, held to `span_natives` over the whole stretch); whatever else the child
does (none, gone, killed, "0", garbage, a key not asked, an answer cut short or given twice,
answers in another order, no answer yet) leaves the span to this process's reads. Either way
the report is the one proving every pair on its own gives, on rebuilt, restamped, forged,
hostile and damaged wheels."""

from __future__ import annotations

import tempfile
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import wheelkit
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from zip import crafted

from k3diff.wheels import compare, rawchild, schedule, spanchild, spans
from k3diff.wheels.pairing import pair_entries
from k3diff.wheels.spans import Span, head_natives, plan_spans, span_natives
from k3diff.zip.archive import ZipArchive

from .test_raw_child import CHILDREN, REVERSED
from .test_span_fast_path import FILES, HOSTILE, LIB, _restamped, _stored, both_ways
from .test_span_sniff import ELF, members

DEFLATED_FILES = {
    **FILES,
    "pkg/include/b.h": b"/* header */\n" * 400,
    "pkg/bin/other": ELF,  # native by content only
    "pkg/data/blob.bin": bytes(range(256)) * 300,  # a large silent entry between heads
    **{f"pkg/include/h{i}.h": f"#define H{i} {i}\n".encode() * 50 for i in range(30)},
}


@pytest.fixture(autouse=True)
def child_for_every_span(monkeypatch: pytest.MonkeyPatch) -> None:
    """The child started for any span, however few bytes."""
    monkeypatch.setattr(spanchild, "CHILD_BYTES", 0)


def _waited(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Every span task starts once the child has answered all it will (the run never waits
    for it; a test that wants its answers taken does). Returns the answers given."""
    real = spanchild.span_compares
    given: list[bool] = []

    @contextmanager
    def waited(base: ZipArchive, patch: ZipArchive, planned: Any) -> Iterator[Any]:
        with real(base, patch, planned) as answers:
            given.extend(future.result() for future in answers._answers.values())
            yield answers

    monkeypatch.setattr(compare, "span_compares", waited)
    return given


def _count_reads(monkeypatch: pytest.MonkeyPatch) -> list[Span]:
    """The spans read on both sides in this process."""
    read: list[Span] = []
    real = spans.read_span

    def counted(base: Any, patch: Any, span: Span) -> Any:
        read.append(span)
        return real(base, patch, span)

    monkeypatch.setattr(schedule, "read_span", counted)
    return read


def _span_count(base: Path, patch: Path) -> int:
    with ZipArchive.open(base) as b, ZipArchive.open(patch) as p:
        return len(plan_spans(b, p, pair_entries(b.entries, p.entries))[0])


def _deflated(path: Path, files: dict[str, bytes]) -> Path:
    return wheelkit.make_wheel(
        path.parent, "pkg", "1.0", files, filename=path.name, method=zipfile.ZIP_DEFLATED
    )


@settings(max_examples=150, deadline=None)
@given(
    entries=st.lists(members(), min_size=1, max_size=8),
    headers_known=st.booleans(),
    cut=st.tuples(st.integers(0, 200), st.integers(0, 200)),
    gap=st.sampled_from([0, 1, 40, 1 << 16]),
)
def test_the_heads_sniff_agrees_with_the_whole_stretch(
    entries: list[wheelkit.RawMember], headers_known: bool, cut: tuple[int, int], gap: int
) -> None:
    """Stored, deflated, other methods, encrypted, empty, damaged streams; offsets known or not;
    heads inside the span's stretch, across its ends or outside it; any grouping of reads."""
    data = wheelkit.raw_zip(entries)
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "a.whl"
        path.write_bytes(data)
        with ZipArchive.open(path) as archive:
            if headers_known:
                archive.local_headers()
            start = min(cut[0], len(data))
            stop = max(start, len(data) - cut[1])
            span = Span((), 0, start, stop - start)
            known = archive.known_data_offsets()
            stretch = memoryview(data)[start:stop]
            whole = span_natives(archive, archive.entries, stretch, start, known)
            saved, spans.HEAD_GAP = spans.HEAD_GAP, gap
            try:
                assert head_natives(archive, archive.entries, span, known) == whole
                backwards = head_natives(archive, archive.entries[::-1], span, known)
                assert backwards == whole[::-1]
            finally:
                spans.HEAD_GAP = saved


@pytest.mark.parametrize("build", [_stored, _deflated])
def test_the_childs_equal_is_taken_and_the_report_is_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, build: Callable[[Path, dict[str, bytes]], Path]
) -> None:
    """A rebuilt wheel: every span answered "1" and none read here; kinds sniffed from heads
    (an ELF with no telling path is native, headers are other)."""
    base = build(tmp_path / "b" / "base.whl", DEFLATED_FILES)
    patch = build(tmp_path / "p" / "patch.whl", DEFLATED_FILES)
    given = _waited(monkeypatch)
    read = _count_reads(monkeypatch)
    entries, _, _, code, _ = both_ways(base, patch, monkeypatch)
    spans_planned = _span_count(base, patch)
    assert spans_planned >= 1 and given == [True] * spans_planned
    assert read == []  # the slow run plans no spans: the fast run read none here
    kinds = {e.path: e.kind.value for e in entries}
    assert kinds["pkg/bin/other"] == kinds["pkg/bin/tool"] == "native"
    assert kinds["pkg/include/b.h"] == "other" and code == 0


@pytest.mark.parametrize("build", [_stored, _deflated])
def test_changed_forged_and_restamped_spans_are_read_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, build: Callable[[Path, dict[str, bytes]], Path]
) -> None:
    """A span holding a forged entry (same CRC-32) and a wheel whose every header was restamped:
    the child says "0" for those spans, which are read and compared here as before."""
    _waited(monkeypatch)
    forged = wheelkit.forge_same_crc(LIB, tamper_at=300, patch_at=2000)
    base = build(tmp_path / "b" / "base.whl", DEFLATED_FILES)
    patch = build(tmp_path / "p" / "patch.whl", {**DEFLATED_FILES, "pkg/lib.so": forged})
    entries, _, _, code, _ = both_ways(base, patch, monkeypatch)
    lib = next(e for e in entries if e.path == "pkg/lib.so")
    assert lib.status.value == "changed" and code == 1
    restamped = _restamped(base, tmp_path / "r" / "patch.whl")
    read = _count_reads(monkeypatch)
    entries, _, _, code, _ = both_ways(base, restamped, monkeypatch)
    assert {e.status.value for e in entries} == {"identical"} and code == 0
    assert len(read) == _span_count(base, restamped)


@pytest.mark.parametrize("child", [*CHILDREN, "reversed", "never answers"])
def test_whatever_the_child_does_the_report_is_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, child: str
) -> None:
    """No child, one that dies, is killed, lies with "0", says nonsense, answers a span not
    asked about, cuts an answer short, answers twice, answers in reverse order, or sleeps: the
    same report; every span it did not answer "1" is read here."""
    base = _deflated(tmp_path / "b" / "base.whl", DEFLATED_FILES)
    patch = _deflated(tmp_path / "p" / "patch.whl", DEFLATED_FILES)
    if child == "none":
        monkeypatch.setattr(rawchild, "_spawn", lambda *args: None)
    elif child == "reversed":
        monkeypatch.setattr(rawchild, "_CHILD", REVERSED + rawchild._CHILD)
    elif child == "never answers":
        monkeypatch.setattr(rawchild, "_CHILD", "import time; time.sleep(30)")
    else:
        monkeypatch.setattr(rawchild, "_CHILD", CHILDREN[child])
    if child != "never answers":
        _waited(monkeypatch)
    read = _count_reads(monkeypatch)
    entries, _, _, code, _ = both_ways(base, patch, monkeypatch)
    assert {e.status.value for e in entries} == {"identical"} and code == 0
    planned = _span_count(base, patch)
    if child == "reversed":
        assert read == []
    elif child not in ("an equal cut short", "each answer twice, the first a differ"):
        assert len(read) == planned


@pytest.mark.parametrize("keep", [0.2, 0.6, 0.97])
def test_a_patch_cut_as_the_child_starts_is_reported_as_without_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, keep: float
) -> None:
    """The patch truncated once the child is spawned (its spans planned on the whole file):
    the same error or report as the run without the child, never a pass where data is cut."""
    _waited(monkeypatch)
    base = _deflated(tmp_path / "b" / "base.whl", DEFLATED_FILES)
    original = _deflated(tmp_path / "o" / "patch.whl", DEFLATED_FILES).read_bytes()
    patch = tmp_path / "victim.whl"
    real_spawn = rawchild._spawn

    def cut() -> None:
        if patch.stat().st_size == len(original):
            patch.write_bytes(original[: int(len(original) * keep)])

    def cutting(*args: Any) -> Any:
        cut()
        return real_spawn(*args)

    monkeypatch.setattr(rawchild, "_spawn", cutting)
    outcomes = []
    for threshold in (0, 1 << 62):
        patch.write_bytes(original)
        with monkeypatch.context() as patched:
            patched.setattr(spanchild, "CHILD_BYTES", threshold)
            if threshold:  # no child: cut where it would have started
                patched.setattr(schedule, "plan_pairs", _cut_after(schedule.plan_pairs, cut))
            outcomes.append(_outcome(base, patch))
    assert outcomes[0] == outcomes[1]
    if keep < 0.9:  # entries' data cut (0.97 cuts only the directory, already read)
        assert outcomes[0][0] == "error" or outcomes[0][3] != 0


def _cut_after(fn: Callable[..., Any], cut: Callable[..., Any]) -> Callable[..., Any]:
    def hooked(*args: Any) -> Any:
        planned = fn(*args)
        cut()
        return planned

    return hooked


def _outcome(base: Path, patch: Path) -> tuple[Any, ...]:
    from .test_early_raw import _outcome as outcome

    return outcome(base, patch)


@pytest.mark.parametrize("build", HOSTILE)
def test_hostile_wheels_are_the_same_with_the_child(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, build: Callable[[Path], Path]
) -> None:
    _waited(monkeypatch)
    both_ways(crafted.base_wheel(tmp_path / "b"), build(tmp_path / "p"), monkeypatch)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    edits=st.lists(
        st.tuples(st.floats(min_value=0, max_value=1), st.binary(min_size=1, max_size=6)),
        min_size=1,
        max_size=4,
    )
)
def test_damaged_copies_are_the_same_with_the_child(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, edits: list[tuple[float, bytes]]
) -> None:
    """A deflated copy with a few bytes overwritten (headers, data, directory): the spans the
    child finds equal are taken, and the outcome is the slow path's."""
    base = tmp_path / "b" / "base.whl"
    if not base.exists():
        _deflated(base, DEFLATED_FILES)
    data = bytearray(base.read_bytes())
    for where, replacement in edits:
        at = int(where * (len(data) - 1))
        data[at : at + len(replacement)] = replacement
    patch = tmp_path / "damaged.whl"
    patch.write_bytes(bytes(data))
    with monkeypatch.context() as patched:
        _waited(patched)
        both_ways(base, patch, patched)
