"""Builders for triage inputs: real captures compared by the real `k3diff responses`, and sample
logs written exactly as /work/notes/SAMPLES_CONTRACT.md (`k3diff.samples/1`) describes them."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cli_support import run_k3diff

from k3diff.responses.model import text_digest


def completion(rid: str, text: str, logprobs: dict[str, Any] | None = None) -> dict[str, Any]:
    """A /v1/completions response as a server returns it."""
    return {
        "id": rid,
        "object": "text_completion",
        "created": 1_700_000_000,
        "model": "m",
        "choices": [{"index": 0, "text": text, "logprobs": logprobs, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 5, "total_tokens": 8},
    }


def compare(tmp_path: Path, base: list[dict[str, Any]], patch: list[dict[str, Any]]) -> Path:
    """Write both captures and run `k3diff responses --format json`; returns the comparison."""
    for name, rows in (("base", base), ("patch", patch)):
        (tmp_path / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = run_k3diff(
        "responses",
        "base.jsonl",
        "patch.jsonl",
        "--format",
        "json",
        "-o",
        "cmp.json",
        cwd=tmp_path,
    )
    assert result.exit_code in (0, 1), result.stderr
    return tmp_path / "cmp.json"


def compare_texts(tmp_path: Path, captured: dict[str, tuple[str, str]]) -> Path:
    """A comparison of captures whose texts are given per key as (base, patch)."""
    base = [completion(key, texts[0]) for key, texts in captured.items()]
    patch = [completion(key, texts[1]) for key, texts in captured.items()]
    return compare(tmp_path, base, patch)


@dataclass(frozen=True)
class S:
    """One sample to write: text None means the request failed."""

    side: str
    key: str
    text: str | None
    mode: str = "serial"
    finish: str | None = "stop"
    """The finish_reason logged with a text."""
    status: int | None = None
    """The HTTP status logged with a failure (None: no answer arrived)."""
    error: str = "ConnectError: connection refused"
    """The error logged with a failure."""


def write_samples(
    path: Path,
    samples: list[S],
    modes: tuple[str, ...] = ("serial",),
    params: dict[str, Any] | None = None,
    run_id: str | None = None,
    gauge: int | None = None,
    models: dict[str, str] | None = None,
) -> Path:
    """A `k3diff.samples/1` log: the header line, then one line per sample (repeats numbered
    per side/key/mode in list order). `params` (default temperature 0) go into the header and
    every request body, hence into `request_sha256`. Each log is a run of its own (a `run_id`
    made from its directory and name, so goldens stay stable) unless `run_id` says otherwise.
    A batched mode's samples carry no batch or timing (their modes are unproven) unless
    `gauge`: then each side, key and mode's samples are one batch the server's running-requests
    gauge read at `gauge`. Each answer names the model `models` gives its side (default `m`,
    the model `completion` captures name)."""
    params = {"temperature": 0} if params is None else params
    modes = tuple(dict.fromkeys((*modes, *(s.mode for s in samples))))
    slots = Counter((s.side, s.key, s.mode) for s in samples)
    owed = max(slots.values(), default=3)
    header = {
        "schema": "k3diff.samples/1",
        "run": {
            "run_id": run_id
            or hashlib.sha256(f"{path.parent.name}/{path.name}".encode()).hexdigest()[:32],
            "command": ["k3diff", "sample", "--base", "http://127.0.0.1:1", "--repeats", str(owed)],
            "servers": {"base": "http://127.0.0.1:1", "patch": "http://127.0.0.1:2"},
            "modes": list(modes),
            "endpoint": "completions",
            "stream": False,
            "params": params,
            "repeats": owed,  # what each side owes (samples71), as its command says
            "concurrency": 1,
            "k3diff_version": "0.1.0",
            "started": "2025-01-01T00:00:00Z",
            "keys": list(dict.fromkeys(s.key for s in samples)),
            "log_format": 2,
            "connects_to": {  # where each side connected (no address: names decide)
                "base": {"url": "http://127.0.0.1:1", "addresses": []},
                "patch": {"url": "http://127.0.0.1:2", "addresses": []},
            },
        },
    }
    lines = [json.dumps(header)]
    repeats: dict[tuple[str, str, str], int] = {}
    for sample in samples:
        ident = (sample.side, sample.key, sample.mode)
        repeat = repeats.get(ident, 0)
        repeats[ident] = repeat + 1
        body = {"model": "m", "prompt": sample.key, "max_tokens": 16, **params}
        failed = sample.text is None
        lines.append(
            json.dumps(
                {
                    "side": sample.side,
                    "key": sample.key,
                    "mode": sample.mode,
                    "repeat": repeat,
                    "request_sha256": hashlib.sha256(
                        json.dumps(body, sort_keys=True, separators=(",", ":")).encode()
                    ).hexdigest(),
                    "status": sample.status if failed else 200,
                    "text": sample.text,
                    "text_xxh3": None if sample.text is None else text_digest(sample.text),
                    "token_ids_xxh3": None,
                    "finish_reason": None if failed else sample.finish,
                    "usage": None if failed else {"prompt_tokens": 3, "completion_tokens": 5},
                    "latency_s": 0.01,
                    "fingerprint": None,
                    "error": sample.error if failed else None,
                    "attempts": 3 if failed else 1,
                    # the model `completion` captures name: a sample counts only for its model
                    **({} if failed else {"model": (models or {}).get(sample.side, "m")}),
                    "started": 1_735_689_601.0,
                    **(
                        {}
                        if gauge is None or sample.mode == "serial"
                        else {
                            "batch": f"{sample.side}:{sample.key}:{sample.mode}",
                            "in_flight": gauge,
                            "server_running": gauge,
                            "overlap_proof": "gauge",
                        }
                    ),
                }
            )
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def side(key: str, which: str, texts: Sequence[str | None], mode: str = "serial") -> list[S]:
    """Samples of one side and key, in request order."""
    return [S(which, key, text, mode) for text in texts]


def triage_greedy(
    tmp_path: Path, cases: Mapping[str, tuple[Sequence[str | None], Sequence[str | None]]]
) -> dict[str, Any]:
    """Triage (JSON) of records whose base and patch serial outputs are given per key (None: a
    failed request): the comparison captures each side's first output; the document's "exit"
    is triage's exit code."""
    first = {
        key: tuple(next(t for t in texts if t is not None) for texts in c)
        for key, c in cases.items()
    }
    compare_texts(tmp_path, {key: (texts[0], texts[1]) for key, texts in first.items()})
    samples = [
        S(side, key, text)
        for key, (base, patch) in cases.items()
        for side, texts in (("base", base), ("patch", patch))
        for text in texts
    ]
    write_samples(tmp_path / "run" / "samples.jsonl", samples)
    result = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--format", "json", "-o", "t.json", cwd=tmp_path
    )
    assert result.exit_code in (0, 1), result.stderr
    document: dict[str, Any] = json.loads((tmp_path / "t.json").read_text())
    document["exit"] = result.exit_code
    return document


def without_added_after(document: dict[str, Any], field: str) -> dict[str, Any]:
    """`document` without the fields triage added within `k3diff.triage/1` after `field`
    (`bundle.rederive.ADDED`: top-level, `summary.` or `runs[].` ones), as a triage written
    before them: a document lacking `field` lacks every one added after it too."""
    from k3diff.bundle.rederive import ADDED

    for path in ADDED[ADDED.index(field) + 1 :]:
        *parents, name = path.split(".")
        holders: list[Any] = [document]
        for parent in parents:
            holders = [h[parent.removesuffix("[]")] for h in holders]
            if parent.endswith("[]"):
                holders = [item for items in holders for item in items]
        for held in holders:
            del held[name]
    return document


def given_side_params(run: dict[str, Any], sent: dict[str, dict[str, Any]]) -> None:
    """A header's `run` object given `side_params` `sent` as `--base-param`/`--patch-param`
    give them: in `side_params` and in its recorded command (review71c reads one against the
    other)."""
    run["side_params"] = sent
    for side, fields in sent.items():
        for name, value in fields.items():
            run["command"] += [f"--{side}-param", f"{name}={json.dumps(value)}"]


COUNTERS_UNCHECKED = "was not checked by the servers' counters"
"""What the qualification of a run whose servers expose no request counter says (samples72: the
fault server without `--metrics`), or whose header records no such check (samples73: the logs
`write_samples` writes, of log_format 2): one server at two addresses not ruled out."""


def besides_counters(qualifications: list[str]) -> list[str]:
    """The qualifications but that one, which every run of two fault servers without
    `/metrics` carries."""
    return [q for q in qualifications if COUNTERS_UNCHECKED not in q]


def sampled_identity(tmp_path: Path, base: str, patch: str, out: str) -> dict[str, Any]:
    """One run of `k3diff sample` of `p.jsonl` in `tmp_path` (1 repeat, no control; exit 0):
    its header's `server_identity`, what the one-server check found."""
    result = run_k3diff(
        "sample", "--base", base, "--patch", patch, "--prompts", "p.jsonl", "--repeats", "1",
        "--control", "off", "--out", out, cwd=tmp_path,
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    header = json.loads((tmp_path / out / "samples.jsonl").read_text().splitlines()[0])["run"]
    identity: dict[str, Any] = header["server_identity"]
    return identity
