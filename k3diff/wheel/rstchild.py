"""reStructuredText rendered as twine check renders it, in a child process k3diff can stop.

docutils' time and memory are not bounded by the text's length: a substitution whose definition
holds a thousand references to another, used twenty times in one paragraph (4 KiB), took 15 s
CPU, each doubling of its uses four times that, and its nodes grow as uses × references (a
128 KiB one would need gigabytes). So `readme_renderer.rst.render` runs in a bare interpreter
(`python -I -S`, handed this process's import path) under `RENDER_SECONDS` of CPU and
`RENDER_MEMORY` of address space, killed past `_WALL_SECONDS`; one that does not answer is
`UNFINISHED` (the description is then unchecked, never passed). Where no child can be started
(a frozen application) or the child cannot import readme_renderer, it is rendered here, bounded
by `description.RENDER_LIMIT` alone."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from typing import Final

RENDER_SECONDS = 10
"""CPU seconds the child may render for: a real 126 KiB README takes under 0.5 s, the worst
hostile texts bounded by their length (auto-numbered or symbol footnotes, wide simple tables at
128 KiB) about 5 s."""

RENDER_MEMORY = 2 << 30
"""Bytes of address space the child may map (docutils on 128 KiB of footnotes: about 280 MB)."""

_WALL_SECONDS = 60
"""Wall-clock seconds before a child that has not answered is killed (a loaded machine)."""

UNFINISHED: Final = "\0unfinished"
"""The child ran out of time or memory, or died: the description is not checked."""

_CHILD = """\
import io, json, sys
try:
    import resource
    resource.setrlimit(resource.RLIMIT_CPU, (int(sys.argv[2]), int(sys.argv[2]) + 1))
    resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[3]), int(sys.argv[3])))
except (ImportError, OSError, ValueError):
    pass
sys.path[:0] = json.loads(sys.argv[1])
job = json.loads(sys.stdin.buffer.read())
try:
    from readme_renderer.rst import render
except ImportError:
    sys.stdout.write(json.dumps({"imported": False}))
    raise SystemExit
stream = io.StringIO()
answer = {"imported": True, "rendered": False, "error": None}
try:
    answer["rendered"] = render(job["text"], stream=stream, **job["params"]) is not None
except MemoryError:
    raise SystemExit(3)
except Exception as exc:
    answer["error"] = type(exc).__name__
answer["said"] = stream.getvalue()[:4096]
sys.stdout.write(json.dumps(answer))
"""


def render(text: str, params: tuple[tuple[str, str], ...]) -> tuple[bool, str | None, str] | str:
    """(rendered, the exception's name or None, what docutils said) for `text` rendered with
    `params` (the content type's, passed on as twine passes them), or `UNFINISHED`."""
    if not sys.executable or getattr(sys, "frozen", False):  # no interpreter to run
        return _render_here(text, params)
    path = json.dumps([entry for entry in sys.path if entry])
    command = [sys.executable, "-I", "-S", "-c", _CHILD, path, str(RENDER_SECONDS)]
    try:
        process = subprocess.Popen(
            [*command, str(RENDER_MEMORY)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
    except (OSError, ValueError, subprocess.SubprocessError):
        return _render_here(text, params)
    job = json.dumps({"text": text, "params": dict(params)}).encode("ascii")
    try:
        out, _ = process.communicate(job, timeout=_WALL_SECONDS)
    except subprocess.TimeoutExpired:
        return UNFINISHED
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()
    try:
        answer = json.loads(out)
    except ValueError:  # killed past its CPU or memory, or died
        return UNFINISHED
    if not isinstance(answer, dict) or not answer.get("imported"):
        return _render_here(text, params)
    return bool(answer["rendered"]), answer["error"], str(answer["said"])


def _render_here(
    text: str, params: tuple[tuple[str, str], ...]
) -> tuple[bool, str | None, str] | str:
    """`render` in this process: docutils imported only here."""
    from readme_renderer.rst import render as render_rst

    stream = io.StringIO()
    try:
        rendered = render_rst(text, stream=stream, **dict(params))
    except Exception as exc:  # RecursionError, TypeError (a parameter named `raw`), docutils
        return False, type(exc).__name__, stream.getvalue()
    return rendered is not None, None, stream.getvalue()
