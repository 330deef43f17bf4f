"""The requests a `k3diff sample` run sends: each prompt's body per side, and the template
the log header records (what the run adds to every prompt's request)."""

from __future__ import annotations

from typing import Any

from k3diff.sample.model import Endpoint, PromptRecord, SampleOptions


def request_bodies(
    options: SampleOptions, records: list[PromptRecord], models: dict[str, Any]
) -> dict[tuple[str, str], dict[str, Any]]:
    """Per side and record, the request body every repeat sends: the prompt's fields, then
    `--param`, then the side's own, the server's first model where none is named, and the
    stream fields with `--stream`."""
    bodies = {}
    for side, listing in models.items():
        default_model = first_model(listing)
        for record in records:
            body = sent_fields(options, record, side)
            if "model" not in body and default_model is not None:
                body["model"] = default_model
            if options.stream:
                body["stream"] = True
                body["stream_options"] = {"include_usage": True}
            bodies[(side, record.key)] = body
    return bodies


def sent_fields(options: SampleOptions, record: PromptRecord, side: str) -> dict[str, Any]:
    """The request's fields as sent to `side`: its own (a prompts file or capture carrying its
    temperature) under `--param` and the side's own (`--base-param`, `--patch-param`), as
    triage reads each line's (the server's default model and the stream fields aside)."""
    return {**record.body, **options.params, **options.side_params.get(side, {})}


def request_template(
    options: SampleOptions, endpoint: Endpoint, models: dict[str, Any]
) -> dict[str, Any]:
    """What the run adds to every prompt's request: route, fields and each side's default
    model (used when a prompt names none)."""
    fields: dict[str, Any] = dict(options.params)
    if options.stream:
        fields |= {"stream": True, "stream_options": {"include_usage": True}}
    return {
        "path": endpoint.path,
        "fields": fields,
        "default_model": {side: first_model(listing) for side, listing in models.items()},
        "cache_salt": options.cache_salt,
    }


def first_model(listing: Any) -> str | None:
    """The first model a server's /v1/models lists (used when the request names none)."""
    data = listing.get("data") if isinstance(listing, dict) else None
    if isinstance(data, list) and data and isinstance(data[0], dict):
        model = data[0].get("id")
        return model if isinstance(model, str) else None
    return None
