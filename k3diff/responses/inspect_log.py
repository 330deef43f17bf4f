"""inspect_ai evaluation logs as a response format: the `.eval` zip and the JSON log.

Layout, as inspect_ai's recorders write it (UKGovernmentBEIS/inspect_ai,
``src/inspect_ai/log/_recorders/eval.py``: ``_sample_filename`` is
``samples/{id}_epoch_{epoch}.json``, beside ``header.json``, ``summaries.json``,
``reductions.json`` and ``_journal/start.json`` / ``_journal/summaries/N.json``; the JSON log,
``json.py``, is the whole ``EvalLog`` with its ``samples`` list). Each sample is an ``EvalSample``:
``id``, ``epoch``, ``input`` (a string or chat messages), ``target``, ``output`` (a
``ModelOutput``: ``completion``, ``choices[0].stop_reason``, ``usage``, ``time``, ``error``),
``scores`` (scorer name → ``Score`` with ``value``, ``answer``, ``explanation``) and ``error``.

- One record per sample, keyed ``ID/epoch-N`` (pairing field ``id+epoch``).
- The text compared is ``output.completion`` (else the first choice's message text).
- The prompt is the sample's input (chat messages reduced to role and content: inspect gives
  each message a fresh id per run); a pair whose inputs differ is refused, as any pair of
  different requests is.
- Scores become the item's eval scores, read as inspect's ``value_to_float`` reads them
  (``C`` 1, ``P`` 0.5, ``I`` and ``N`` 0, numbers, booleans, yes/no/true/false); a dict value
  gives one metric per key (``scorer.key``). Each score's value and answer are also compared
  fields; explanations (a grader's prose) are not.
- ``output.time``, ``total_time`` and ``working_time`` are run state; a sample ``error`` is a
  failed request.

The `.eval` zip is read through `k3diff.zip` as wheels are: its directory as `zipfile` sees it,
an archive whose end records disagree, an entry that climbs out with ``..``, an encrypted or
duplicated entry is refused; every entry read whole is capped at ``--max-record-bytes``, and
the inflated bytes at what the directory declares.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from k3diff import bounded
from k3diff.errors import ArchiveError, InputError, ResponseFormatError
from k3diff.responses.assemble import records_from_parts
from k3diff.responses.model import LoadOptions, ResponseRecord, score_number
from k3diff.responses.parts import Parts, canonical

if TYPE_CHECKING:
    from k3diff.zip.archive import ZipArchive

ZIP_MAGIC = b"PK\x03\x04"
SAMPLES_DIR = "samples/"
KEY_FIELD = "id+epoch"
_SCORE_WORDS = {"C": 1.0, "P": 0.5, "I": 0.0, "N": 0.0}
_TRUE_FALSE = {"yes": 1.0, "true": 1.0, "no": 0.0, "false": 0.0}


def looks_like_eval_zip(path: Path) -> bool:
    """The file starts like a zip (an inspect_ai `.eval` log is one)."""
    try:
        with bounded.open_input(path, str(path), "responses file") as handle:
            return handle.read(4) == ZIP_MAGIC
    except (OSError, InputError):
        return False  # the loader that reads it says what is wrong


def is_json_log(first: dict[str, Any] | None, prefix: str) -> bool:
    """An inspect_ai JSON log: an `EvalLog` object (`version`, `status`, `eval`)."""
    if first is not None:
        return "eval" in first and "version" in first and isinstance(first.get("samples"), list)
    head = prefix.lstrip()
    return head.startswith("{") and '"version"' in head[:200] and '"eval"' in head


def score_value(value: Any) -> float | None:
    """A score's value as inspect's `value_to_float()` reads it (inspect_ai
    `src/inspect_ai/scorer/_metric.py`): numbers and booleans as numbers, `C` 1, `P` 0.5, `I` and
    `N` 0, then the value lower-cased: `yes`/`true` 1, `no`/`false` 0, and digits with dots
    (`value.replace(".", "").isnumeric()`) as a float. Nothing is stripped, and no other
    number form is read (hunt71: a patch's `" yes"` or `"1e0"`, which inspect scores 0, read 1,
    so its drop passed the gate). Where inspect warns and scores 0 (or raises), this is no
    score, which the gate never passes over."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float):
        return score_number(value)
    if not isinstance(value, str):
        return None
    if value in _SCORE_WORDS:
        return _SCORE_WORDS[value]
    lowered = value.lower()
    if lowered in _TRUE_FALSE:
        return _TRUE_FALSE[lowered]
    if not lowered.replace(".", "").isnumeric():
        return None
    try:
        number = float(lowered)
    except ValueError:  # "1.2.3", "½": inspect raises
        return None
    return score_number(number)


def _scores(raw: Any) -> tuple[tuple[tuple[str, str | None, float], ...], dict[str, Any]]:
    """The sample's scores as numbers, and each score's value and answer as compared fields."""
    if not isinstance(raw, dict):
        return (), {}
    numbers: list[tuple[str, str | None, float]] = []
    compared: dict[str, Any] = {}
    for name, score in raw.items():
        if not isinstance(score, dict):
            continue
        value = score.get("value")
        compared[str(name)] = {"value": value, "answer": score.get("answer")}
        items = value.items() if isinstance(value, dict) else [(None, value)]
        for key, item in items:
            number = score_value(item)
            if number is not None:
                metric = str(name) if key is None else f"{name}.{key}"
                numbers.append((metric, None, number))
    return tuple(numbers), compared


def _prompt(value: Any) -> Any:
    if isinstance(value, list):
        return [
            {"role": m.get("role"), "content": m.get("content")} if isinstance(m, dict) else m
            for m in value
        ]
    return value


def _text(output: dict[str, Any]) -> str:
    completion = output.get("completion")
    if isinstance(completion, str) and completion:
        return completion
    choices = output.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        message = choices[0].get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, str):
            return content
        if isinstance(content, list):
            return "".join(
                part.get("text", "")
                for part in content
                if isinstance(part, dict) and isinstance(part.get("text"), str)
            )
    return completion if isinstance(completion, str) else ""


def sample_parts(sample: Any, where: str, member: str) -> Parts:
    """One `EvalSample` as the parts of one record."""
    if not isinstance(sample, dict) or "id" not in sample or "epoch" not in sample:
        raise ResponseFormatError(f"{where}: not an inspect_ai sample (no id and epoch)")
    sample_id, epoch = sample["id"], sample["epoch"]
    if not isinstance(sample_id, str | int) or isinstance(sample_id, bool):
        raise ResponseFormatError(f"{where}: sample id is neither a string nor an integer")
    if not isinstance(epoch, int) or isinstance(epoch, bool):
        raise ResponseFormatError(f"{where}: sample epoch is not an integer")
    raw_output = sample.get("output")
    output: dict[str, Any] = raw_output if isinstance(raw_output, dict) else {}
    numbers, compared = _scores(sample.get("scores"))
    choices = output.get("choices")
    first = choices[0] if isinstance(choices, list) and choices else {}
    error = sample.get("error") or output.get("error")
    parts = Parts(
        text=_text(output),
        prompt=_prompt(sample.get("input")),
        finish_reason=first.get("stop_reason") if isinstance(first, dict) else None,
        usage=output.get("usage"),
        other={"target": sample.get("target"), "scores": compared},
        request_params={},
        error=None if not error else _error_text(error),
        client_keyable=False,
    )
    for name in ("total_time", "working_time"):
        if sample.get(name) is not None:
            parts.run_state[name] = sample[name]
    if output.get("time") is not None:
        parts.run_state["output.time"] = output["time"]
    parts.client_key = (f"{sample_id}/epoch-{epoch}", KEY_FIELD)
    parts.scores = numbers
    parts.member = member
    return parts


def _error_text(error: Any) -> str:
    message = error.get("message") if isinstance(error, dict) else error
    return message if isinstance(message, str) else canonical(error)


def eval_zip_records(path: Path, display: str, options: LoadOptions) -> Iterator[ResponseRecord]:
    """Every sample of a `.eval` log, in archive order."""
    # Imported here: the zip reader costs ~0.1 s to import, and only a `.eval` log needs it.
    from k3diff.zip.archive import ZipArchive

    try:
        archive = ZipArchive.open(path)
    except ArchiveError as exc:
        raise ResponseFormatError(f"{display}: not a readable inspect_ai .eval log: {exc}") from exc
    with archive:
        _check_archive(archive, display)
        names = [e.name for e in archive.entries]
        if "header.json" not in names and "_journal/start.json" not in names:
            raise ResponseFormatError(
                f"{display}: a zip without header.json or _journal/start.json is not an "
                "inspect_ai .eval log"
            )
        limit = bounded.current_caps().record_bytes
        for entry in archive.entries:
            if not (entry.name.startswith(SAMPLES_DIR) and entry.name.endswith(".json")):
                continue
            where = f"{display}:{entry.name}"
            try:
                data = archive.read_content(entry, limit)
            except ArchiveError as exc:
                raise ResponseFormatError(f"{where}: {exc}") from exc
            sample = _decode(data, where)
            parts = sample_parts(sample, where, entry.name)
            yield from records_from_parts([parts], sample, where, options)


def _check_archive(archive: ZipArchive, display: str) -> None:
    from k3diff.wheel.soundness import is_unsafe_path

    problems = list(archive.disagreements)
    seen: set[str] = set()
    for entry in archive.entries:
        if is_unsafe_path(entry.name):
            problems.append(f"entry {entry.name!r} is an absolute or '..' path")
        if entry.is_encrypted:
            problems.append(f"entry {entry.name!r} is encrypted")
        if entry.name in seen:
            problems.append(f"entry {entry.name!r} appears twice")
        seen.add(entry.name)
    if problems:
        raise ResponseFormatError(f"{display}: unsound .eval archive: {'; '.join(problems[:3])}")


def _decode(data: bytes, where: str) -> Any:
    try:
        return bounded.loads(data.decode("utf-8"), where)
    except UnicodeDecodeError as exc:
        raise ResponseFormatError(f"{where}: invalid UTF-8 (byte 0x{data[exc.start]:02x})") from exc
    except json.JSONDecodeError as exc:
        raise ResponseFormatError(
            f"{where}: malformed JSON: {exc.msg} (line {exc.lineno})"
        ) from exc


def json_log_records(document: Any, display: str, options: LoadOptions) -> Iterator[ResponseRecord]:
    """Every sample of an inspect_ai JSON log (the whole `EvalLog`), in log order."""
    samples = document.get("samples") if isinstance(document, dict) else None
    if not isinstance(samples, list):
        raise ResponseFormatError(f"{display}: inspect_ai log has no samples list")
    for position, sample in enumerate(samples):
        member = f"samples[{position}]"
        where = f"{display}:{member}"
        parts = sample_parts(sample, where, member)
        yield from records_from_parts([parts], sample, where, options)
