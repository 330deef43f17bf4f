"""What to tell a user whose sample keys match no record of the comparison.

`k3diff sample` keys a prompt by its `key` field, else its `id`, else the xxh3-128 of its prompt;
`k3diff responses` pairs by `--key FIELD`, else the records' ids, else the prompt hash, or by
position (`--by-order`, keys `#1`, `#2`, ...). The hint names the pairing that fits the samples.
"""

from __future__ import annotations

import re

from k3diff.responses.document import ResponsesDocument

_PROMPT_HASH = re.compile(r"[0-9a-f]{32}")
_RERUN = "re-run 'k3diff responses BASE PATCH --key key --format json'"


def unmatched_keys_hint(comparison: ResponsesDocument, sample_keys: tuple[str, ...]) -> str:
    """The second half of the message: why the keys cannot match and what to run instead."""
    hashed = all(_PROMPT_HASH.fullmatch(key) for key in sample_keys)
    if comparison.pairing == "order" and "sse" in comparison.formats:
        return (
            "the comparison was paired --by-order (keys '#1', '#2', ...), and by-order keys "
            "cannot join samples; SSE transcripts carry no key or prompt to pair by: capture "
            'each answer beside its request (lines of {"key", "request", "response"}), compare '
            "those with --key key and triage that comparison"
        )
    if comparison.pairing == "order":
        return (
            "the comparison was paired --by-order (keys '#1', '#2', ...), and by-order keys "
            f"cannot join samples: pair the captures by a key field ({_RERUN}, or the field "
            "your prompts carry) and triage that comparison"
        )
    if comparison.pairing == "prompt-hash" and not hashed:
        return (
            "the comparison was paired by prompt hash but the sample keys look like field "
            f"values: {_RERUN} (k3diff sample keys a prompt by its 'key' field, else its 'id': "
            "give --key id when the prompts carry only ids)"
        )
    if comparison.pairing == "id" and not hashed:
        return (
            "the comparison was paired by the records' ids: if the prompts carry a 'key' field "
            f"(k3diff sample prefers it to 'id'), {_RERUN}"
        )
    if comparison.pairing == "field" and comparison.pairing_field is not None:
        return (
            f"the comparison was paired by --key {comparison.pairing_field}: were the samples "
            "made from the same prompts, keyed by that field?"
        )
    return "were both made from the same prompts and key?"
