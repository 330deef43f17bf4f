"""lm-evaluation-harness samples lines in the two layouts lm-eval has written.

0.4.0-0.4.2: `arguments` is a list of argument lists, no hashes, no `filter`, responses keep
their numbers and booleans. 0.4.3 and later: `arguments` is `{"gen_args_i": {"arg_j": ...}}`,
with `doc_hash`, `prompt_hash`, `target_hash` (each as lm-eval computes it), `filter`,
`metrics`, the target written as `str(target)`, and every response written as a string
(`["-5.8694", "False"]`).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any


def _hash(text: str) -> str:
    """lm-eval's `hash_string` (lm_eval/utils.py): SHA-256 of the UTF-8 text, in hex."""
    return hashlib.sha256(text.encode()).hexdigest()


def doc_hash(doc: Any) -> str:
    """lm-eval's `doc_hash` (lm_eval/evaluator.py): the doc's JSON, indented by 2, hashed."""
    return _hash(json.dumps(doc, indent=2, ensure_ascii=False))


def target_hash(target: Any) -> str:
    """lm-eval's `target_hash`: `str(target)` hashed."""
    return _hash(str(target))


def generate_current(
    doc_id: int, context: str, generations: list[str], filtered: str, filt: str, score: float
) -> dict[str, Any]:
    """A generate_until sample (repeats = len(generations)), lm-eval >= 0.4.3."""
    doc = {"question": context, "answer": "42"}  # the dataset row, not the output
    return {
        "doc_id": doc_id,
        "doc": doc,
        "target": "42",
        "arguments": {
            "gen_args_0": {"arg_0": context, "arg_1": {"until": ["\n\n"], "do_sample": False}}
        },
        "resps": [generations],
        "filtered_resps": [filtered],
        "filter": filt,
        "metrics": ["exact_match"],
        "doc_hash": doc_hash(doc),
        "prompt_hash": _hash(context),
        "target_hash": target_hash("42"),
        "exact_match": score,
    }


def generate_old(doc_id: int, context: str, generation: str, score: float) -> dict[str, Any]:
    """A generate_until sample as lm-eval 0.4.0-0.4.2 wrote it."""
    return {
        "doc_id": doc_id,
        "doc": {"question": context},
        "target": "42",
        "arguments": [[context, {"until": ["\n\n"]}]],
        "resps": [[generation]],
        "filtered_resps": [generation],
        "exact_match": score,
    }


def loglikelihood_current(
    doc_id: int, context: str, choices: list[tuple[float, bool]], acc: float
) -> dict[str, Any]:
    """A multiple-choice (MMLU-like) sample, lm-eval >= 0.4.3: one request per choice."""
    letters = [" A", " B", " C", " D"]
    doc = {"question": context, "choices": letters[: len(choices)], "answer": 0}
    return {
        "doc_id": doc_id,
        "doc": doc,
        "target": "0",  # written as `str(target)`
        "arguments": {
            f"gen_args_{n}": {"arg_0": context, "arg_1": letters[n]} for n in range(len(choices))
        },
        "resps": [[[str(ll), str(greedy)]] for ll, greedy in choices],
        "filtered_resps": [[str(ll), str(greedy)] for ll, greedy in choices],
        "filter": "none",
        "metrics": ["acc"],
        "doc_hash": doc_hash(doc),
        "prompt_hash": _hash(context),
        "target_hash": target_hash(0),
        "acc": acc,
    }


def loglikelihood_old(
    doc_id: int, context: str, choices: list[tuple[float, bool]], acc: float
) -> dict[str, Any]:
    """The same sample as lm-eval 0.4.0-0.4.2 wrote it (numbers and booleans kept)."""
    letters = [" A", " B", " C", " D"]
    return {
        "doc_id": doc_id,
        "doc": {"question": context},
        "target": 0,
        "arguments": [[context, letters[n]] for n in range(len(choices))],
        "resps": [[[ll, greedy]] for ll, greedy in choices],
        "filtered_resps": [[ll, greedy] for ll, greedy in choices],
        "acc": acc,
    }


def bleu_row(doc_id: int, bleu: float) -> dict[str, Any]:
    """A generate_until sample scored by a continuous metric (`bleu`) alone."""
    row = generate_current(doc_id, f"Translate sentence {doc_id}.", ["Bonjour."], "x", "none", 0.0)
    del row["exact_match"]
    row["metrics"] = ["bleu"]
    row["bleu"] = bleu
    return row
