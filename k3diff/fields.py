"""Typed fields of a JSON document, read with one error dialect.

Every typed reader builds its frozen view through a `Fields`: each access names the type it
needs, and a field that is missing or of another type is refused at once with one line naming
the file and the field's path (`FILE: field 'summary.native.identical' must be an integer`).
Nothing is defaulted except what the schema marks optional (the `optional_*` accessors, where
an absent key and `null` both read as None): a silently defaulted count could turn a failing
document into a passing bundle row. Fields the reader does not ask for are ignored (fields are
only ever added within a version).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar

from k3diff.errors import InputError

T = TypeVar("T")

_MISSING = object()


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

    def integer(self, key: str) -> int:
        """An integer (a JSON `true` is no count)."""
        value: int = self._typed(key, _is_int, "an integer", False)
        return value

    def optional_integer(self, key: str) -> int | None:
        """An integer, or None when absent or null."""
        value: int | None = self._typed(key, _is_int, "an integer or null", True)
        return value

    def number(self, key: str) -> float:
        """A number (integer or float; `"NaN"`, `"Infinity"` and `"-Infinity"` are how k3diff
        writes the non-finite ones)."""
        value: float | str = self._typed(key, _is_number, "a number", False)
        return float(value) if isinstance(value, str) else value

    def optional_number(self, key: str) -> float | None:
        """A number, or None when absent or null."""
        value: float | str | None = self._typed(key, _is_number, "a number or null", True)
        return float(value) if isinstance(value, str) else value

    def level(self, key: str) -> float:
        """A significance level: a finite number strictly between 0 and 1, what every
        command's `--alpha` takes (a document edited to 0, 1, a negative or NaN is refused)."""
        value = self.number(key)
        if not 0.0 < value < 1.0:  # NaN fails both comparisons
            raise self.fail(key, f"must be a number strictly between 0 and 1, not {value!r}")
        return value

    def optional_share(self, key: str) -> float | None:
        """A finite number from 0 to 1 (a similarity, a share), or None when absent or null."""
        value = self.optional_number(key)
        if value is not None and not 0.0 <= value <= 1.0:  # NaN fails both comparisons
            raise self.fail(key, "must be a number from 0 to 1 or null")
        return value

    def string(self, key: str) -> str:
        """A string."""
        value: str = self._typed(key, _is_str, "a string", False)
        return value

    def optional_string(self, key: str) -> str | None:
        """A string, or None when absent or null."""
        value: str | None = self._typed(key, _is_str, "a string or null", True)
        return value

    def boolean(self, key: str) -> bool:
        """true or false."""
        value: bool = self._typed(key, _is_bool, "true or false", False)
        return value

    def optional_boolean(self, key: str) -> bool | None:
        """true or false, or None when absent or null."""
        value: bool | None = self._typed(key, _is_bool, "true, false or null", True)
        return value

    def strings(self, key: str) -> tuple[str, ...]:
        """A list of strings."""
        value = self._typed(key, _is_list, "a list of strings", False)
        for index, item in enumerate(value):
            if not isinstance(item, str):
                raise self.fail(f"{key}[{index}]", "must be a string")
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

    def counts(self, key: str) -> dict[str, int]:
        """An object of integer counts, in its order."""
        counts = self.object(key)
        return {field: counts.integer(field) for field in counts.names()}

    def names(self) -> tuple[str, ...]:
        """The object's keys, in order."""
        return tuple(self._data)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


NON_FINITE = frozenset({"NaN", "Infinity", "-Infinity"})
"""The strings k3diff's JSON holds for non-finite floats (`k3diff.jsontext`)."""


def _is_number(value: object) -> bool:
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
