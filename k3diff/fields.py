"""Typed fields of a JSON document, read with one error dialect.

Every typed reader builds its frozen view through a `Fields`: each access names the type it
needs, and a field that is missing or of another type is refused at once with one line naming
the file and the field's path (`FILE: field 'summary.native.identical' must be an integer`).
Nothing is defaulted except what the schema marks optional (the `optional_*` accessors, where
an absent key and `null` both read as None): a silently defaulted count could turn a failing
document into a passing bundle row. Fields the reader does not ask for are ignored (fields are
only ever added within a version).

A value of the right type that no writer can produce is refused the same way, naming the value
(`FILE: field 'records[0].modes[0].base.n' must be an integer of at least 0, not -1`): every
integer is a count, size, position or code, so `integer` takes none below 0 unless the reader
names another `Within`; a number is held to the `Within` its reader names (a p-value or share
to `SHARE`, a level to `LEVEL`); a word to the values its writer writes (`among`). An
impossible value could otherwise slip past the self-checks (a negative sample count reads as
sampled) and make a rendered verdict say what the document's own numbers do not support.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypeVar

from k3diff.errors import InputError
from k3diff.jsonmembers import Streamed

T = TypeVar("T")

_MISSING = object()


@dataclass(frozen=True)
class Within:
    """The values a numeric field's writer can write: from `low` to `high`, an end left out
    where it is open. NaN lies within none."""

    low: float = -math.inf
    """The least value (or the bound above which every value lies, `open_low`)."""
    high: float = math.inf
    """The greatest value (or the bound below which every value lies, `open_high`)."""
    open_low: bool = False
    """`low` itself is not a value the writer writes."""
    open_high: bool = False
    """`high` itself is not a value the writer writes."""

    def holds(self, value: float) -> bool:
        """Whether `value` lies within (NaN fails every comparison, so never)."""
        above = value > self.low if self.open_low else value >= self.low
        below = value < self.high if self.open_high else value <= self.high
        return above and below

    def said(self, kind: str) -> str:
        """`an integer of at least 0`, `a number from 0 to 1`, ...: how a refusal says it."""
        low, high = f"{self.low:g}", f"{self.high:g}"
        if self.low == -math.inf and self.high == math.inf:
            return f"a finite {kind.removeprefix('a ')}" if self.open_low else kind
        if self.high == math.inf:
            return f"{kind} {'above' if self.open_low else 'of at least'} {low}"
        if self.open_low and self.open_high:
            return f"{kind} strictly between {low} and {high}"
        if self.open_low:
            return f"{kind} above {low} and at most {high}"
        return f"{kind} from {low} to {high}"


COUNT = Within(0)
"""Counts, sizes, positions, line numbers, exit codes: every integer a document holds unless its
reader says otherwise."""
POSITIVE = Within(1)
"""A count that is at least 1 where it is written at all (a test's items, a waiver's number)."""
SHARE = Within(0.0, 1.0)
"""A probability: a p-value, a share, a bound on a mass, a power."""
LEVEL = Within(0.0, 1.0, open_low=True, open_high=True)
"""A significance level: what every command's `--alpha` takes."""
NONNEGATIVE = Within(0.0)
"""A number of seconds, tokens or units that cannot be negative."""
SIGNED = Within()
"""Any number but NaN (a difference of means, a logprob margin)."""
FINITE = Within(open_low=True, open_high=True)
"""Any finite number: what a number field holds where its reader names no range."""
NON_FINITE_WRITTEN = None
"""No range at all, `"NaN"` and the infinities included: named by a reader where its writer
writes them (a logprob gap or margin where a server's logprob is NaN or -inf)."""


def words(kind: type[StrEnum]) -> frozenset[str]:
    """The words an enum's members are written as: what `among` takes for a field of it."""
    return frozenset(member.value for member in kind)


class Fields:
    """One JSON object of a document, at `where` (a dotted path, '' for the top level)."""

    def __init__(self, data: object, name: str, where: str = "") -> None:
        if not isinstance(data, Mapping):
            raise InputError(
                f"{name}: {f'field {where!r}' if where else 'the document'} must be an object"
            )
        self._data: Mapping[str, Any] = data
        self.name = name
        """The file, as the error names it."""
        self.where = where
        """This object's path in the document."""

    def _path(self, key: str) -> str:
        return f"{self.where}.{key}" if self.where else key

    def fail(self, key: str, problem: str) -> InputError:
        """The error for field `key` (`FILE: field 'a.b' PROBLEM`)."""
        return InputError(f"{self.name}: field {self._path(key)!r} {problem}")

    def has(self, key: str) -> bool:
        """Whether the object holds `key` (with any value, null included)."""
        return key in self._data

    def _get(self, key: str, optional: bool) -> Any:
        value = self._data.get(key, _MISSING)
        if value is _MISSING and not optional:
            raise self.fail(key, "is missing")
        return None if value is _MISSING else value

    def _typed(self, key: str, check: Callable[[Any], bool], what: str, optional: bool) -> Any:
        value = self._get(key, optional)
        if value is None and optional:
            return None
        if not check(value):
            raise self.fail(key, f"must be {what}")
        return value

    def _within(self, key: str, value: Any, within: Within | None, kind: str, null: str) -> Any:
        """`value` (as read: an int, float or a non-finite string) where `within` holds it."""
        number = float(value) if isinstance(value, str) else value
        if value is None or within is None or within.holds(number):
            return number
        raise self.fail(key, f"must be {within.said(kind)}{null}, not {_shown(value)}")

    def integer(self, key: str, within: Within = COUNT) -> int:
        """An integer (a JSON `true` is no count), within `within` (0 or more by default)."""
        value: int = self._typed(key, _is_int, "an integer", False)
        return int(self._within(key, value, within, "an integer", ""))

    def optional_integer(self, key: str, within: Within = COUNT) -> int | None:
        """An integer within `within`, or None when absent or null."""
        value: int | None = self._typed(key, _is_int, "an integer or null", True)
        checked: int | None = self._within(key, value, within, "an integer", " or null")
        return checked

    def number(self, key: str, within: Within | None = FINITE) -> float:
        """A number (integer or float; `"NaN"`, `"Infinity"` and `"-Infinity"` are how k3diff
        writes the non-finite ones), within `within`: a finite one where the reader names no
        range, any (`NON_FINITE_WRITTEN`) only where it says its writer writes the others
        (readers72: `"NaN"` was read wherever no range was named)."""
        value: float | str = self._typed(key, is_number, "a number", False)
        checked: float = self._within(key, value, within, "a number", "")
        return checked

    def optional_number(self, key: str, within: Within | None = FINITE) -> float | None:
        """A number within `within` (as `number`), or None when absent or null."""
        value: float | str | None = self._typed(key, is_number, "a number or null", True)
        checked: float | None = self._within(key, value, within, "a number", " or null")
        return checked

    def hold_numbers(self, within: Within | None, *keys: str) -> None:
        """Numbers no view keeps, held to `within` where written (absent or null pass): the
        schema states their range, so a reader that skipped them read a document the schema
        refuses (readers72: a triage record's `p` of 1.5)."""
        for key in keys:
            self.optional_number(key, within)

    def hold_counts(self, *keys: str) -> None:
        """Integers no view keeps, held to 0 or more where written (as `hold_numbers`)."""
        for key in keys:
            self.optional_integer(key)

    def level(self, key: str) -> float:
        """A significance level: a finite number strictly between 0 and 1, what every
        command's `--alpha` takes (a document edited to 0, 1, a negative or NaN is refused)."""
        return self.number(key, LEVEL)

    def optional_share(self, key: str) -> float | None:
        """A finite number from 0 to 1 (a similarity, a share), or None when absent or null."""
        return self.optional_number(key, SHARE)

    def string(self, key: str, among: Collection[str] | None = None) -> str:
        """A string; one of `among` where the reader names the words its writer writes."""
        value: str = self._typed(key, _is_str, "a string", False)
        return self._among(key, value, among, "")

    def optional_string(self, key: str, among: Collection[str] | None = None) -> str | None:
        """A string (one of `among` where named), or None when absent or null."""
        value: str | None = self._typed(key, _is_str, "a string or null", True)
        return None if value is None else self._among(key, value, among, " or null")

    def sha256(self, key: str) -> str:
        """A SHA-256 as k3diff writes one: 64 lowercase hex characters, the schema's pattern
        (audit73: `"sha256": "XYZ"` was read, and a tie by digest then compared a value no run
        writes)."""
        value: str = self._typed(key, _is_str, "a string", False)
        return self._hex(key, value, "")

    def optional_sha256(self, key: str) -> str | None:
        """A SHA-256 (as `sha256`), or None when absent or null."""
        value: str | None = self._typed(key, _is_str, "a string or null", True)
        return None if value is None else self._hex(key, value, " or null")

    def _hex(self, key: str, value: str, null: str) -> str:
        if len(value) == 64 and _LOWER_HEX.issuperset(value):
            return value
        raise self.fail(
            key, f"must be a SHA-256 (64 lowercase hex characters){null}, not {_shown(value)}"
        )

    def _among(self, key: str, value: str, among: Collection[str] | None, null: str) -> str:
        if among is None or value in among:
            return value
        raise self.fail(key, f"must be {_one_of(among)}{null}, not {_shown(value)}")

    def boolean(self, key: str) -> bool:
        """true or false."""
        value: bool = self._typed(key, _is_bool, "true or false", False)
        return value

    def optional_boolean(self, key: str) -> bool | None:
        """true or false, or None when absent or null."""
        value: bool | None = self._typed(key, _is_bool, "true, false or null", True)
        return value

    def strings(self, key: str, among: Collection[str] | None = None) -> tuple[str, ...]:
        """A list of strings (each one of `among` where named)."""
        value = self._typed(key, _is_list, "a list of strings", False)
        for index, item in enumerate(value):
            if not isinstance(item, str):
                raise self.fail(f"{key}[{index}]", "must be a string")
            self._among(f"{key}[{index}]", item, among, "")
        return tuple(value)

    def integers(self, key: str, within: Within = COUNT) -> tuple[int, ...]:
        """A list of integers, each within `within` (0 or more by default)."""
        value = self._typed(key, _is_list, "a list of integers", False)
        for index, item in enumerate(value):
            if not _is_int(item):
                raise self.fail(f"{key}[{index}]", "must be an integer")
            self._within(f"{key}[{index}]", item, within, "an integer", "")
        return tuple(value)

    def object(self, key: str) -> Fields:
        """A nested object."""
        self._typed(key, _is_object, "an object", False)
        return Fields(self._data[key], self.name, self._path(key))

    def optional_object(self, key: str) -> Fields | None:
        """A nested object, or None when absent or null."""
        if self._typed(key, _is_object, "an object or null", True) is None:
            return None
        return Fields(self._data[key], self.name, self._path(key))

    def raw(self, key: str) -> Any:
        """The value as the document holds it (None when absent or null), for a shape the
        typed methods do not read (the caller checks it)."""
        return self._get(key, True)

    def as_written(self, key: str) -> Mapping[str, Any]:
        """A nested object as the document holds it (for what the reader passes on whole, such
        as a summary a bundle stage records beside the typed numbers it reads)."""
        self._typed(key, _is_object, "an object", False)
        value: Mapping[str, Any] = self._data[key]
        return value

    def objects(self, key: str) -> Iterator[Fields]:
        """Each object of a list of objects."""
        value = self._typed(key, _is_list, "a list of objects", False)
        for index, item in enumerate(value):
            yield Fields(item, self.name, f"{self._path(key)}[{index}]")

    def each(self, key: str, read: Callable[[Fields], T]) -> tuple[T, ...]:
        """`read` applied to each object of a list of objects."""
        return tuple(read(item) for item in self.objects(key))

    def streamed(self, key: str, read: Callable[[Fields], T]) -> tuple[T, ...]:
        """`each`, or what `read` made of each object as the document was decoded (a
        `jsonmembers.Streamed` member: its first refusal raised here, as `each` raises it)."""
        value = self._data.get(key)
        if not isinstance(value, Streamed):
            return self.each(key, read)
        if value.error is not None:
            raise value.error
        items: tuple[T, ...] = value.items
        return items

    def counts(self, key: str) -> dict[str, int]:
        """An object of integer counts, in its order."""
        counts = self.object(key)
        return {field: counts.integer(field) for field in counts.names()}

    def names(self, among: Collection[str] | None = None) -> tuple[str, ...]:
        """The object's keys, in order (each one of `among` where named: a map keyed by side)."""
        for key in self._data:
            if among is not None and key not in among:
                raise self.fail(key, f"is no key this object holds: keys are {_one_of(among)}")
        return tuple(self._data)


def _one_of(among: Collection[str]) -> str:
    """`one of "base", "patch"`; past 8 words, how many (a triage flag is one of 25)."""
    if len(among) > 8:
        return f"one of the {len(among)} words k3diff writes there"
    return "one of " + ", ".join(_shown(word) for word in sorted(among))


def _shown(value: object) -> str:
    """A refused value as the document holds it (`-1`, `1.5`, `"NaN"`), cut to 60 characters."""
    text = json.dumps(value, ensure_ascii=True)
    return text if len(text) <= 60 else text[:57] + "..."


_LOWER_HEX = frozenset("0123456789abcdef")
"""The characters of a SHA-256 as k3diff writes it (`hashlib`'s `hexdigest`)."""


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


NON_FINITE = frozenset({"NaN", "Infinity", "-Infinity"})
"""The strings k3diff's JSON holds for non-finite floats (`k3diff.jsontext`)."""


def is_number(value: object) -> bool:
    """Whether a JSON value is a number as k3diff writes one: an integer or float (never
    `true` or `false`), or `"NaN"`, `"Infinity"`, `"-Infinity"`."""
    if isinstance(value, str):
        return value in NON_FINITE
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_str(value: object) -> bool:
    return isinstance(value, str)


def _is_bool(value: object) -> bool:
    return isinstance(value, bool)


def _is_list(value: object) -> bool:
    return isinstance(value, list)


def _is_object(value: object) -> bool:
    return isinstance(value, Mapping)
