"""The settings `k3diff responses` ran with, as the document's `rerun` object, and back: what
`report` runs `responses` again with on the two inputs a document names by SHA-256
(`k3diff.bundle.responsesrederive`, forge61b). Every `CompareOptions` field is written, those
the document shows elsewhere too (`--text-field`, `--tokens-field`, `--beam`, `--score-alpha`,
`--score-tolerance` and the input caps are shown nowhere else)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from k3diff import bounded
from k3diff.errors import InputError
from k3diff.recordedvalues import flag, optional_text, text
from k3diff.responses.compareoptions import CompareOptions
from k3diff.responses.model import Normalization
from k3diff.responses.scoregate import GateOptions


def rerun_settings(options: CompareOptions) -> dict[str, Any]:
    """The document's `rerun` object for `options` under the caps in force."""
    gate = options.score_gate
    caps = bounded.current_caps()
    return {
        "key": options.key,
        "by_order": options.by_order,
        "allow_unpaired": options.allow_unpaired,
        "normalize": [n.value for n in options.normalize],
        "include_volatile": options.include_volatile,
        "ignore_fields": list(options.ignore_fields),
        "logprob_tol": options.logprob_tol,
        "near_tie": options.near_tie,
        "text_field": options.text_field,
        "tokens_field": options.tokens_field,
        "beam": options.beam,
        "lm_eval_field": options.lm_eval_field,
        "score_alpha": options.score_alpha,
        "score_gate": None
        if gate is None
        else {
            "tolerance_points": gate.tolerance_points,
            "tolerances": [[name, value] for name, value in gate.tolerances],
        },
        "max_record_bytes": caps.record_bytes,
        "max_document_bytes": caps.document_bytes,
    }


def rerun_options(settings: object, name: str) -> tuple[CompareOptions, bounded.Caps]:
    """The options and caps a `rerun` object records; InputError naming the field that cannot
    be read (never a default in its place)."""
    if not isinstance(settings, Mapping):
        raise InputError(f"{name}: rerun is not an object")
    try:
        gate = settings["score_gate"]
        options = CompareOptions(
            key=optional_text(settings["key"]),
            by_order=flag(settings["by_order"]),
            allow_unpaired=flag(settings["allow_unpaired"]),
            normalize=tuple(Normalization(n) for n in settings["normalize"]),
            include_volatile=flag(settings["include_volatile"]),
            ignore_fields=tuple(text(f) for f in settings["ignore_fields"]),
            logprob_tol=_number(settings["logprob_tol"]),
            near_tie=_number(settings["near_tie"]),
            text_field=optional_text(settings["text_field"]),
            tokens_field=optional_text(settings["tokens_field"]),
            beam=_count(settings["beam"]),
            lm_eval_field=text(settings["lm_eval_field"]),
            score_alpha=_number(settings["score_alpha"]),
            score_gate=None
            if gate is None
            else GateOptions(
                _number(gate["tolerance_points"]),
                tuple((text(n), _number(v)) for n, v in gate["tolerances"]),
            ),
        )
        caps = bounded.Caps(
            _count(settings["max_record_bytes"]), _count(settings["max_document_bytes"])
        )
    except KeyError as exc:  # a field this version records, deleted (or a document too old)
        raise InputError(f"{name}: rerun lacks its {exc.args[0]!r} field") from None
    except (TypeError, ValueError) as exc:
        raise InputError(f"{name}: rerun cannot be read ({type(exc).__name__}: {exc})") from None
    return options, caps


def _number(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{value!r} is not a number")
    return float(value)


def _count(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise TypeError(f"{value!r} is not a count")
    return value
