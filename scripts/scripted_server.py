"""A scripted inference engine behind an OpenAI-compatible API, for `make demo` and the tests.

    python scripts/scripted_server.py --role base|patch --pid-file FILE [--script FILE] [--port N]

binds a free loopback port (or port N: `scripts/demo.py --grow` starts the demo's engines again
at the ports its run logged, `--answered` the requests per prompt they had answered, so that the
base goes on with its sequence of answers) and, once listening, writes `{"pid": ..., "port": ..., "url": ...}`
to FILE (atomically). It answers `GET /v1/models` and `POST /v1/completions` (and
`/v1/chat/completions`) for the prompts of `SCENARIO`, the seed scenario: 8 prompts, of which
the base engine answers 4 differently from one request to the next (its n-th answer to such a
prompt is the patch's answer when n is a multiple of 3, else the answer ending in "(draw n)"),
while the patch engine answers every prompt the same way each time. Prompts outside the
scenario are echoed, deterministically.

`--script FILE` (JSON `{"base": {PROMPT: {"alone": [...], "batched": [...]}}, "patch": ...}`,
a prompt's optional `"near_ties": [positions]` naming where its answers' top two words are
nearly tied in the logprobs a request with `logprobs` gets)
replaces the scenario with batching behaviour: a request that shares the server with no other
gets the next answer of its prompt's `alone` list, one that overlaps another request (they wait
`BATCH_WINDOW` seconds for company, as a batching engine does) the next of `batched` (each list
cycles; `batched` defaults to `alone`). A prompt given `"first": {TOKEN: PROBABILITY}` instead
samples: each answer is a first token drawn from that distribution (seeded by the prompt's
`"seed"`, default 0) followed by `"rest"`, answered at once, and a request with `logprobs: K`
gets that position's K most likely tokens from `"reported"` (default: `first`), so that an
engine can report one distribution and sample another.

`start(role, directory)` runs one as a child process and returns its pid and URL; `stop(pid)`
ends it. Whoever starts one stops it by that pid. `capture(urls, out)` stores one response per
prompt from each running server.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from openai_stub import JsonHandler, QuietServer, completion, models

MODEL = "scripted-engine"
ROLES = ("base", "patch")


@dataclass(frozen=True)
class Prompt:
    """One prompt of the scenario and how the engines answer it."""

    key: str
    prompt: str
    answer: str
    base_varies: bool
    """The base engine gives a different answer on every request."""


SCENARIO = (
    Prompt("q0", "The capital of France is", " Paris.", True),
    Prompt("q1", "def fib(n):", "\n    return n if n < 2 else fib(n - 1) + fib(n - 2)", True),
    Prompt("q2", "Translate to German: good morning", " Guten Morgen.", True),
    Prompt("q3", "2 + 2 =", " 4", True),
    Prompt("q4", "The largest planet is", " Jupiter.", False),
    Prompt("q5", "Water boils at", " 100 degrees Celsius at sea level.", False),
    Prompt("q6", "The opposite of hot is", " cold.", False),
    Prompt("q7", "Name a prime number:", " 7", False),
)
BY_PROMPT = {p.prompt: p for p in SCENARIO}


class Engine:
    """The answers of one role; counts requests per prompt (thread-safe)."""

    def __init__(self, role: str, answered: int = 0) -> None:
        self.role = role
        self._lock = threading.Lock()
        # A server started again goes on counting where it stopped (`--answered`).
        self._seen: Counter[str] = Counter({p.prompt: answered for p in SCENARIO})

    def answer(self, prompt: str) -> str:
        scripted = BY_PROMPT.get(prompt)
        if scripted is None:
            return f"echo: {prompt}"
        if self.role == "base" and scripted.base_varies:
            with self._lock:
                self._seen[prompt] += 1
                nth = self._seen[prompt]
            return scripted.answer if nth % 3 == 0 else f"{scripted.answer} (draw {nth})"
        return scripted.answer


BATCH_WINDOW = 0.25
"""Seconds a scripted request waits for others before it is answered (longer than two reads
of the sampler's running-requests gauge, which is how `k3diff sample` sees the batch)."""


class BatchingEngine:
    """Answers that depend on whether another request is in flight (thread-safe)."""

    def __init__(self, script: dict[str, dict[str, Any]]) -> None:
        self._script = script
        self._lock = threading.Lock()
        self._in_flight: list[list[bool]] = []
        self._turns: Counter[tuple[str, str]] = Counter()
        self._peak = 0
        self._rngs: dict[str, random.Random] = {}

    def running(self) -> int:
        """The engine's running-requests gauge: the most requests answered together since the
        last read (as an engine that samples its gauge per step reports it), so a batch shorter
        than the reader's poll interval on a loaded machine is still seen."""
        with self._lock:
            peak, self._peak = self._peak, len(self._in_flight)
            return max(peak, len(self._in_flight))

    def near_ties(self, prompt: str) -> list[int]:
        """Token positions of the prompt's answers where the top two are nearly tied."""
        return list(self._script.get(prompt, {}).get("near_ties", []))

    def sampling(self, prompt: str) -> bool:
        """The prompt's answers sample their first token."""
        return "first" in self._script.get(prompt, {})

    def sample(self, prompt: str, top: int) -> tuple[str, dict[str, Any]]:
        """A sampled answer and its completions `logprobs` (position 0: the `top` most likely
        reported tokens and the chosen one; later words as `completion_logprobs` gives them)."""
        scripted = self._script[prompt]
        first: dict[str, float] = scripted["first"]
        reported: dict[str, float] = scripted.get("reported", first)
        with self._lock:
            rng = self._rngs.setdefault(prompt, random.Random(int(scripted.get("seed", 0))))
            token = rng.choices(list(first), weights=list(first.values()))[0]
        text = token + str(scripted.get("rest", ""))
        logprobs = completion_logprobs(str(scripted.get("rest", "")), ())
        ranked = sorted(reported.items(), key=lambda kv: -kv[1])[: max(1, top)]
        chosen = math.log(reported[token]) if reported.get(token) else -20.0
        head = {t: math.log(p) for t, p in ranked}
        head[token] = chosen
        logprobs["tokens"].insert(0, token)
        logprobs["token_logprobs"].insert(0, chosen)
        logprobs["top_logprobs"].insert(0, head)
        return text, logprobs

    def answer(self, prompt: str) -> str:
        scripted = self._script.get(prompt)
        if scripted is None:
            return f"echo: {prompt}"
        mine = [False]
        with self._lock:
            if self._in_flight:
                mine[0] = True
                for other in self._in_flight:
                    other[0] = True
            self._in_flight.append(mine)
            self._peak = max(self._peak, len(self._in_flight))
        time.sleep(BATCH_WINDOW)
        with self._lock:
            self._in_flight.remove(mine)
            kind = "batched" if mine[0] else "alone"
            answers = scripted.get(kind) or scripted["alone"]
            turn = self._turns[(prompt, kind)]
            self._turns[(prompt, kind)] += 1
        return str(answers[turn % len(answers)])


class Handler(JsonHandler):
    server_version = "scripted/1"

    def do_GET(self) -> None:
        engine = self.server.engine  # type: ignore[attr-defined]
        if self.path == "/v1/models":
            self._json(200, models(MODEL))
        elif self.path == "/metrics" and isinstance(engine, BatchingEngine):
            gauge = (
                "# TYPE vllm:num_requests_running gauge\n"
                f'vllm:num_requests_running{{model_name="{MODEL}"}} {float(engine.running())}\n'
            )
            self._raw(200, gauge.encode(), "text/plain; version=0.0.4")
        else:
            self._json(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:
        if self.path not in ("/v1/completions", "/v1/chat/completions"):
            self._json(404, {"error": {"message": f"no route {self.path}"}})
            return
        body = self.read_json()
        engine: Engine | BatchingEngine = self.server.engine  # type: ignore[attr-defined]
        role = engine.role if isinstance(engine, Engine) else "scripted"
        prompt = _prompt_text(body)
        if isinstance(engine, BatchingEngine) and engine.sampling(prompt):
            top = body.get("logprobs")
            text, sampled = engine.sample(prompt, top if isinstance(top, int) else 0)
            answer = completion(body, text, f"fp-{role}")
            if top and "messages" not in body:
                answer["choices"][0]["logprobs"] = sampled
        else:
            text = engine.answer(prompt)
            answer = completion(body, text, f"fp-{role}")
            if body.get("logprobs") and "messages" not in body:
                ties = engine.near_ties(prompt) if isinstance(engine, BatchingEngine) else ()
                answer["choices"][0]["logprobs"] = completion_logprobs(text, ties)
        self._json(200, answer)
        access_log(f'{self.client_address[0]}:{self.client_address[1]} - "POST {self.path}" 200 OK')


def access_log(message: str) -> None:
    """A uvicorn-style line on stderr (the server's log, which `k3diff logs` reads)."""
    sys.stderr.write(f"INFO:     {message}\n")
    sys.stderr.flush()


NEAR_TIE_MARGIN = 0.02
"""Logprob margin of the chosen token over the runner-up at a scripted near tie."""
WIDE_MARGIN = 4.0
"""... and everywhere else."""


def completion_logprobs(text: str, near_ties: Sequence[int]) -> dict[str, Any]:
    """/v1/completions `logprobs` for `text` split into words (each with its leading spaces):
    the chosen word at -0.1, a runner-up `NEAR_TIE_MARGIN` behind at the `near_ties` positions,
    `WIDE_MARGIN` behind elsewhere."""
    tokens = re.findall(r"\s*\S+|\s+$", text)
    chosen = [-0.1] * len(tokens)
    tops = [
        {
            token: -0.1,
            f"{token}~": -0.1 - (NEAR_TIE_MARGIN if index in near_ties else WIDE_MARGIN),
        }
        for index, token in enumerate(tokens)
    ]
    return {"tokens": tokens, "token_logprobs": chosen, "top_logprobs": tops}


def _prompt_text(body: dict[str, Any]) -> str:
    messages = body.get("messages")
    if isinstance(messages, list) and messages and isinstance(messages[-1], dict):
        return str(messages[-1].get("content", ""))
    return str(body.get("prompt", ""))


@dataclass(frozen=True)
class Running:
    """A scripted server started by `start`."""

    role: str
    pid: int
    url: str


def start(
    role: str,
    directory: Path,
    timeout_s: float = 30.0,
    script: Path | None = None,
    port: int = 0,
    answered: int = 0,
) -> Running:
    """Start a server for `role` as a child process (on `port`, 0: a free one; `answered`: the
    requests per prompt it answered before, where it is started again); its pid file is
    DIRECTORY/ROLE.pid and its log (uvicorn-style lines on stderr) DIRECTORY/ROLE.log."""
    directory.mkdir(parents=True, exist_ok=True)
    pid_file = directory / f"{role}.pid"
    pid_file.unlink(missing_ok=True)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent)}
    extra = [] if script is None else ["--script", str(script)]
    extra += ["--port", str(port)] if port else []
    extra += ["--answered", str(answered)] if answered else []
    with (directory / f"{role}.log").open("ab") as log:  # the child keeps its own descriptor
        proc = subprocess.Popen(
            [sys.executable, __file__, "--role", role, "--pid-file", str(pid_file), *extra],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
        )
    deadline = time.monotonic() + timeout_s
    while not pid_file.exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            stop(proc.pid)
            raise RuntimeError(f"scripted {role} server did not start (pid {proc.pid})")
        time.sleep(0.02)
    info = json.loads(pid_file.read_text())
    return Running(role, proc.pid, info["url"])


def stop(pid: int, timeout_s: float = 10.0) -> None:
    """End the server `start` gave this pid, and reap it."""
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + timeout_s
    try:
        while time.monotonic() < deadline:
            if os.waitpid(pid, os.WNOHANG)[0]:
                return
            time.sleep(0.02)
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except ChildProcessError:
        return  # already reaped (subprocess reaps the children of dropped Popen objects)


def request(prompt: str) -> dict[str, Any]:
    """The completions request the demo and the tests send for a scenario prompt."""
    return {"model": MODEL, "prompt": prompt, "max_tokens": 32, "temperature": 0}


def capture(
    urls: dict[str, str],
    out: Path,
    prompts: dict[str, str] | None = None,
    burst: dict[str, int] | None = None,
    params: dict[str, Any] | None = None,
) -> None:
    """One response per prompt (`{key: prompt}`, default the scenario's) from each server, stored
    with its request and key as OUT/ROLE.jsonl (a responses file `k3diff responses` compares and
    `k3diff sample` reuses). `burst` sends a role's requests that many at once (identical, in
    flight together) and keeps the first answer: a capture taken from a batch. `params` are
    added to every request (e.g. `logprobs`)."""
    out.mkdir(parents=True, exist_ok=True)
    prompts = {p.key: p.prompt for p in SCENARIO} if prompts is None else prompts
    with httpx.Client(timeout=30) as client:
        for role, url in urls.items():
            lines = []
            for key, prompt in prompts.items():
                body = {**request(prompt), **(params or {})}
                answers = _together(
                    client, f"{url}/v1/completions", body, (burst or {}).get(role, 1)
                )
                record = {"custom_id": key, "request": body, "response": answers[0]}
                lines.append(json.dumps(record) + "\n")
            (out / f"{role}.jsonl").write_text("".join(lines))


def _together(client: httpx.Client, url: str, body: dict[str, Any], count: int) -> list[Any]:
    """`count` identical requests in flight together; their answers in sending order."""
    answers: list[Any] = [None] * count

    def send(index: int) -> None:
        response = client.post(url, json=body)
        response.raise_for_status()
        answers[index] = response.json()

    threads = [threading.Thread(target=send, args=(index,)) for index in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if any(answer is None for answer in answers):
        raise RuntimeError(f"{url}: a request of the burst failed")
    return answers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--role", choices=ROLES, required=True)
    parser.add_argument("--pid-file", type=Path, required=True)
    parser.add_argument("--script", type=Path, default=None)
    parser.add_argument("--port", type=int, default=0, help="the port to bind (0: a free one)")
    parser.add_argument(
        "--answered", type=int, default=0, help="requests per prompt answered before a restart"
    )
    args = parser.parse_args()
    server = QuietServer(("127.0.0.1", args.port), Handler)
    if args.script is None:
        server.engine = Engine(args.role, args.answered)  # type: ignore[attr-defined]
    else:
        script = json.loads(args.script.read_text())[args.role]
        server.engine = BatchingEngine(script)  # type: ignore[attr-defined]
    port = server.server_address[1]
    info = {"pid": os.getpid(), "port": port, "url": f"http://127.0.0.1:{port}"}
    partial = args.pid_file.with_name(args.pid_file.name + ".tmp")
    partial.write_text(json.dumps(info) + "\n")
    partial.replace(args.pid_file)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    access_log(f"Started server process [{os.getpid()}]")
    access_log("Application startup complete.")
    access_log(f"Uvicorn running on {info['url']} (Press CTRL+C to quit)")
    try:
        server.serve_forever()
    finally:
        args.pid_file.unlink(missing_ok=True)


if __name__ == "__main__":
    main()
