"""`k3diff.lazyre.lazy`: a pattern compiled on first use answers exactly as `re.compile`'s."""

from __future__ import annotations

import re

import pytest

from k3diff.lazyre import lazy

CASES = [
    (r"^lib/python(\d+)\.(\d+)t?/site-packages/", 0, "lib/python3.11/site-packages/x.py"),
    (r"pip(?:\d+(?:\.\d+)?)?(?:\.exe)?", re.IGNORECASE, "PIP3.12.EXE"),
    (r"(?<!\\)\|", 0, r"a|b\|c|d"),
    (r"`+", 0, "x `` y ``` z"),
]


@pytest.mark.parametrize(("source", "flags", "text"), CASES)
def test_every_method_answers_as_the_compiled_pattern(source: str, flags: int, text: str) -> None:
    compiled, deferred = re.compile(source, flags), lazy(source, flags)
    for method in ("match", "fullmatch", "search"):
        want, got = getattr(compiled, method)(text), getattr(deferred, method)(text)
        assert (want and want.group()) == (got and got.group())
    assert deferred.findall(text) == compiled.findall(text)
    assert deferred.sub("_", text) == compiled.sub("_", text)
    assert deferred.subn("_", text) == compiled.subn("_", text)
    assert deferred.split(text) == compiled.split(text)
    assert [m.span() for m in deferred.finditer(text)] == [
        m.span() for m in compiled.finditer(text)
    ]
    assert (deferred.pattern, deferred.flags, deferred.groups) == (
        compiled.pattern,
        compiled.flags,
        compiled.groups,
    )


def test_bytes_patterns_work_too() -> None:
    assert lazy(rb"[\x00-\x1f]").search(b"a\x07b") is not None
    assert lazy(rb"[\x00-\x1f]").search(b"plain") is None


def test_it_compiles_on_first_use_then_calls_the_compiled_methods() -> None:
    deferred = lazy(r"never-compiled-before-\d+")
    assert "search" not in vars(deferred)  # nothing compiled at definition
    assert deferred.search("x never-compiled-before-42") is not None
    bound = vars(deferred)["search"]
    assert bound.__self__ is re.compile(r"never-compiled-before-\d+")  # re's own cache
    assert deferred.search is bound  # later calls go straight to the compiled pattern


def test_a_bad_pattern_fails_on_first_use_and_an_unknown_attribute_is_refused() -> None:
    deferred = lazy(r"(unclosed")
    with pytest.raises(re.error):
        deferred.match("x")
    with pytest.raises(AttributeError):
        getattr(lazy("x"), "no_such_method")  # noqa: B009
