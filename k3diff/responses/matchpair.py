"""Identical pairs, recognised on the packed records (`k3diff.responses.packed`).

Most pairs of a large run are identical: same text, same token ids, same compared fields, no
logprobs, errors or lm-eval parts to weigh. For those `diff.diff_pair` always finds the same
thing (status match, similarity 1.0, nothing else), so the comparison checks the packed tuples
it reads back from the spill (`identical`) and hands on a `MatchRow` instead: it makes the
`RecordDiff` only when asked (`diff`), and gives a report what it prints without one (the JSON
writer encodes its line from the row's fields, `k3diff.documents.responses_match`).
"""

from __future__ import annotations

import sys
from operator import itemgetter
from typing import Any

import xxhash

from k3diff.responses.jsonsame import same
from k3diff.responses.model import text_digest
from k3diff.responses.packed import (
    CHOICE,
    CONDITION,
    ERROR,
    FINGERPRINT,
    FINISH,
    LABEL,
    LM_EVAL,
    LOGPROBS,
    MODEL,
    OTHER,
    PREVIEW,
    PROMPT,
    RUN_STATE,
    SCORES,
    TEXT,
    TOKEN_IDS,
    USAGE,
    Packed,
    location,
)
from k3diff.responses.results import RecordDiff, SideSummary, Status

_MATCH_RANK = Status.MATCH.rank
_TOKEN_BYTES = 8


_ABSENT = itemgetter(ERROR, LM_EVAL, LOGPROBS, SCORES)
"""Fields an identical pair holds on neither side: no error, lm-eval parts, logprobs or scores
(a record's scores are a tuple, empty without)."""
_NOTHING = (None, None, None, ())
_EQUAL = itemgetter(TEXT, TOKEN_IDS, OTHER, FINISH)
"""Fields compared by `==`: the text, the token ids' bytes, the compared rest's canonical JSON
and the finish reason are strings, bytes or None (`assemble` refuses another finish reason),
where `==` is `jsonsame.same` (and one tuple comparison checks all four)."""


def identical(base: Packed, patch: Packed, include_volatile: bool) -> bool:
    """True when `diff.diff_pair` of the two records can only say match with nothing to add:
    no error, lm-eval parts, logprobs or scores on either side, the texts and token ids equal
    (or absent on both sides), and the compared fields and run state equal as JSON values
    (`jsonsame.same`: type-exact, as deepdiff compares them, so 1, 1.0 and true differ)."""
    if (
        _ABSENT(base) != _NOTHING
        or _ABSENT(patch) != _NOTHING
        or _EQUAL(base) != _EQUAL(patch)
        or (include_volatile and base[FINGERPRINT] != patch[FINGERPRINT])
    ):
        return False
    usage, patch_usage = base[USAGE], patch[USAGE]
    if not (usage is None is patch_usage or same(usage, patch_usage)):
        return False
    state, patch_state = base[RUN_STATE], patch[RUN_STATE]
    return (not state and not patch_state) or same(state or {}, patch_state or {})


def ids_digest(data: bytes) -> str:
    """`model.token_ids_digest` of the ids packed as `data` (native int64 bytes)."""
    if sys.byteorder == "big":
        from array import array

        ids = array("q")
        ids.frombytes(data)
        ids.byteswap()
        data = ids.tobytes()
    return str(xxhash.xxh3_128_hexdigest(data))


class MatchRow:
    """One identical pair, as `diff.diff_pair` would report it, made lazily."""

    __slots__ = ("base", "displays", "key", "patch")

    def __init__(self, key: str, base: Packed, patch: Packed, displays: tuple[str, str]) -> None:
        self.key = key
        self.base = base
        """The base record, packed."""
        self.patch = patch
        """The patch record, packed."""
        self.displays = displays
        """The base and patch paths as the user named them."""

    def digests(self) -> tuple[str, str | None]:
        """xxh3-128 of the text and of the token ids (None without), equal on both sides:
        made when a report writes the row, not for every row a table leaves out."""
        ids = self.base[TOKEN_IDS]
        return text_digest(self.base[TEXT]), None if ids is None else ids_digest(ids)

    @property
    def token_match(self) -> bool | None:
        """True when both sides carry (equal) token ids, None when neither does."""
        return None if self.base[TOKEN_IDS] is None else True

    @property
    def sort_key(self) -> tuple[int, float, str]:
        """`results.worst_first_key` of the row's diff."""
        return (_MATCH_RANK, 1.0, self.key)

    @property
    def prompt_preview(self) -> str | None:
        """The diff's `prompt_preview`."""
        preview: str | None = self.base[PREVIEW] or self.patch[PREVIEW]
        return preview

    @property
    def label(self) -> str | None:
        """The diff's `label` (`model.record_label` of the two records)."""
        labels = {p[LABEL] for p in (self.base, self.patch) if p[LABEL] is not None}
        if len(labels) == 1:
            return str(labels.pop())
        # Two labels for one pair are per-run ids, not names: the prompt names it instead.
        for packed in (self.base, self.patch):
            if packed[PREVIEW] is not None:
                if packed[CHOICE] is None:
                    return str(packed[PREVIEW])
                return f"{packed[PREVIEW]} #{packed[CHOICE]}"
        return None

    def side(self, is_base: bool, digests: tuple[str, str | None]) -> tuple[Any, ...]:
        """(location, text_xxh3, token_ids_xxh3, chars, tokens, finish_reason, fingerprint,
        error, prompt_xxh3, condition, model) of one side: `diff.summarize`'s fields in order."""
        packed = self.base if is_base else self.patch
        ids = packed[TOKEN_IDS]
        return (
            location(packed, self.displays[0 if is_base else 1]),
            *digests,
            len(packed[TEXT]),
            None if ids is None else len(ids) // _TOKEN_BYTES,
            packed[FINISH],
            packed[FINGERPRINT],
            None,
            packed[PROMPT],
            packed[CONDITION],
            packed[MODEL],
        )

    def diff(self) -> RecordDiff:
        """The `RecordDiff` `diff.diff_pair` makes of the pair."""
        digests = self.digests()
        return RecordDiff(
            key=self.key,
            status=Status.MATCH,
            prompt_preview=self.prompt_preview,
            label=self.label,
            base=SideSummary(*self.side(True, digests)),
            patch=SideSummary(*self.side(False, digests)),
            text_match=True,
            normalized_match=False,
            token_match=self.token_match,
            similarity=1.0,
            divergence=None,
            field_changes=(),
            logprobs=None,
        )
