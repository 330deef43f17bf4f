"""The `error` record shape: a failed request, whose record holds the server's error instead of
a response (compared as status `error`: a failed request never matches, not even another).

A record failed when it carries a non-empty `error` (an OpenAI error object, a Batch output
line whose request failed, a k3diff sample, an SSE error event or cut stream), when its wrapped
response body is an error, or when its wrapped response names an HTTP status that is not a
success: an OpenAI Batch output line (`{"custom_id", "response": {"status_code", "request_id",
"body"}, "error"}`) with `status_code` 500 failed whatever its body holds (review66: its body
was read and the status dropped, so a 500 beside the base's 200 compared equal, exit 0). The
`request_id` beside it is the server's id of the request, never compared.
"""

from __future__ import annotations

from typing import Any

from k3diff.responses.model import LoadOptions
from k3diff.responses.parts import (
    PROMPT_KEYS,
    Parts,
    canonical,
    first_choice,
    flat_params,
    request_params,
)

NO_ERROR: tuple[Any, ...] = (None, "", {})
"""`error` values that say nothing failed."""


def request_body(obj: dict[str, Any]) -> dict[str, Any] | None:
    """The request a wrapped record holds (`request.body`, or `request` itself), if any."""
    request = obj.get("request")
    if not isinstance(request, dict):
        return None
    body = request.get("body", request)
    return body if isinstance(body, dict) else None


def failed_status(response: dict[str, Any]) -> str | None:
    """`HTTP 500` when a wrapped response names a status that is not a success (2xx): any
    `status_code` it carries that is not an integer from 200 to 299; None when it names none."""
    if "status_code" not in response:
        return None
    status = response["status_code"]
    if type(status) is int:
        return None if 200 <= status < 300 else f"HTTP {status}"
    return f"HTTP status {canonical(status)}"


def _body_error(response: dict[str, Any]) -> Any:
    """The error a wrapped response without choices carries, itself or in its body."""
    if first_choice(response) is not None:
        return None
    body = response.get("body")
    if isinstance(body, dict) and first_choice(body) is None:
        response = body
    error = response.get("error")
    return None if error in NO_ERROR else error


def error_value(obj: dict[str, Any]) -> Any:
    """The error an object carries, itself or in its wrapped response; None if none."""
    if obj.get("error") not in NO_ERROR:
        return obj["error"]
    response = obj.get("response")
    if not isinstance(response, dict):
        return None
    error = _body_error(response)
    status = failed_status(response)
    if status is None:
        return error
    return status if error is None else f"{status}: {error_message(error)}"


def error_message(error: Any) -> str:
    """An error's message: its `message` when it has a text one, else the error itself."""
    message = error.get("message") if isinstance(error, dict) else error
    return message if isinstance(message, str) else canonical(error)


class ErrorShape:
    """A failed request: the record holds the server's error instead of a response."""

    name = "error"

    def claims(self, obj: dict[str, Any]) -> bool:
        return error_value(obj) is not None

    def extract(self, obj: dict[str, Any], where: str, options: LoadOptions) -> list[Parts]:
        request = request_body(obj)
        source = request or {}
        prompt_key = next((key for key in PROMPT_KEYS if key in obj), None)
        prompt = obj[prompt_key] if prompt_key else source.get("prompt", source.get("messages"))
        params = request_params(request) if request is not None else flat_params(obj)
        return [
            Parts(
                text="",
                id=obj.get("id"),
                prompt=prompt,
                error=error_message(error_value(obj)),
                request_params=params,
                stream=None if request is None else bool(request.get("stream", False)),
                request_complete=request is not None,
            )
        ]
