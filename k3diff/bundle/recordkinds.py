"""The kinds of difference a comparison's record statuses say, as the bundle counts them: each
record in one kind, in the records row and the triage row alike (lmrep68, left68)."""

from __future__ import annotations

from collections.abc import Iterable

from k3diff.numbers import named

TEXT_DIFFERS = frozenset({"text-differs", "tokens-differ"})
"""Comparison statuses whose outputs differ: the text differs."""
FAILED = "error"
"""The status of a record where a request failed: no output to compare, so it fails whatever
the scores say, but its text is not said to differ, and it is counted once (lmrep68: under
"text differs" and again as "error records")."""
NOT_COMPARABLE = "not-comparable"
"""The status of a record whose prompt or eval inputs differ: nothing was compared for it, so
it fails, but its text is not said to differ (lmeval67: "text differs on 1 record")."""
ONE_LOG_ONLY = frozenset({"prompt-unknown", "arguments-unknown"})
"""The inputs of a not-comparable lm-eval record that one log alone holds: not known to
differ (left68)."""
ONE_SIDED = frozenset({"only-base", "only-patch"})
"""Statuses of a record one capture alone holds: no text to compare."""
OUTSIDE_TEXT = frozenset({"logprobs-differ", "fields-differ"})
"""Comparison statuses of records whose texts (and token ids) agree: triage judges texts, so
these are matches to it, and are counted apart from the records whose text differs."""

_OTHER_KINDS = (
    (frozenset({FAILED}), "a request failed on {n} ({names})"),
    (frozenset({NOT_COMPARABLE}), "{n} not comparable ({names})"),
    (ONE_SIDED, "{n} in one capture only ({names})"),
)


def other_kinds(records: Iterable[tuple[str, str]]) -> list[str]:
    """'a request failed on 1 (a)', '2 in one capture only (d, e)': each kind of difference
    other than a text's that the (name, comparison status) pairs hold, with its records."""
    records = list(records)
    said = []
    for statuses, words in _OTHER_KINDS:
        names = [name for name, status in records if status in statuses]
        if names:
            said.append(words.format(n=f"{len(names):,}", names=named(names)))
    return said
