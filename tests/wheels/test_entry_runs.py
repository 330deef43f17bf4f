"""Raw-identical runs kept as columns (`wheels.entryruns`) read as the results they stand for.

An `EntryResults` holding some pairs as `IdenticalRun`s is equal to the tuple of every pair's
result built one by one (`identical_result`, field for field `pairresult.pair_result`'s), and every
consumer that reads the runs' columns instead of results says what it says of that tuple: the
summary counts, the notable entries, the findings (RECORD rows present, absent, hashless, with
another size or the base's other digest), the unchecked streams (stored, deflated, encrypted,
bombs) and the JSON lines (names beyond ASCII, escapes, moved and uninstalled entries). Pairs
are drawn at random, runs cut at random, in random order; singles mixed in."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from k3diff.documents.wheelentries import ENTRY_SEPARATOR, entries_blocks, entries_text, entry_line
from k3diff.wheel.kinds import EntryKind
from k3diff.wheel.record import RecordLine
from k3diff.wheels import findings as findings_module
from k3diff.wheels import pairresult, streamcheck
from k3diff.wheels.entryruns import EntryResults, IdenticalRun, identical_result, split_run
from k3diff.wheels.model import EntryResult, count_by_kind, is_notable
from k3diff.wheels.pairing import EntryPair
from k3diff.wheels.proof import IDENTICAL_RAW, How, Status
from k3diff.zip.bounds import BOMB_MIN_SIZE
from k3diff.zip.directory import ZipEntry

NAMES = st.text(
    alphabet=st.sampled_from([*'ab/._-"\\\x1bé\u202e\U0001f600', "\ud800"]),
    min_size=1,
    max_size=12,
)
MODES = st.sampled_from([0o100644, 0o100755, 0o120777, 0])


def _entry(name: str, position: int, **fields: Any) -> ZipEntry:
    values: dict[str, Any] = {
        "name": name,
        "position": position,
        "method": 8,
        "flags": 0,
        "crc32": 0,
        "compressed_size": 1,
        "size": 0,
        "header_offset": position * 100,
        "external_attr": 0o100644 << 16,
        "create_system": 3,
        "name_bytes": name.encode("utf-8", "surrogatepass"),
    }
    values.update(fields)
    return ZipEntry(**values)


@st.composite
def _pairs(draw: st.DrawFn) -> list[tuple[EntryPair, EntryKind]]:
    """Raw-identical pairs as a run holds them (one path, the same mode on both sides), sorted
    and unique by path, of random kinds, sizes, CRCs, methods, flags and installed paths."""
    names = sorted(set(draw(st.lists(NAMES, min_size=1, max_size=30))))
    pairs = []
    for position, name in enumerate(names):
        mode = draw(MODES)
        shared = {
            "crc32": draw(st.integers(0, 2**32 - 1)),
            "size": draw(st.sampled_from([0, 1, 1000, BOMB_MIN_SIZE, 2**40])),
            "method": draw(st.sampled_from([0, 8, 12])),
            "flags": draw(st.sampled_from([0, 0x1, 0x8, 0x40, 0x800])),
        }
        base = _entry(name, position, external_attr=(mode << 16) | draw(st.integers(0, 0xFF)),
                      **shared)  # fmt: skip
        patch = _entry(name, position, external_attr=mode << 16, **shared)
        installed = draw(st.sampled_from([f"site-packages/{name}", None, "bin/tool"]))
        base_installed = draw(st.sampled_from([installed, installed, None, "other"]))
        moved = draw(st.booleans())
        kind = draw(st.sampled_from(list(EntryKind)))
        pairs.append((EntryPair(base, patch, installed, base_installed, moved), kind))
    return pairs


@st.composite
def _results(draw: st.DrawFn) -> tuple[EntryResults, tuple[EntryResult, ...]]:
    """(the pairs as an `EntryResults` with random runs, the tuple of their results)."""
    drawn = draw(_pairs())
    whole = tuple(identical_result(pair, kind) for pair, kind in drawn)
    in_run = [draw(st.booleans()) for _ in drawn]
    cuts = [draw(st.booleans()) for _ in drawn]
    runs: list[IdenticalRun] = []
    current: list[int] = []
    for index, (taken, cut) in enumerate(zip(in_run, cuts, strict=True)):
        if taken:
            current.append(index)
        if current and (cut or index == len(drawn) - 1):
            chosen = [drawn[i][0] for i in current]
            given = draw(st.booleans())  # the columns `split_run` hands over, or built later
            patches = [pair.patch for pair in chosen if pair.patch is not None] if given else None
            names = [entry.name for entry in patches] if patches is not None else None
            runs.append(IdenticalRun(list(current), chosen, [drawn[i][1] for i in current],
                                     patches, names))  # fmt: skip
            current = []
    runs = draw(st.permutations(runs))
    slots = [None if taken else whole[index] for index, taken in enumerate(in_run)]
    results = EntryResults(slots, list(runs))
    results.columnar = draw(st.booleans())  # the runs' columns read, or their results
    return results, whole


@given(_results())
@settings(max_examples=300, deadline=None)
def test_runs_read_as_the_results_they_stand_for(
    drawn: tuple[EntryResults, tuple[Any, ...]],
) -> None:
    results, whole = drawn
    expected = ENTRY_SEPARATOR.join(map(entry_line, whole))
    assert count_by_kind(results) == count_by_kind(whole)
    assert [r for _, r in results.sparse() if is_notable(r)] == list(filter(is_notable, whole))
    assert entries_text(results) == expected  # before anything built the runs' results
    assert results == whole and whole == results and len(results) == len(whole)
    assert list(results) == list(whole) and results[1:] == whole[1:]
    assert entries_text(results) == expected == entries_text(whole)


@given(_results(), st.data())
@settings(max_examples=200, deadline=None)
def test_runs_give_the_findings_of_their_results(
    drawn: tuple[EntryResults, tuple[EntryResult, ...]], data: st.DataObject
) -> None:
    """RECORD rows at random: absent, without a SHA-256, of another size, the base's of
    another digest or without one; every finding the same, in the same order."""
    results, whole = drawn
    rows = [
        RecordLine("A" * 43, result.patch_size, "sha256=" + "A" * 43, "sha256") for result in whole
    ]
    patch_record: dict[str, RecordLine] = {}
    base_record: dict[str, RecordLine] = {}
    for result, row in zip(whole, rows, strict=True):
        choice = data.draw(st.sampled_from(["same", "absent", "hashless", "size", "digest"]))
        if choice != "absent":
            patch_record[result.path] = row
        if choice == "hashless":
            patch_record[result.path] = RecordLine(None, row.size)
        if choice == "size":
            patch_record[result.path] = row._replace(size=(row.size or 0) + 1)
        base_choice = data.draw(st.sampled_from(["same", "absent", "other", "hashless"]))
        if base_choice == "same":
            base_record[result.path] = row
        elif base_choice == "other":
            base_record[result.path] = row._replace(sha256="B" * 43, hash="sha256=" + "B" * 43)
        elif base_choice == "hashless":
            base_record[result.path] = RecordLine(None, row.size)
    for base in (base_record, None):
        fast = findings_module.collect_findings(
            results, [], base_record=base, patch_record=patch_record, patch_names=frozenset()
        )
        slow = findings_module.collect_findings(
            whole, [], base_record=base, patch_record=patch_record, patch_names=frozenset()
        )
        assert fast == slow
    assert findings_module.collect_findings(
        results, [], base_record=base_record, patch_record=None
    ) == findings_module.collect_findings(whole, [], base_record=base_record, patch_record=None)


@given(_pairs())
@settings(max_examples=200, deadline=None)
def test_runs_leave_the_same_streams_unchecked(drawn: list[tuple[EntryPair, EntryKind]]) -> None:
    pairs = [pair for pair, _ in drawn]
    whole = tuple(identical_result(pair, kind) for pair, kind in drawn)
    half = len(drawn) // 2
    run = IdenticalRun(list(range(half)), pairs[:half], [kind for _, kind in drawn[:half]])
    results = EntryResults([None] * half + list(whole[half:]), [run])
    results.columnar = True
    assert streamcheck.unchecked(results, pairs) == streamcheck.unchecked(whole, pairs)


@given(_pairs(), st.data())
@settings(max_examples=200, deadline=None)
def test_a_run_holds_exactly_the_pairs_whose_results_need_nothing(
    drawn: list[tuple[EntryPair, EntryKind]], data: st.DataObject
) -> None:
    """`split_run` keeps a pair in the run only when `pairresult.pair_result` would build exactly its
    `identical_result` (modes equal, DOS bits aside) and its row needs no hash; a pair renamed
    across the sides or with another mode is left out."""
    pairs = []
    for pair, _ in drawn:
        base = pair.base
        assert base is not None
        change = data.draw(st.sampled_from(["none", "none", "rename", "mode"]))
        if change == "rename":
            base = base._replace(name=base.name + "-old")
        elif change == "mode":
            base = base._replace(external_attr=base.external_attr ^ (0o111 << 16))
        pairs.append(pair._replace(base=base))
    kinds = [kind for _, kind in drawn]
    unchanged = frozenset(p.path for p in pairs if data.draw(st.booleans()))
    indices = [index * 3 for index in range(len(pairs))]
    run, others = split_run(indices, pairs, kinds, unchanged)
    ran = [] if run is None else list(run.pairs)
    assert sorted(ran + [pairs[n] for n in others], key=pairs.index) == pairs
    for number, (pair, kind) in enumerate(zip(pairs, kinds, strict=True)):
        inside = pair in ran
        same_mode = pair.base.external_attr >> 16 == pair.patch.external_attr >> 16  # type: ignore[union-attr]
        assert inside == (same_mode and pair.path in unchanged and pair.base.name == pair.path)  # type: ignore[union-attr]
        if inside:
            assert run is not None
            at = run.pairs.index(pair)
            assert run.indices[at] == indices[number] and run.kinds[at] is kind
            assert run.result(at) == pairresult.pair_result(pair, IDENTICAL_RAW, kind)


def test_a_run_result_names_every_field() -> None:
    """Built in place: every field given, none left to a default, equal to `EntryResult(...)`."""
    pair = EntryPair(_entry("pkg/a.so", 0), _entry("pkg/a.so", 0), "site-packages/pkg/a.so")
    result = identical_result(pair, EntryKind.NATIVE)
    names = [field.name for field in dataclasses.fields(EntryResult)]
    assert list(vars(result)) == names
    assert EntryResult(**{name: getattr(result, name) for name in names}) == result
    assert result.status is Status.IDENTICAL and result.how is How.RAW_BYTES


def _equal_sequences(a: Sequence[Any], b: Sequence[Any]) -> bool:
    return len(a) == len(b) and all(x == y for x, y in zip(a, b, strict=True))


def test_results_without_runs_are_their_tuple() -> None:
    pair = EntryPair(_entry("a", 0), _entry("a", 0), "a")
    whole = (identical_result(pair, EntryKind.OTHER),)
    results = EntryResults.of(whole)
    assert results == whole and _equal_sequences(results, whole) and hash(results) == hash(whole)
    assert repr(results) == repr(whole)


@given(_results(), st.integers(min_value=1, max_value=5))
@settings(max_examples=300, deadline=None)
def test_the_entries_blocks_joined_are_the_entries_text(
    drawn: tuple[EntryResults, tuple[Any, ...]], lines: int
) -> None:
    """A JSON report writes the entries a block of lines at a time (`entries_blocks`): joined
    as the document joins its items, they are the lines of every entry, each block at most
    `lines` of them."""
    results, whole = drawn
    blocks = list(entries_blocks(results, lines))
    assert ENTRY_SEPARATOR.join(blocks) == ENTRY_SEPARATOR.join(map(entry_line, whole))
    assert all(block.count(ENTRY_SEPARATOR + "{") < lines for block in blocks)
    assert len(blocks) == -(-len(whole) // lines)  # every block full but the last
