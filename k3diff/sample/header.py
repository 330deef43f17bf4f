"""The header of a `samples.jsonl` log (`k3diff.samples/1`): its `run` object as read, the
resume marker, their lines as written, and their checks (one error dialect: `FILE:LINE:
problem`). Every line of the log is compact RFC 8259 JSON (`json_line`)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from k3diff import jsontext
from k3diff.errors import InputError
from k3diff.ids import SAMPLES as SCHEMA
from k3diff.sample.credentials import redacted_url
from k3diff.sample.identityread import IDENTITY_FORMAT, NO_CHECK_RESUMED, check_identity
from k3diff.sample.names import MODES, SIDES
from k3diff.sample.oneserver import (
    IDENTITY_FIELD,
    OneServer,
    identity_unchecked,
    normalised,
    one_server,
)
from k3diff.sample.recorded import check_header, check_marker
from k3diff.sample.sidefields import sides_differ
from k3diff.sample.usage import shown

LOG_FORMAT = 3
"""The header's `run.log_format` this version writes: a header stating it lists every field
readers check the log against (`REQUIRED`: the records asked, modes, repeats, sides, run id),
so a header that states it and lacks one was edited (samples71). A log without it (format 1,
written before samples71) cannot show every line its run owed was logged. Format 3 (samples72)
adds `server_identity` (`REQUIRED_3`)."""
REQUIRED = ("run_id", "servers", "modes", "repeats", "keys", "connects_to", "endpoint", "stream")
"""The `run` fields a header stating `log_format` carries, each read below (`connects_to`:
review71c, a header whose record of where each side connected was deleted read two spellings
of one server, `http://127.1:8000` and `http://127.0.0.1:8000`, as two; `endpoint` and
`stream`, which every `sample` has written: hunt78, a header whose `stream` was deleted had
streamed samples clear a whole answer's capture unchecked, triage's condition check silent)."""
NO_CHECK = "the log's header records no such check"
"""Why a log of an older format is unchecked (`RunHeader.identity_note`)."""
NO_CHECKS = (NO_CHECK, NO_CHECK_RESUMED)
"""What a qualification says where the log records no check: its header's format is older, or
a resume marker's (`identityread.resumed_fields`)."""
REQUIRED_3 = (IDENTITY_FIELD,)
"""What a format 3 header carries besides: what the servers' own counters said of base and
patch (`k3diff.sample.identity`: deleted, one server reached at two addresses read as two)."""


def json_line(value: Any) -> bytes:
    """One log line: compact RFC 8259 JSON (a server's NaN or infinity is written as a string)
    and its newline."""
    return jsontext.dumps(value, separators=(",", ":")).encode() + b"\n"


@dataclass(frozen=True)
class RunHeader:
    """The header's `run` object: what the run was asked to do."""

    fields: Mapping[str, Any]
    """The whole `run` object as written (command, servers, modes, parameters, times, ...)."""
    run_id: str | None
    """The run's identity (kept by `--resume`); None in logs written before run ids."""
    prompts_sha256: str | None
    """SHA-256 of the prompts file the run read."""
    sides: tuple[str, ...] | None
    """The sides the run sampled (from `servers`), None when the header does not say."""
    modes: tuple[str, ...] | None
    """The modes the run was asked for, None when the header does not say."""
    repeats: int | None
    """Samples per record, side and mode, None when the header does not say."""
    keys: frozenset[str] | None = None
    """The records the run asked (`keys`, each prompt's key): every side it sampled owes a
    line of each in every mode it asked; None in logs written before the header listed them
    (triage70), whose records' missing lines cannot be told from records never asked."""
    log_format: int | None = None
    """`run.log_format` (`LOG_FORMAT`); None in a log written before samples71, whose header
    cannot show that every line its run owed is in the log (`listed` false)."""

    @property
    def listed(self) -> bool:
        """The header states what the run owed (its format, hence its keys): each line owed
        and missing can be told (`k3diff.sample.owed`)."""
        return self.log_format is not None and self.keys is not None

    def check_asked(self, key: str, where: str) -> None:
        """A sample line's record is one `keys` lists (`sample` logs no other): before
        (review71c), a key taken out of `keys` left its lines owed nothing, and a repeat line
        of it deleted too passed."""
        if self.keys is not None and key not in self.keys:
            raise InputError(
                f"{where}: a sample of record {key!r}, which the header's 'run.keys' does not "
                "list (sample logs only the records it asked), so the log was edited; give the "
                "log as sample wrote it"
            )

    @property
    def identity(self) -> str:
        """What tells runs apart: the run id, or for older logs a digest of the header."""
        if self.run_id is not None:
            return self.run_id
        canonical = json.dumps(self.fields, sort_keys=True, separators=(",", ":"), default=str)
        return "header-" + hashlib.sha256(canonical.encode()).hexdigest()[:16]

    @property
    def one_server(self) -> OneServer | None:
        """Base and patch URLs that connect to one server, however spelled, as the header
        records where each connects (`k3diff.sample.oneserver`), whatever their parameters."""
        return one_server(self.fields)

    @property
    def same_server(self) -> OneServer | None:
        """`one_server` where both sides were sent the same parameters (`k3diff sample` notes
        it as it runs): its patch samples are not of a patched build."""
        if sides_differ(self.fields):
            return None  # deliberate: the sides differ by their parameters
        return self.one_server

    def same_server_note(self, log: str, allowed: bool = False) -> str | None:
        """The sentence the triage and the bundle state for LOG when `same_server` holds;
        `allowed`, that triage judged it anyway (`--allow-same-server`: before, review71c, its
        result said only "no regression candidate")."""
        found = self.same_server
        if found is None:
            return None
        return (
            f"base and patch were sampled from the same server ({found.urls}, both "
            f"{found.where}) in {log}: its patch samples measure that server against itself, "
            "not a patched build"
        ) + ("; judged as an A/A calibration run (--allow-same-server)" if allowed else "")

    def identity_note(self, log: str) -> str | None:
        """The sentence triage and the bundle state for LOG where the servers' own counters
        could not tell whether base and patch are one server reached at two addresses
        (samples72), or where its header records no such check: a log of an older format
        (samples73: before, one whose header was rewritten to `log_format` 2 without its
        `server_identity` read as checked, and a one-server run passed with nothing said)."""
        if self.same_server is not None or self.sides != ("base", "patch"):
            return None
        recorded = IDENTITY_FIELD in self.fields
        why = identity_unchecked(self.fields) if recorded else self._no_check()
        if why is None:
            return None
        then = (
            "sample again against servers whose Prometheus metrics count HTTP requests, as "
            "vLLM's do"
            if recorded
            else "sample them again with this version, which records the check"
        )
        return (
            f"whether base and patch of {log} are one server reached at two addresses (a LAN "
            f"address, a DNS alias, a forwarder) was not checked by the servers' counters: {why}; "
            "nothing to do where you know the two URLs reach two servers you started; else "
            f"check that they do, or {then}"
        )

    def _no_check(self) -> str:
        """Why a header without `server_identity` states no check: its format is older."""
        written = "no log_format" if self.log_format is None else f"log_format {self.log_format}"
        return (
            f"{NO_CHECK} ({written}: k3diff sample records it from log_format {IDENTITY_FORMAT} on)"
        )

    @property
    def params(self) -> Mapping[str, Any] | None:
        """The request parameters (`--param`), None when the header has none."""
        value = self.fields.get("params")
        return value if isinstance(value, dict) else None


def header_line(run: Mapping[str, Any]) -> bytes:
    """The first line of a log."""
    return json_line({"schema": SCHEMA, "run": dict(run)})


def resumed_line(
    when: str, repeats: int | None = None, command: Any = None, identity: Any = None
) -> bytes:
    """The marker `--resume` appends before its first sample; `repeats` where the resumed run
    takes more samples per record, side and mode than the log's run did (`--repeats` grown),
    with the resuming `command` that grew them (redacted), read against it as a header is;
    `identity`, the one-server check the resume made (`k3diff.sample.identityread`)."""
    marker: dict[str, Any] = {"schema": SCHEMA, "resumed": when}
    if identity is not None:
        marker[IDENTITY_FIELD] = identity
    if repeats is not None:
        marker["repeats"] = repeats
        if command:
            marker["command"] = command
    return json_line(marker)


def extended(header: RunHeader, repeats: int) -> RunHeader:
    """The run as a resume marker's `repeats` grew it: every later reader (resume, triage,
    report) sees the run's repeats as they now are."""
    return dataclasses.replace(
        header, fields={**header.fields, "repeats": repeats}, repeats=repeats
    )


def read_header(value: Mapping[str, Any], where: str) -> RunHeader:
    """The header line's object checked: the schema, and the `run` fields readers rely on."""
    if value.get("schema") != SCHEMA:
        found = value.get("schema")
        said = (
            "the first line has no schema field"
            if "schema" not in value
            else f"first line schema: {found!r}"
            if isinstance(found, str)
            else f"the first line's schema is {shown(found)}, not a name"
        )
        raise InputError(f"{where}: not a {SCHEMA} log ({said})")
    run = value.get("run")
    if not isinstance(run, dict):
        raise InputError(f"{where}: header has no 'run' object")
    log_format = _log_format(run, where)
    check_identity(run, where, log_format)
    return RunHeader(
        fields=run,
        run_id=_optional_string(run, "run_id", where),
        prompts_sha256=_optional_string(run, "prompts_sha256", where),
        sides=_sides(run, where),
        modes=_modes(run, where),
        repeats=_repeats(run, where),
        keys=_keys(run, where),
        log_format=log_format,
    )


def _log_format(run: Mapping[str, Any], where: str) -> int | None:
    """`run.log_format`, and under it every `REQUIRED` field present (samples71: a header whose
    `keys` was deleted read as one written before them, and triage passed a log that had lost a
    record's lines); a format newer than this version's is refused."""
    found = run.get("log_format")
    if found is None:
        return None
    if isinstance(found, bool) or not isinstance(found, int) or found < 1:
        raise InputError(f"{where}: header 'run.log_format' is not a positive integer")
    if found > LOG_FORMAT:
        raise InputError(
            f"{where}: header 'run.log_format' is {found}: written by a newer k3diff (this "
            f"version reads up to {LOG_FORMAT})"
        )
    for name in (*REQUIRED, *(REQUIRED_3 if found >= IDENTITY_FORMAT else ())):
        if run.get(name) is None:
            raise InputError(
                f"{where}: header 'run.{name}' missing: a log_format {found} header states it "
                "(k3diff sample writes it), so the header was edited; give the log as sample "
                "wrote it"
            )
    _check_connects(run, where)
    check_header(run, where)
    return found


def _check_connects(run: Mapping[str, Any], where: str) -> None:
    """Each side's `connects_to` entry is of the URL `servers` names (`sample` records it
    from that URL): before (review71c), the patch's URL edited to another port, its entry
    kept, parted one server into two."""
    servers, recorded = run.get("servers"), run.get("connects_to")
    if not isinstance(servers, dict) or not isinstance(recorded, dict):
        raise InputError(f"{where}: header 'run.connects_to' is not an object of the sides")
    for side in SIDES:
        url, entry = servers.get(side), recorded.get(side)
        if url is None:
            continue  # a side not sampled
        said = entry.get("url") if isinstance(entry, dict) else None
        if not isinstance(url, str) or not isinstance(said, str):
            raise InputError(f"{where}: header 'run.connects_to' has no {side} URL")
        if normalised(said) != normalised(url):
            raise InputError(
                f"{where}: header 'run.connects_to' says the {side} connected to "
                f"{shown(redacted_url(said))}, but 'run.servers' names "
                f"{shown(redacted_url(url))}: the header was edited; give the log as sample "
                "wrote it"
            )


def _optional_string(run: Mapping[str, Any], name: str, where: str) -> str | None:
    value = run.get(name)
    if value is not None and (not isinstance(value, str) or not value):
        raise InputError(f"{where}: header 'run.{name}' is not a non-empty string")
    return value


def _sides(run: Mapping[str, Any], where: str) -> tuple[str, ...] | None:
    servers = run.get("servers")
    if servers is None:
        return None
    if not isinstance(servers, dict) or not isinstance(servers.get("base"), str):
        raise InputError(f"{where}: header 'run.servers' has no base URL")
    return tuple(side for side in SIDES if servers.get(side) is not None)


def _modes(run: Mapping[str, Any], where: str) -> tuple[str, ...] | None:
    modes = run.get("modes")
    if modes is None:
        return None
    if not isinstance(modes, list) or not all(m in MODES for m in modes):
        raise InputError(
            f"{where}: header 'run.modes' is {shown(modes)}; known modes: {', '.join(MODES)}"
        )
    return tuple(modes)


def _repeats(run: Mapping[str, Any], where: str) -> int | None:
    repeats = run.get("repeats")
    if repeats is None:
        return None
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise InputError(f"{where}: header 'run.repeats' is not a positive integer")
    return repeats


def _keys(run: Mapping[str, Any], where: str) -> frozenset[str] | None:
    keys = run.get("keys")
    if keys is None:
        return None
    if not isinstance(keys, list) or not all(isinstance(key, str) for key in keys):
        raise InputError(f"{where}: header 'run.keys' is not a list of record keys")
    found = frozenset(keys)
    if len(found) != len(keys):
        raise InputError(f"{where}: header 'run.keys' names a record twice")
    return found


def read_marker(value: Mapping[str, Any], where: str, header: RunHeader) -> int | None:
    """A schema line after the header: a resume marker, and the run's repeats it grew to
    (None where it kept them); a second header (two logs concatenated) is refused, and so is a
    marker whose repeats do not grow the run's."""
    if "run" in value:
        raise InputError(
            f"{where}: a second header line: two logs concatenated into one; give each "
            "run's samples.jsonl as written"
        )
    when = value.get("resumed")
    if value.get("schema") != SCHEMA or not isinstance(when, str):
        raise InputError(f"{where}: a schema line that is not a {SCHEMA} resume marker")
    if "repeats" not in value:
        return None
    repeats = value["repeats"]
    if isinstance(repeats, bool) or not isinstance(repeats, int) or header.repeats is None:
        raise InputError(f"{where}: resume marker 'repeats' is not an integer grown from the run's")
    check_marker({"command": value.get("command"), "repeats": repeats}, where)
    if repeats <= header.repeats:
        raise InputError(
            f"{where}: resume marker 'repeats' is {repeats}, not more than the run's "
            f"{header.repeats}: a resume only grows a run's repeats"
        )
    return repeats
