"""What a `k3diff sample` run that stops part-way says it kept.

A run stops with exit 2 once its log is open for several reasons: a server that is no
completion server or does not stream (`k3diff.sample.unstreamed`), one that stopped answering
(`k3diff.sample.alive`), a cache flush that keeps failing, a full disk, Ctrl-C, SIGTERM (a cancelled CI job, `timeout`: `Terminated`, which
stops the run as Ctrl-C does instead of killing it without a word). Whatever stopped it, the samples already written stay in the log
and `--resume` takes only the missing ones; so every such stop is one line that says what
stopped the run and how many samples the log keeps (`RunStopped`: '...; stopped, 37 samples kept
in out/samples.jsonl (--resume continues: k3diff sample ... --resume)', the run's own command,
`resume_command`), counted from the log itself (`SampleLog.samples`:
the lines of a resumed log and every line appended since), not from the requests sent; where
the server answers the same requests the same way (one that does not stream, a 404:
`StopReason.resumable`), `--resume` is not offered. The log then ends with the stop's line
(`k3diff.sample.stopline`), after the samples it kept; not where the log could not be written
(an OutputError, a full disk: nothing more is attempted). A
problem found before the log is opened (a server that cannot be reached, a log that cannot be
resumed) touched no log and goes on as it is; Ctrl-C or SIGTERM then says that no sample was
written.

While the event loop runs (`Kept.run`), SIGTERM cancels the run's main task as `asyncio.run`
does on Ctrl-C, rather than raising wherever the signal lands: raised inside a task, the task
ended holding it (asyncio printed 'Task exception was never retrieved' and a traceback after
the line), and raised while a log write was in flight, the write's count was cancelled with it
(the line said fewer samples than the log keeps). Cancelled, the run's own cleanup waits for
the log's pending lines and closes the client, then the stop is `Terminated`.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
from collections.abc import Callable, Coroutine, Iterator, Mapping
from types import FrameType
from typing import Any, TypeVar

import httpx

from k3diff import shellwords
from k3diff.errors import K3diffError, OutputError, RunStopped
from k3diff.program import program
from k3diff.sample.log import SampleLog
from k3diff.sample.stopline import ServerStop, StopLine, StopReason, now

T = TypeVar("T")
Handler = Callable[[int, FrameType | None], None]


class Terminated(KeyboardInterrupt):
    """SIGTERM during a run: raised where Ctrl-C's KeyboardInterrupt would be, and handled alike
    (asyncio cancels the run's tasks, the lines already handed to the log are written)."""


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise Terminated


@contextlib.contextmanager
def sigterm_stops(handler: Handler = _terminate) -> Iterator[None]:
    """While the block runs, SIGTERM calls `handler` (by default: raises `Terminated`): only in
    the main thread and only where SIGTERM has its default action (a caller's own handler, or an
    ignored SIGTERM, is left as it is); the previous action comes back after."""
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL
    ):
        yield
        return
    signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _how(exc: KeyboardInterrupt) -> str:
    return "terminated (SIGTERM)" if isinstance(exc, Terminated) else "aborted (Ctrl-C)"


class Kept:
    """The log a run opened (None until it is open), to say what a stop kept."""

    def __init__(self) -> None:
        self.log: SampleLog | None = None
        self._main: asyncio.Task[Any] | None = None
        """The task `run` runs, while it runs."""
        self._terminated = False
        """SIGTERM cancelled `_main`."""
        self.sides: dict[str, str] = {}
        """The URL each side's samples are sent to -> the side (its stop line's `side`), where
        the sides' URLs differ."""
        self.command: tuple[str, ...] = ()
        """The run's command line as its log's header records it (`options.redacted_command`;
        empty where unknown): a resumable stop names it with `--resume`."""

    def name_sides(self, routes: Mapping[str, str]) -> None:
        """Know each side by the URL its samples go to (`routes`: side -> URL), where the
        sides' URLs differ (one server for both: its stop names no side)."""
        urls = {side: str(httpx.URL(route)) for side, route in routes.items()}
        self.sides = {
            url: side for side, url in urls.items() if list(urls.values()).count(url) == 1
        }

    def _on_sigterm(self, signum: int, frame: FrameType | None) -> None:
        """Cancel the running main task, once (as asyncio.run does on Ctrl-C); elsewhere, or
        a second time, raise `Terminated`."""
        main = self._main
        if main is None or main.done() or self._terminated:
            raise Terminated
        self._terminated = True
        main.cancel()
        main.get_loop().call_soon_threadsafe(lambda: None)  # wake a loop waiting for I/O

    def run(self, main: Coroutine[Any, Any, T]) -> T:
        """`asyncio.run(main)` inside `stops`, where SIGTERM cancels `main` (module docstring);
        `Terminated` once it did, even where the cancel was swallowed and `main` returned."""

        async def watched() -> T:
            self._main = asyncio.current_task()
            try:
                return await main
            finally:
                self._main = None

        try:
            result = asyncio.run(watched())
        except asyncio.CancelledError:
            if self._terminated:
                raise Terminated from None
            raise
        finally:
            main.close()  # never started (a stop before its first step): no 'never awaited'
        if self._terminated:
            raise Terminated
        return result

    def note(self, reason: StopReason) -> str:
        """'stopped, 37 samples kept in OUT/samples.jsonl (--resume continues)'; where the
        server refuses the run's requests as such (`StopReason.resumable` False: one that does
        not stream, answers 404, is no completion server), --resume would send the same
        requests and stop the same way, so it is not offered."""
        assert self.log is not None
        count = self.log.samples
        requests = "stream requests" if reason is StopReason.NOT_STREAMED else "requests"
        then = (
            f"(--resume continues{resume_command(self.command)})"
            if reason.resumable
            else f"(--resume sends the same {requests} and stops the same way)"
        )
        return f"stopped, {count} sample{'s' if count != 1 else ''} kept in {self.log.path} {then}"

    def _stopped(self, cause: BaseException, message: str) -> str:
        """Append the stop line of `cause` to the log (none for an OutputError: the log or the
        disk failed, nothing more is attempted); the `note` that ends the stderr line."""
        assert self.log is not None
        reason = stop_reason(cause)
        if not isinstance(cause, OutputError):
            url = cause.url if isinstance(cause, ServerStop) else None
            side = self.sides.get(url) if url is not None else None
            self.log.record_stop(StopLine(now(), reason.value, reason.resumable, message, side))
        return self.note(reason)

    @contextlib.contextmanager
    def stops(self) -> Iterator[None]:
        """Re-raise a K3diffError, Ctrl-C or SIGTERM raised once the log is open as
        `RunStopped`, its cause followed by `note`, after the log's stop line; before that, a
        K3diffError as it is, and Ctrl-C or SIGTERM as a RunStopped saying no sample was
        written. The log is closed on the way out."""
        try:
            with sigterm_stops(self._on_sigterm):
                yield
        except K3diffError as exc:
            if self.log is None:
                raise
            raise RunStopped(f"{exc}; {self._stopped(exc, str(exc))}") from exc
        except KeyboardInterrupt as exc:
            if self.log is None:
                raise RunStopped(
                    f"{_how(exc)} before the log was opened: no sample written"
                ) from exc
            raise RunStopped(f"{_how(exc)}; {self._stopped(exc, _how(exc))}") from exc
        finally:
            if self.log is not None:
                self.log.close()


HIDDEN = (("--header value", ":***"), ("URL user:password", "://***@"))
"""What the recorded command hides, by how it reads there (`options.redacted_command`)."""


def resume_command(command: tuple[str, ...]) -> str:
    """': k3diff sample --base URL --prompts p.jsonl --out run --resume', the run's own command
    line with `--resume` (once), shell-quoted and started by the k3diff the user ran, and what
    the record hides said to be given again; '' where the command is unknown (more80: the stop
    said only "--resume continues")."""
    if command[:2] != ("k3diff", "sample"):
        return ""
    words = [*command[1:], *(() if "--resume" in command else ("--resume",))]
    hidden = [kind for kind, mark in HIDDEN if any(mark in word for word in words)]
    again = f", each {' and '.join(hidden)} hidden as *** given again" if hidden else ""
    return f": {program()} {shellwords.join(words)}{again}"


def stop_reason(cause: BaseException) -> StopReason:
    """What stopped a run, by its cause: Ctrl-C, SIGTERM, a server's stop (`ServerStop`:
    its own reason), anything else an error."""
    if isinstance(cause, Terminated):
        return StopReason.TERMINATED
    if isinstance(cause, KeyboardInterrupt):
        return StopReason.INTERRUPTED
    if isinstance(cause, ServerStop):
        return cause.reason
    return StopReason.ERROR
