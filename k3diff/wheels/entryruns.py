"""Raw-identical pairs kept as columns, and the sequence of a comparison's results that holds them.

Nearly every entry of a rebuilt wheel (12,235 of torch's 12,248) is a pair of one span whose
records are equal on both sides, installed with the same mode, whose RECORD row needs no hash:
its result differs from the others' only in the pair's entries and its kind. Such pairs are kept
as an `IdenticalRun` (the pairs and their kinds, no result object each), and `EntryResults`
holds the runs beside the other results. The summary, the notable entries, the findings, the
stream-check count and the JSON writer read the runs' columns (`EntryResults.singles` and
`.runs`); anything else sees a sequence of `EntryResult`s in pair order, each run's results
built once, on the first access, equal to those the schedule built per pair before.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import fields
from itertools import chain, compress, repeat
from operator import and_, attrgetter, eq, is_not, itemgetter
from typing import overload

from k3diff.wheel.kinds import EntryKind
from k3diff.wheels.entry import EntryResult
from k3diff.wheels.pairing import EntryPair
from k3diff.wheels.proof import How, Status
from k3diff.zip.directory import ZipEntry

_IDENTICAL_RAW_FIELDS = {
    **dict.fromkeys(field.name for field in fields(EntryResult)),
    **{"status": Status.IDENTICAL, "how": How.RAW_BYTES, "recompressed": False},
}
"""Every field of `EntryResult` in its order, those of a raw-identical pair set (the rest None
until `identical_result` sets them)."""


def identical_result(pair: EntryPair, kind: EntryKind) -> EntryResult:
    """The result of a pair proven identical by its raw bytes whose two entries have the same
    mode: the fields of `pairresult.pair_result(pair, IDENTICAL_RAW, kind)`, built in place (a copy
    of the constant fields and the pair's own: cheaper than a 21-key display)."""
    base_entry, patch_entry, installed, base_installed, moved = pair
    assert base_entry is not None and patch_entry is not None
    values = _IDENTICAL_RAW_FIELDS.copy()
    values["path"] = values["patch_path"] = patch_entry.name
    values["base_path"] = base_entry.name
    values["kind"] = kind
    values["base_size"] = base_entry.size
    values["patch_size"] = patch_entry.size
    values["base_crc32"] = base_entry.crc32
    values["patch_crc32"] = patch_entry.crc32
    values["base_mode"] = values["patch_mode"] = patch_entry.external_attr >> 16
    values["installed_path"] = installed
    values["base_installed_path"] = base_installed
    values["moved"] = moved
    result = _new(EntryResult)
    _set(result, "__dict__", values)
    return result


_new, _set = object.__new__, object.__setattr__
_BASE, _PATCH = itemgetter(0), itemgetter(1)
"""`EntryPair.base` and `.patch`, as C-level getters."""
_INSTALLED, _BASE_INSTALLED, _MOVED = itemgetter(2), itemgetter(3), itemgetter(4)
"""`EntryPair.installed_path`, `.base_installed_path` and `.moved`."""
_NAME = attrgetter("name")
"""`ZipEntry.name`."""


class IdenticalRun:
    """Pairs of one span proven identical by their equal compressed bytes, each installed with
    the same mode on both sides, with one path on both sides whose RECORD row needs no hash
    (`recordplan.unchanged_rows`): what a result would say of each is its pair's entries and
    its kind. Their results are final: no detail, no hash, no finding of their own.
    The columns of the patch entries and names are built once (or given by `split_run`, which
    built them to test the pairs) and shared by every reader: not to be changed."""

    __slots__ = ("_names", "_patch_entries", "indices", "kinds", "pairs")

    def __init__(
        self,
        indices: list[int],
        pairs: list[EntryPair],
        kinds: list[EntryKind],
        patch_entries: list[ZipEntry] | None = None,
        names: list[str] | None = None,
    ) -> None:
        self.indices = indices
        """The pairs' indices in the comparison's pair order, ascending."""
        self.pairs = pairs
        """The pairs, both entries present, `base.name == patch.name`, equal modes."""
        self.kinds = kinds
        """Each pair's kind (from its path or sniffed from its content)."""
        self._patch_entries = patch_entries
        self._names = names

    def __len__(self) -> int:
        return len(self.indices)

    def result(self, number: int) -> EntryResult:
        """The result of the run's `number`-th pair."""
        return identical_result(self.pairs[number], self.kinds[number])

    def results(self) -> list[EntryResult]:
        """Every pair's result, in the run's order."""
        return list(map(identical_result, self.pairs, self.kinds))

    def patch_entries(self) -> list[ZipEntry]:
        """The pairs' patch entries (one list, kept)."""
        if self._patch_entries is None:
            self._patch_entries = list(map(_PATCH, self.pairs))
        return self._patch_entries

    def base_entries(self) -> list[ZipEntry]:
        """The pairs' base entries."""
        return list(map(_BASE, self.pairs))

    def names(self) -> list[str]:
        """Each pair's path (the same on both sides; one list, kept)."""
        if self._names is None:
            self._names = list(map(_NAME, self.patch_entries()))
        return self._names

    def installed_paths(self) -> list[str | None]:
        """Where pip installs each pair's patch entry."""
        return list(map(_INSTALLED, self.pairs))

    def base_installed_paths(self) -> list[str | None]:
        """Where pip installs each pair's base entry."""
        return list(map(_BASE_INSTALLED, self.pairs))

    def moved(self) -> list[bool]:
        """Whether each pair moved inside the archive (installed to the same path)."""
        return list(map(_MOVED, self.pairs))


def split_run(
    indices: list[int],
    pairs: list[EntryPair],
    kinds: list[EntryKind],
    unchanged: frozenset[str],
    patches: list[ZipEntry] | None = None,
    names: list[str] | None = None,
) -> tuple[IdenticalRun | None, list[int]]:
    """(the run of the raw-identical `pairs` (at `indices`, of `kinds`) that belong in one, the
    numbers in `pairs` of the others). In the run: installed with the same mode on both sides,
    one path on both sides, whose RECORD row needs no hash (a path of `unchanged`). Tested
    column by column in C (the same external attributes); a pair failing that is tested in
    full (modes may agree where the DOS bits differ). `patches`, `names`: the pairs' patch
    entries and their names, when the caller has them."""
    bases = list(map(_BASE, pairs))
    if patches is None:
        patches = list(map(_PATCH, pairs))
    if names is None:
        names = list(map(_NAME, patches))
    tests = map(eq, map(_ATTRIBUTES, bases), map(_ATTRIBUTES, patches))
    tests = map(and_, tests, map(unchanged.__contains__, names))
    passed = list(map(and_, tests, map(eq, map(_NAME, bases), names)))
    if False not in passed:  # nearly every span: one run of all its pairs
        return IdenticalRun(indices, pairs, kinds, patches, names), []
    ran, others = [], []
    for number, (base, patch, *_) in enumerate(pairs):
        assert base is not None and patch is not None
        if passed[number] or (
            base.external_attr >> 16 == patch.external_attr >> 16
            and patch.name in unchanged
            and base.name == patch.name
        ):
            ran.append(number)
        else:
            others.append(number)
    if not ran:
        return None, others
    run = IdenticalRun(
        list(map(indices.__getitem__, ran)),
        list(map(pairs.__getitem__, ran)),
        list(map(kinds.__getitem__, ran)),
    )
    return run, others


_ATTRIBUTES = attrgetter("external_attr")


class EntryResults(Sequence[EntryResult]):
    """Every pair's result in pair order: the results built one by one (`slots`, None where a
    run's pair is) and the `runs` of raw-identical pairs, whose results are built on the first
    access by index or iteration (and kept). Equal to a tuple of the same results, and to
    another `EntryResults` holding them."""

    __slots__ = ("_all", "_singles", "columnar", "runs", "slots")

    def __init__(self, slots: list[EntryResult | None], runs: list[IdenticalRun]) -> None:
        self.slots = slots
        """Per pair index, its result, or None when the pair is in a run."""
        self.runs = runs
        """The runs of raw-identical pairs."""
        self.columnar = 2 * sum(map(len, runs)) >= len(slots) > 0
        """Whether the runs hold at least half the results: reading their columns then costs
        less than building their results, and the consumers read them (`model.count_by_kind`,
        `WheelReport.notable`, the findings, `streamcheck.unchecked`, the JSON writer). Else
        (every entry recompressed: a few runs of one stored entry each) they read the
        results, as of a tuple."""
        self._all: tuple[EntryResult, ...] | None = None
        self._singles: list[tuple[int, EntryResult]] | None = None

    @classmethod
    def of(cls, results: Sequence[EntryResult]) -> EntryResults:
        """`results` (one per pair, in pair order) without runs."""
        return cls(list(results), [])

    @property
    def singles(self) -> list[tuple[int, EntryResult]]:
        """(pair index, result) of every pair outside the runs, by index."""
        if self._singles is None:
            slots = self.slots
            taken = map(is_not, slots, repeat(None))
            self._singles = list(compress(enumerate(slots), taken))  # type: ignore[arg-type]
        return self._singles

    def __len__(self) -> int:
        return len(self.slots)

    def materialised(self) -> tuple[EntryResult, ...]:
        """Every result in pair order, the runs' built the first time this is asked."""
        if self._all is None:
            slots = self.slots
            if self.runs:
                slots = slots.copy()
                for run in self.runs:
                    for index, result in zip(run.indices, run.results(), strict=True):
                        slots[index] = result
            assert all(map(is_not, slots, repeat(None))), "one result per pair"
            self._all = tuple(slots)  # type: ignore[arg-type]  # no None left
        return self._all

    @overload
    def __getitem__(self, key: int) -> EntryResult: ...

    @overload
    def __getitem__(self, key: slice) -> tuple[EntryResult, ...]: ...

    def __getitem__(self, key: int | slice) -> EntryResult | tuple[EntryResult, ...]:
        return self.materialised()[key]

    def __iter__(self) -> Iterator[EntryResult]:
        return iter(self.materialised())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, EntryResults):
            other = other.materialised()
        if not isinstance(other, tuple):
            return NotImplemented
        return self.materialised() == other

    def __hash__(self) -> int:
        return hash(self.materialised())

    def __repr__(self) -> str:
        return repr(self.materialised())

    def kind_status_counts(self) -> Counter[tuple[EntryKind, Status]]:
        """How many results have each (kind, status), the runs counted by their kinds alone."""
        singles = list(map(_RESULT, self.singles))
        counted = Counter(zip(map(_KIND, singles), map(_STATUS, singles), strict=True))
        for run in self.runs:
            kinds = run.kinds
            # One C-level count per kind (identity compares) instead of a tuple hashed per pair.
            each = [(kind, kinds.count(kind)) for kind in EntryKind]
            if sum(count for _, count in each) != len(kinds):  # not only `EntryKind`s: as before
                counted.update(zip(kinds, repeat(Status.IDENTICAL)))
                continue
            for kind, count in each:
                if count:
                    counted[kind, Status.IDENTICAL] += count
        return counted

    def sparse(self) -> list[tuple[int, EntryResult]]:
        """(index, result) of every single and of every run pair that moved inside the archive,
        by index: every result that is anything but identical by raw bytes, at one path, in
        the same place (what `model.is_notable` may keep)."""
        moved = [
            (run.indices[number], run.result(number))
            for run in self.runs
            if True in (flags := run.moved())
            for number, flag in enumerate(flags)
            if flag
        ]
        if not moved:
            return self.singles
        return sorted(chain(self.singles, moved), key=_INDEX)


_INDEX = itemgetter(0)
_RESULT = itemgetter(1)
_KIND, _STATUS = attrgetter("kind"), attrgetter("status")
