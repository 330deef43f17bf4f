"""Reads the prompts to sample: a JSONL of requests, or any responses file `k3diff responses` reads.

A requests file has one JSON object per line holding `prompt` or `messages`, any other request
fields (max_tokens, temperature, seed, ...) and optionally a `key` (or `custom_id`,
`request_id`) or an `id`; or OpenAI Batch input lines (`custom_id`, `method`, `url` and the
request in `body`), the file a Batch run was given. A responses file lends its requests (a flat record: its prompt and the
parameters beside it, as `k3diff responses` reads its condition). Either way the keys come from the
one default pairing rule `k3diff responses` uses (`k3diff.responses.pairing.default_keys`): the
client key field when every record has one, else the prompt's xxh3-128, else the ids — so
samples join that comparison by key.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from k3diff import bounded
from k3diff.errors import InputError, ResponseFormatError
from k3diff.responses import recordcap
from k3diff.responses.lmevalinputs import first_context
from k3diff.responses.loaders import load_side, pick_loader, read_head
from k3diff.responses.model import LoadOptions, record_label, text_digest
from k3diff.responses.pairing import default_keys
from k3diff.responses.parts import CLIENT_KEY_FIELDS, PROMPT_KEYS, flat_params
from k3diff.responses.shapes import FLAT_TEXT_KEYS, preview
from k3diff.sample.model import Endpoint, PromptRecord
from k3diff.sample.options import CONTROLLED_FIELDS
from k3diff.sampling_params import SAMPLING_KNOBS, boolean_number, non_finite

RESPONSE_MARKERS = ("choices", "response", "resps", *FLAT_TEXT_KEYS)
"""Fields that make a record a captured response rather than a request."""
SENT_FLAT_FIELDS = (
    "max_tokens",
    "max_completion_tokens",
    "temperature",
    *SAMPLING_KNOBS,
    "seed",
    "stop",
    "presence_penalty",
    "frequency_penalty",
    "n",
)
"""The parameters of a flat capture record (`flat_params`) sent beside its prompt: the OpenAI
request fields k3diff knows (length, temperature and the sampling knobs of
`k3diff.sampling_params`, seed, stop, penalties). An engine's own field (`max_new_tokens`,
`repetition_penalty`, `sampling_params`) is refused, not sent: an OpenAI-compatible server
ignores what it does not know without a word, so the samples would not repeat the capture's
condition while their logged parameters said they did. `max_new_tokens` is not renamed
`max_tokens`: the engines whose records carry it (SGLang's `sampling_params`, Hugging Face,
TGI) may stop on other limits (`max_length`, a minimum of new tokens) that no OpenAI field
names, and triage compares the capture's fields by name."""

_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def prompt_digest(prompt: Any) -> str:
    """xxh3-128 of a prompt exactly as `k3diff responses` hashes one (its prompt-hash key)."""
    return text_digest(prompt if isinstance(prompt, str) else _CANONICAL.encode(prompt))


def read_prompts(path: Path) -> list[PromptRecord]:
    """Every request of the prompts file, in file order; keys are unique."""
    display = str(path)
    if not path.exists():
        raise InputError(f"{display}: no such file")
    head = read_head(path, display)
    first = head.first_object
    if first is not None and (_is_request(first) or _batch_body(first) is not None):
        records = _request_lines(path, display)
    else:
        records = _from_responses(path, display)
    _check_unique(records, display)
    for record in records:
        if (problem := boolean_number(record.body) or non_finite(record.body)) is not None:
            raise InputError(f"{record.where}: {problem}: give the number the request means")
    return records


def infer_endpoint(records: list[PromptRecord]) -> Endpoint:
    """Chat when the requests hold messages, completions when they hold prompts; never mixed."""
    chat = {("messages" in r.body) for r in records}
    if len(chat) > 1:
        where = next(r.where for r in records if "messages" not in r.body)
        raise InputError(f"{where}: mixes prompt and messages requests; pass --endpoint")
    return Endpoint.CHAT if chat == {True} else Endpoint.COMPLETIONS


def check_endpoint(records: list[PromptRecord], endpoint: Endpoint) -> None:
    """Every request carries what the endpoint needs."""
    field = "messages" if endpoint is Endpoint.CHAT else "prompt"
    for record in records:
        if field not in record.body:
            raise InputError(f"{record.where}: no '{field}' for the {endpoint.value} endpoint")


def _is_request(obj: dict[str, Any]) -> bool:
    return ("prompt" in obj or "messages" in obj) and not any(k in obj for k in RESPONSE_MARKERS)


_BATCH_URLS = {"/v1/chat/completions": "messages", "/v1/completions": "prompt"}
"""An OpenAI Batch input line's `url`, and the body field that endpoint needs."""


def _batch_body(obj: dict[str, Any]) -> dict[str, Any] | None:
    """The request of an OpenAI Batch input line (`{"custom_id", "method", "url", "body"}`, as
    the Batch API reads its input file), None when `obj` is not one."""
    body = obj.get("body")
    if "url" not in obj or not isinstance(body, dict) or any(k in obj for k in RESPONSE_MARKERS):
        return None
    return body


def _batch_request(obj: dict[str, Any], where: str) -> dict[str, Any]:
    """A Batch input line read as a request line: its body, named by its `custom_id`; a line for
    another endpoint, or whose body is not the endpoint's, is refused."""
    body = _batch_body(obj)
    if body is None:
        raise ResponseFormatError(f"{where}: a Batch input line needs 'url' and a 'body' object")
    url, needed = obj.get("url"), _BATCH_URLS.get(str(obj.get("url")))
    if obj.get("method", "POST") != "POST" or needed is None:
        raise ResponseFormatError(
            f"{where}: a Batch input line for {json.dumps(obj.get('method'))} {json.dumps(url)}; "
            "k3diff sample sends POST /v1/chat/completions or /v1/completions requests"
        )
    if needed not in body:
        raise ResponseFormatError(
            f"{where}: a Batch input line for {url} whose body has no '{needed}'"
        )
    if "custom_id" in body:
        raise ResponseFormatError(f"{where}: a Batch input line whose body holds a custom_id too")
    return {**body, "custom_id": obj.get("custom_id")}


@dataclass
class _Columns:
    """One file's key columns, as `default_keys` reads them."""

    display: str
    wheres: list[str] = field(default_factory=list)
    ids: list[str | None] = field(default_factory=list)
    client_keys: list[str | None] = field(default_factory=list)
    client_fields: set[str | None] = field(default_factory=set)
    prompts: list[str | None] = field(default_factory=list)

    def where(self, position: int) -> str:
        return self.wheres[position]

    def add(self, where: str, rid: Any, client: tuple[Any, str | None], prompt: str | None) -> None:
        self.wheres.append(where)
        self.ids.append(_text(rid))
        self.client_keys.append(_text(client[0]))
        self.client_fields.add(client[1])
        self.prompts.append(prompt)

    def keys(self) -> list[str]:
        choice = default_keys([self])
        keys = choice.column(self)
        for position, key in enumerate(keys):
            if key is None:
                raise InputError(f"{self.wheres[position]}: no {choice.mode.value} key")
        return [key for key in keys if key is not None]


def _label(client: Any, rid: Any, prompt: Any) -> str | None:
    """How the user names a request: its client key, its `id` (a prompts file is written by the
    user), else the prompt's first characters."""
    for value in (client, rid):
        if value is not None and not isinstance(value, dict | list | bool):
            return _text(value)
    if prompt is None:
        return None
    return preview(prompt if isinstance(prompt, str) else _CANONICAL.encode(prompt))


def _text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value)


def _client(obj: dict[str, Any]) -> tuple[Any, str | None]:
    name = next((n for n in CLIENT_KEY_FIELDS if obj.get(n) is not None), None)
    return (None, None) if name is None else (obj[name], name)


def _request_lines(path: Path, display: str) -> list[PromptRecord]:
    columns = _Columns(display)
    bodies: list[dict[str, Any]] = []
    labels: list[str | None] = []
    for lineno, raw in bounded.file_lines(path, display, "prompts file"):
        if not raw.strip():
            continue
        where = f"{display}:{lineno}"
        if len(bodies) >= recordcap.MAX_RECORDS:  # before the request is kept
            raise recordcap.past_side_cap(display, f"line {lineno}", "prompts")
        obj = _loads(raw.removeprefix(UTF8_BOM) if lineno == 1 else raw, where)
        if "body" in obj and "url" in obj:
            obj = _batch_request(obj, where)
        if not _is_request(obj):
            raise ResponseFormatError(f"{where}: a request needs 'prompt' or 'messages'")
        client = _client(obj)
        dropped = {"id", client[1] or "key", *CONTROLLED_FIELDS}
        bodies.append({k: v for k, v in obj.items() if k not in dropped})
        sent = obj.get("messages", obj.get("prompt"))
        prompt = prompt_digest(sent)
        columns.add(where, obj.get("id"), client, prompt)
        labels.append(_label(client[0], obj.get("id"), sent))
    if not bodies:
        raise InputError(f"{display}: no prompts")
    keys = columns.keys()
    return [
        PromptRecord(key=key, body=body, where=where, label=label)
        for key, body, where, label in zip(keys, bodies, columns.wheres, labels, strict=True)
    ]


UTF8_BOM = bounded.BOM.encode()
"""A byte order mark before a prompts file's first line is read past, as for a responses file
(`bounded.BOM`)."""


def _loads(raw: bytes, where: str) -> dict[str, Any]:
    try:
        value = bounded.loads(raw, where)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ResponseFormatError(f"{where}: malformed JSON: {exc}") from exc
    if not isinstance(value, dict):
        raise ResponseFormatError(f"{where}: expected a JSON object")
    return value


def _from_responses(path: Path, display: str) -> list[PromptRecord]:
    side = load_side(path, display, LoadOptions())
    raws = _raw_objects(path, display, side.format)
    if len(raws) != len(side.records):
        raise InputError(f"{display}: responses with several choices hold no single request")
    columns = _Columns(display)
    bodies = []
    labels: list[str | None] = []
    for record, raw in zip(side.records, raws, strict=True):
        where = side.where(record)
        body = _request_of(raw, where)
        if body is None or record.prompt_digest is None:
            raise InputError(f"{where}: the record holds no prompt to send")
        bodies.append(body)
        labels.append(record_label(record))
        columns.add(
            where, record.id, (record.client_key, record.client_key_field), record.prompt_digest
        )
    keys = columns.keys()
    return [
        PromptRecord(key=key, body=body, where=where, label=label)
        for key, body, where, label in zip(keys, bodies, columns.wheres, labels, strict=True)
    ]


def _raw_objects(path: Path, display: str, format_name: str) -> list[dict[str, Any]]:
    if format_name in ("jsonl", "lm-eval"):
        return [
            _loads(raw.removeprefix(UTF8_BOM) if lineno == 1 else raw, f"{display}:{lineno}")
            for lineno, raw in bounded.file_lines(path, display, "prompts file")
            if raw.strip()
        ]
    if format_name in ("json-array", "document"):
        data = bounded.read_document(path, display, "prompts file")
        document = bounded.loads(data.decode("utf-8-sig"), display)
        if isinstance(document, dict):
            wrapped = next(
                (
                    document[k]
                    for k in ("responses", "records")
                    if isinstance(document.get(k), list)
                ),
                None,
            )
            return wrapped if wrapped is not None else [document]
        return list(document)
    loader = pick_loader(read_head(path, display))
    raise InputError(f"{display}: a {loader.name} file holds no requests to send")


def _request_of(raw: dict[str, Any], where: str) -> dict[str, Any] | None:
    request = raw.get("request")
    if isinstance(request, dict):
        body = request.get("body", request)
        if isinstance(body, dict) and ("prompt" in body or "messages" in body):
            return {k: v for k, v in body.items() if k not in CONTROLLED_FIELDS}
    for name in PROMPT_KEYS:
        if name in raw and raw[name] is not None:
            value = raw[name]
            sent = {"messages": value} if isinstance(value, list) else {"prompt": value}
            # the parameters a flat record carries are part of its request, as `responses`
            # reads them (its condition) and `triage` checks the samples against them
            return {**sent, **_sent_params(raw, where)}
    prompt = first_context(raw)
    return None if prompt is None else {"prompt": prompt}


def _sent_params(raw: dict[str, Any], where: str) -> dict[str, Any]:
    """A flat record's parameters to send (`SENT_FLAT_FIELDS`); an engine's own field, or
    several choices asked for, is refused in one line."""
    params = flat_params(raw)
    unsent = [name for name in params if name not in SENT_FLAT_FIELDS]
    if unsent:
        what = "is an engine's own field" if len(unsent) == 1 else "are engines' own fields"
        raise InputError(
            f"{where}: {', '.join(unsent)} {what}, which an OpenAI-compatible server ignores "
            "without a word: the samples would not repeat the capture's condition; give "
            "--prompts a file of OpenAI requests (e.g. max_tokens where the engine had "
            "max_new_tokens)"
        )
    n = params.get("n", 1)
    if type(n) is not int or n != 1:  # a JSON true or 1.0 is no count of 1 (True == 1 in Python)
        raise InputError(
            f"{where}: the capture asked for n = {json.dumps(n)} choices (only the integer 1 "
            "is one answer); k3diff sample takes one answer a request: give --prompts a file "
            "of requests without n"
        )
    return params


def _check_unique(records: list[PromptRecord], display: str) -> None:
    if not records:
        raise InputError(f"{display}: no prompts")
    seen: dict[str, str] = {}
    for record in records:
        if record.key in seen:
            raise InputError(
                f"{record.where}: key {record.key!r} repeats {seen[record.key]}; keys must be unique"
            )
        seen[record.key] = record.where
