"""Record shapes of what inference engines write themselves (not the OpenAI server shapes).

- vLLM ``RequestOutput`` (``LLM.generate`` dumped as JSON): ``request_id``, ``prompt``,
  ``prompt_token_ids``, ``outputs: [{index, text, token_ids, cumulative_logprob, logprobs,
  finish_reason, stop_reason}]``, ``finished``, ``metrics``, ``num_cached_tokens``. One record
  per output (``KEY#i`` when there are several). ``request_id`` is the engine's own counter, so it
  is never a client key; ``metrics`` and ``num_cached_tokens`` are run state;
  ``cumulative_logprob`` is implied by the per-token logprobs and compared through them.
- TensorRT-LLM batch records: ``text`` a list with one string per beam, ``output_ids`` a list of
  token-id lists per beam (or one list); beam 0 unless ``--beam N``.
- SGLang ``/generate``: ``text``, ``output_ids``, ``meta_info`` (``id``, ``finish_reason:
  {"type"}``, ``prompt_tokens``, ``completion_tokens``, ``cached_tokens``, ``e2e_latency``,
  ``output_token_logprobs``, ``output_top_logprobs``).
- ``--text-field PATH`` / ``--tokens-field PATH``: any other layout.
"""

from __future__ import annotations

from typing import Any

from k3diff.errors import ResponseFormatError
from k3diff.responses.logprobs import from_sglang, from_vllm
from k3diff.responses.model import LoadOptions
from k3diff.responses.parts import (
    CLIENT_KEY_FIELDS,
    MISSING,
    PROMPT_KEYS,
    Parts,
    flat_params,
    lookup,
    without,
)


def _prompt(obj: dict[str, Any]) -> Any:
    key = next((k for k in PROMPT_KEYS if obj.get(k) is not None), None)
    return None if key is None else obj[key]


class VllmShape:
    """A vLLM ``RequestOutput``."""

    name = "vllm"

    def claims(self, obj: dict[str, Any]) -> bool:
        outputs = obj.get("outputs")
        return (
            isinstance(outputs, list)
            and bool(outputs)
            and all(isinstance(o, dict) and "text" in o for o in outputs)
        )

    def extract(self, obj: dict[str, Any], where: str, options: LoadOptions) -> list[Parts]:
        outputs: list[dict[str, Any]] = obj["outputs"]
        head = without(obj, "outputs", "prompt", "prompt_token_ids", "prompt_logprobs")
        run_state: dict[str, Any] = {
            name: head.pop(name) for name in ("metrics", "num_cached_tokens") if name in head
        }
        head.pop("request_id", None)
        parts = []
        for position, output in enumerate(outputs):
            text = output.get("text")
            if not isinstance(text, str):
                raise ResponseFormatError(
                    f"{where}: outputs[{position}].text is "
                    + ("null" if text is None else "not a string")
                )
            number = output.get("index", position) if len(outputs) > 1 else None
            rest = without(
                output,
                "index",
                "text",
                "token_ids",
                "logprobs",
                "finish_reason",
                "cumulative_logprob",
            )
            parts.append(
                Parts(
                    text=text,
                    id=obj.get("request_id"),
                    prompt=obj.get("prompt"),
                    token_ids=output.get("token_ids"),
                    trace=from_vllm(output.get("logprobs"), output.get("token_ids"), where),
                    finish_reason=output.get("finish_reason"),
                    other={**head, "output": rest},
                    request_params={},
                    client_keyable=False,
                    choice=number if isinstance(number, int) else position,
                    run_state=dict(run_state),
                )
            )
        if len(outputs) == 1:
            parts[0].choice = None
        return parts


class TrtllmShape:
    """A TensorRT-LLM batch record: one text and one token-id list per beam."""

    name = "trtllm"

    def claims(self, obj: dict[str, Any]) -> bool:
        text = obj.get("text")
        return isinstance(text, list) and bool(text) and all(isinstance(t, str) for t in text)

    def extract(self, obj: dict[str, Any], where: str, options: LoadOptions) -> list[Parts]:
        texts: list[str] = obj["text"]
        beam = options.beam
        if beam >= len(texts):
            raise ResponseFormatError(
                f"{where}: record has {len(texts)} beam(s); --beam {beam} is not among them"
            )
        ids = obj.get("output_ids")
        if isinstance(ids, list) and ids and all(isinstance(b, list) for b in ids):
            if beam >= len(ids):
                raise ResponseFormatError(
                    f"{where}: output_ids has {len(ids)} beam(s); --beam {beam} is not among them"
                )
            ids = ids[beam]
        taken = ("text", "output_ids", "id", "finish_reason", *PROMPT_KEYS, *CLIENT_KEY_FIELDS)
        return [
            Parts(
                text=texts[beam],
                id=obj.get("id"),
                prompt=_prompt(obj),
                token_ids=ids,
                finish_reason=_beam_value(obj.get("finish_reason"), beam),
                other={**without(obj, *taken), "beam": beam},
                request_params=flat_params(obj),
                beams=len(texts),
            )
        ]


def _beam_value(value: Any, beam: int) -> Any:
    if isinstance(value, list):
        return value[beam] if beam < len(value) else None
    return value


class SglangShape:
    """An SGLang ``/generate`` answer."""

    name = "sglang"

    def claims(self, obj: dict[str, Any]) -> bool:
        return isinstance(obj.get("meta_info"), dict) and isinstance(obj.get("text"), str)

    def extract(self, obj: dict[str, Any], where: str, options: LoadOptions) -> list[Parts]:
        meta: dict[str, Any] = obj["meta_info"]
        finish = meta.get("finish_reason")
        if isinstance(finish, dict):
            finish = finish.get("type")
        usage = {k: meta[k] for k in ("prompt_tokens", "completion_tokens") if k in meta}
        trace = from_sglang(
            meta.get("output_token_logprobs"), meta.get("output_top_logprobs"), where
        )
        meta_rest = without(
            meta,
            "id",
            "finish_reason",
            "prompt_tokens",
            "completion_tokens",
            "output_token_logprobs",
            "output_top_logprobs",
            "input_token_logprobs",
            "input_top_logprobs",
        )
        if isinstance(meta.get("finish_reason"), dict):
            meta_rest["finish_reason"] = without(meta["finish_reason"], "type")
        taken = ("text", "output_ids", "meta_info", *PROMPT_KEYS, *CLIENT_KEY_FIELDS)
        return [
            Parts(
                text=obj["text"],
                id=meta.get("id"),
                prompt=_prompt(obj),
                token_ids=obj.get("output_ids"),
                trace=trace,
                finish_reason=finish,
                usage=usage or None,
                other={**without(obj, *taken), "meta_info": meta_rest},
                request_params=flat_params(obj),
            )
        ]


def _at(obj: dict[str, Any], path: tuple[str, ...], option: str, where: str) -> Any:
    value = lookup(obj, path)
    if value is MISSING:
        raise ResponseFormatError(f"{where}: no field '{'.'.join(path)}' ({option})")
    return value


def tokens_at(obj: dict[str, Any], path: tuple[str, ...], where: str) -> Any:
    """The token ids at `--tokens-field`."""
    return _at(obj, path, "--tokens-field", where)


def field_parts(obj: dict[str, Any], where: str, options: LoadOptions) -> Parts:
    """A record read with `--text-field` (and `--tokens-field`)."""
    assert options.text_field is not None
    path = options.text_field
    text = _at(obj, path, "--text-field", where)
    if text is None:
        raise ResponseFormatError(f"{where}: text is null (field '{'.'.join(path)}')")
    if not isinstance(text, str):
        raise ResponseFormatError(f"{where}: field '{'.'.join(path)}' is not a string")
    tokens = None if options.tokens_field is None else tokens_at(obj, options.tokens_field, where)
    heads = {path[0], *(options.tokens_field or ())[:1]}
    taken = (*heads, "id", "logprobs", "finish_reason", "usage", *PROMPT_KEYS, *CLIENT_KEY_FIELDS)
    return Parts(
        text=text,
        id=obj.get("id"),
        prompt=_prompt(obj),
        token_ids=tokens,
        logprobs=obj.get("logprobs"),
        finish_reason=obj.get("finish_reason"),
        usage=obj.get("usage"),
        other=without(obj, *taken),
        request_params=flat_params(obj),
    )
