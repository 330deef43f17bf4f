"""JSON documents that stay fast and readable when they hold many thousands of items.

Keys of the top-level object are indented; the lists named in `per_line` get one compact item
per line. Python's C encoder only runs without indentation, so this is several times faster than
``json.dumps(doc, indent=2)`` on a 10,000-entry report, and it still diffs line by line.
Lists named in `encoded` hold items already encoded as compact JSON (a report streamed back from
a spool file), which are written as they are. Values go through `k3diff.jsontext.dumps`, so a
non-finite float is written as a string (RFC 8259 has no NaN or Infinity).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Iterator, Mapping
from typing import Any, TypeVar

from k3diff.jsontext import dumps

_Item = TypeVar("_Item")


def json_chunks(
    document: Mapping[str, Any], per_line: Collection[str], encoded: Collection[str] = ()
) -> Iterator[str]:
    """The pieces of `document` as JSON, keys in their order."""
    yield from json_members(document, per_line, encoded)
    yield "\n}\n"


def json_members(
    document: Mapping[str, Any], per_line: Collection[str], encoded: Collection[str] = ()
) -> Iterator[str]:
    """`json_chunks` without the closing brace: a last member may follow (`encoded_member`)."""
    yield "{"
    first = True
    for key, value in document.items():
        if key in encoded:
            yield from encoded_member(key, value, first)
        else:
            yield f"{_separator(first)}{json.dumps(key)}: "
            if key in per_line:
                yield from _list_lines(dumps(item) for item in value)
            else:
                yield dumps(value, indent=2).replace("\n", "\n  ")
        first = False


def encoded_member(name: str, items: Iterable[_Item], first: bool = False) -> Iterator[str | _Item]:
    """A member whose list holds items already encoded (as `encoded` in `json_chunks`), each
    item passed on as it is: text, or a piece the report writer copies (`output.Prewritten`)."""
    yield f"{_separator(first)}{json.dumps(name)}: "
    yield from _encoded_lines(items)


def _separator(first: bool) -> str:
    return "\n  " if first else ",\n  "


ITEM_SEPARATOR = ",\n    "
"""What separates two items of a list written one per line: items already joined by it pass
through `encoded` as one item and come out as if given one by one."""


def _list_lines(items: Iterable[str]) -> Iterator[str]:
    yield "["
    separator = "\n    "
    for item in items:
        yield separator + item
        separator = ITEM_SEPARATOR
    yield "]" if separator == "\n    " else "\n  ]"


def _encoded_lines(items: Iterable[_Item]) -> Iterator[str | _Item]:
    """`_list_lines` of items already encoded, each yielded apart from its separator: such an
    item is a block of many lines (a wheel's 12,000 entries are one 7 MB item), which a
    concatenation would copy whole."""
    yield "["
    separator = "\n    "
    for item in items:
        yield separator
        yield item
        separator = ITEM_SEPARATOR
    yield "]" if separator == "\n    " else "\n  ]"


def json_document(document: Mapping[str, Any], per_line: Collection[str]) -> str:
    """`json_chunks` joined into one string."""
    return "".join(json_chunks(document, per_line))
