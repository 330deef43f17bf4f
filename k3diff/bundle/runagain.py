"""What `report` says when a document does not follow from the inputs given with it: the first
field that differs, and the command that brings the document up to date (report65).

A triage written before `sample --resume` (the demo's `--grow`) took more samples no longer
follows from the samples log it names: the log grew. `report` refused it, naming the field, but
not the fix, which is to run the command that wrote the document again on the same inputs. Each
refusal now ends with that command, shell-quoted (`shellwords.join`: as `shlex.join`, but a word
the one-line error would change on its way out, two spaces or a tab in a rule, is written in
`$'…'`), started by the program the user ran (`k3diff.program`): its inputs as given to `report`
(the files `report` ran it again on, so the command runs from where `report` ran), the settings
the document records (each option the CLI would otherwise default, spelt only where it differs:
`DEFAULTS`), and `--format json -o` the document as given, so the document is written anew in
place. Where the document does not record its settings (written before it did), the line names
the command without one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from k3diff import shellwords
from k3diff.bounded import DEFAULT_MAX_DOCUMENT_BYTES, DEFAULT_MAX_RECORD_BYTES

# The refusals' machinery (`stale`), importable from here as before (report66).
from k3diff.bundle.stale import StaleDocument as StaleDocument
from k3diff.bundle.stale import named_inputs as named_inputs
from k3diff.bundle.stale import refusal as refusal
from k3diff.bundle.stale import refuse_stale as refuse_stale
from k3diff.bundle.stale import stale_refused as stale_refused
from k3diff.documents.triage import TriageDocument
from k3diff.program import program

DEFAULTS: Mapping[str, Mapping[str, object]] = {
    "triage": {
        "--alpha": 0.05,
        "--bound": 0.05,
        "--near-tie": 0.1,
        "--correction": "holm",
        "--power": 0.8,
        "--shift": 0.35,
    },
    "telemetry": {"--alpha": 0.05},
    "responses": {
        "--logprob-tol": 0.0,
        "--near-tie": 0.1,
        "--beam": 0,
        "--lm-eval-field": "resps",
        "--score-alpha": 0.05,
        "--score-tolerance": 2.0,
        "--max-record-bytes": DEFAULT_MAX_RECORD_BYTES,
        "--max-document-bytes": DEFAULT_MAX_DOCUMENT_BYTES,
    },
    "logs": {"--max-inflated-bytes": 4 << 30, "--max-seconds": 300.0},
}
"""Per command, the default of each valued option a command again spells only where the
document's setting differs (held to each command's own defaults by tests/bundle/test_run_again)."""


def again(args: Sequence[str] | None, name: str, command: str, subject: str = "it") -> str:
    """'run `k3diff triage cmp.json run/samples.jsonl --format json -o triage.json` again to
    bring it up to date' for `args` (the command's arguments, `command` first), writing the
    document `name` (`subject`: how the sentence names it); the bare command where the
    document does not record its settings (None)."""
    if args is None:
        return f"run k3diff {command} again on its inputs to bring {subject} up to date"
    line = shellwords.join([*args, "--format", "json", "-o", name])
    return f"run `{program()} {line}` again to bring {subject} up to date"


def _path(path: object) -> str:
    """A path as a command's argument: one that starts with `-` (a file given so, or a name a
    document records) as `./-…`, the same file, never read as an option when pasted."""
    return shellwords.not_option(str(path))


def _value(value: object) -> str:
    """An option's value as the CLI reads it back exactly (a float by its repr)."""
    return repr(value) if isinstance(value, float) else str(value)


def _valued(command: str, option: str, value: object) -> list[str]:
    """`[option, value]`, or nothing where `value` is None or the command's default."""
    if value is None or value == DEFAULTS[command].get(option, None):
        return []
    return [option, _value(value)]


def _flags(settings: Mapping[str, Any], flags: Mapping[str, str]) -> list[str]:
    """Each flag whose recorded setting is true."""
    return [option for key, option in flags.items() if settings.get(key) is True]


def _each(option: str, values: Iterable[object]) -> list[str]:
    """A repeatable option once per value."""
    return [part for value in values for part in (option, _value(value))]


def triage_args(settings: TriageDocument, comparison: str, logs: Sequence[str]) -> list[str]:
    """`triage` on `comparison` and `logs` with a triage document's settings (its typed view)."""
    valued = {
        "--alpha": settings.alpha,
        "--bound": settings.bound,
        "--near-tie": settings.near_tie,
        "--correction": str(settings.correction),
        "--capture-mode": settings.capture_mode,
        "--power": settings.power,
        "--shift": settings.shift,
    }
    flags = {
        "--fail-inconclusive": settings.fail_inconclusive,
        "--pool-runs": settings.pool_runs,
        "--allow-condition-mismatch": settings.allow_condition_mismatch,
        "--allow-same-server": settings.allow_same_server,  # gate74: it was left out
    }
    return [
        "triage",
        _path(comparison),
        *map(_path, logs),
        *(part for option, value in valued.items() for part in _valued("triage", option, value)),
        *(option for option, on in flags.items() if on is True),
    ]


def telemetry_args(body: Mapping[str, Any], logs: Sequence[str]) -> list[str]:
    """`telemetry` on `logs` with a telemetry document's settings."""
    expected = [
        f"draft-lengths=1-{body.get('draft_lengths')}" if e == "draft-lengths" else e
        for e in body.get("expected", [])
    ]
    return [
        "telemetry",
        *map(_path, logs),
        *_each("--expect", expected),
        *_each("--fail-on", body.get("fail_on", [])),
        *_valued("telemetry", "--alpha", body.get("alpha")),
        *(["--allow-same-server"] if telemetry_allowed(body) else []),  # gate74: left out
    ]


def telemetry_allowed(body: Mapping[str, Any]) -> bool:
    """The run was given `--allow-same-server` (telem72): the document says so, or, written
    before audit73, its gate alone does (`gate_allowed`)."""
    return body.get("allow_same_server") is True or gate_allowed(body)


def gate_allowed(body: Mapping[str, Any]) -> bool:
    """A telemetry document's gate records `--allow-same-server`."""
    gate = body.get("acceptance_gate")
    return isinstance(gate, Mapping) and gate.get("allow_same_server") is True


def audit_args(
    wheels: Sequence[Path], manifest: Path | None = None, ignore_missing: bool = False
) -> list[str]:
    """`audit` on the wheels given, checked against `manifest` where the document checked one
    (a document made with waivers is refused before it is run again: `auditrederive`)."""
    checked = [] if manifest is None else ["--manifest", _path(manifest)]
    return ["audit", *map(_path, wheels), *checked, *["--ignore-missing"] * ignore_missing]


def responses_args(body: Mapping[str, Any], base: Path, patch: Path) -> list[str] | None:
    """`responses` on the two inputs with the settings the document records (`rerun`); None
    for a document that records none."""
    rerun = body.get("rerun")
    if not isinstance(rerun, Mapping):
        return None
    gate = rerun.get("score_gate")
    gated: list[str] = []
    if isinstance(gate, Mapping):
        tolerances = [f"{n}={_value(v)}" for n, v in gate.get("tolerances", [])]
        gated = [
            "--fail-on",
            "score-drop",
            *_valued("responses", "--score-tolerance", gate.get("tolerance_points")),
            *_each("--score-tolerance", tolerances),
        ]
    flags = {
        "by_order": "--by-order",
        "allow_unpaired": "--allow-unpaired",
        "include_volatile": "--include-volatile",
    }
    valued = {
        "--key": rerun.get("key"),
        "--logprob-tol": rerun.get("logprob_tol"),
        "--near-tie": rerun.get("near_tie"),
        "--text-field": rerun.get("text_field"),
        "--tokens-field": rerun.get("tokens_field"),
        "--beam": rerun.get("beam"),
        "--lm-eval-field": rerun.get("lm_eval_field"),
        "--score-alpha": rerun.get("score_alpha"),
        "--max-record-bytes": rerun.get("max_record_bytes"),
        "--max-document-bytes": rerun.get("max_document_bytes"),
    }
    return [
        "responses",
        _path(base),
        _path(patch),
        *_flags(rerun, flags),
        *_each("--normalize", rerun.get("normalize", [])),
        *_each("--ignore-field", rerun.get("ignore_fields", [])),
        *(part for option, value in valued.items() for part in _valued("responses", option, value)),
        *gated,
    ]


def logs_args(body: Mapping[str, Any], found: Mapping[str, Sequence[Path]]) -> list[str]:
    """`logs` on the paths found for each side (positional where each side is one path, else
    `--base`/`--patch` per file) with the settings the document records (`rerun`)."""
    rerun = body["rerun"]
    base, patch = ([_path(p) for p in found[side]] for side in ("base", "patch"))
    sides = (
        [*base, *patch]
        if len(base) == len(patch) == 1
        else [
            *_each("--base", base),
            *_each("--patch", patch),
        ]
    )
    rules = [r for r in rerun.get("rules", []) if isinstance(r, Mapping)]
    return [
        "logs",
        *sides,
        *_each(
            "--rule", [f"{r['name']}={r['pattern']}" for r in rules if r["severity"] == "error"]
        ),
        *_each(
            "--warn-rule",
            [f"{r['name']}={r['pattern']}" for r in rules if r["severity"] != "error"],
        ),
        *_each("--ignore-rule", rerun.get("ignored", [])),
        *_flags(rerun, {"strict": "--strict"}),
        *_valued("logs", "--max-inflated-bytes", rerun.get("max_inflated_bytes")),
        *_valued("logs", "--max-seconds", rerun.get("max_seconds")),
    ]


def wheels_options(body: Mapping[str, Any], repository: Path | None) -> list[str] | None:
    """The options of `wheels` a wheels document (or a release set's pair) records (`rerun`),
    its source check in `repository` (`REPO` where none given holds its commit); None for a
    document that records none."""
    from k3diff.wheels.surfaces import COMMON_COMMANDS

    rerun = body.get("rerun")
    if not isinstance(rerun, Mapping):
        return None
    protected = rerun.get("protected_commands")
    waivers, source = rerun.get("waivers"), rerun.get("source")
    options = [
        *_flags(
            rerun,
            {
                "allow_native_changes": "--allow-native-changes",
                "allow_bytecode": "--allow-bytecode",
                "explain": "--explain",
            },
        ),
        *([] if rerun.get("file_hash", True) else ["--no-file-hash"]),
        *(["--select", ",".join(rerun["select"])] if rerun.get("select") is not None else []),
        *(["--ignore", ",".join(rerun["ignore"])] if rerun.get("ignore") else []),
        *(
            ["--protected-commands", ",".join(protected)]
            if isinstance(protected, list) and sorted(protected) != sorted(COMMON_COMMANDS)
            else []
        ),
        *(["--waivers", str(waivers["file"])] if isinstance(waivers, Mapping) else []),
    ]
    if isinstance(source, Mapping):
        old, new = source.get("old_commit"), source.get("commit")
        options += ["--source", "REPO" if repository is None else str(repository)]
        options += ["--commits", f"{old}..{new}"] if old else ["--commit", str(new)]
        options += ["--source-prefix", str(source["prefix"])] if source.get("prefix") else []
        options += ["--source-all"] if source.get("source_all") is True else []
    return options


def wheels_args(
    body: Mapping[str, Any], base: Path, patch: Path, repository: Path | None
) -> list[str] | None:
    """`wheels` on the two wheels with the settings the document records."""
    options = wheels_options(body, repository)
    return None if options is None else ["wheels", _path(base), _path(patch), *options]


def wheelset_args(
    body: Mapping[str, Any],
    sides: Sequence[Sequence[str]] | None,
    repository: Path | None = None,
) -> list[str] | None:
    """`wheels` on a release set's sides (`sides`: each side's directory, or its wheels given
    one by one: `given_sides`; None where they are not known) with the settings its pairs
    record (the same for every pair of one run; its source check in `repository`)."""
    if sides is None:
        return None
    pairs = body.get("pairs")
    first = pairs[0] if isinstance(pairs, list) and pairs else None
    wheels = first.get("wheels") if isinstance(first, Mapping) else None
    options = wheels_options(wheels, repository) if isinstance(wheels, Mapping) else []
    if options is None:
        return None
    base, patch = ([_path(p) for p in side] for side in sides)
    if not base or not patch:
        return None
    given = (
        [*base, *patch]
        if len(base) == len(patch) == 1 and not base[0].endswith(".whl")
        else [
            *_each("--base", base),
            *_each("--patch", patch),
        ]
    )
    verdict = body.get("verdict")
    unpaired = isinstance(verdict, Mapping) and verdict.get("allow_unpaired") is True
    allow = ["--allow-unpaired"] if unpaired else []
    return ["wheels", *given, *allow, *options]


def given_sides(
    body: Mapping[str, Any], given: Mapping[str, tuple[Path, int]]
) -> list[list[str]] | None:
    """A release set's sides as the wheels given to `report` name them: on each side, the wheel
    given for each SHA-256 the set records there (its pairs', its wheels on that side only).
    Never the paths the document records it was given (`base.inputs`), which name files on the
    machine that ran it, or any its writer chose (review65b: `--base /elsewhere/old.whl` was
    printed for a set whose wheels were given from `base/`). None where a wheel it records is
    not given, one file would stand on both sides (the same bytes), or it records no SHA-256
    (`--no-file-hash`). A set made from two directories given is named by them (the callers)."""
    pairs = [p.get("wheels") for p in body.get("pairs") or [] if isinstance(p, Mapping)]
    sides: list[list[str]] = []
    for side in ("base", "patch"):
        rows = [w.get(side) for w in pairs if isinstance(w, Mapping)]
        rows += list(body.get(f"only_{side}") or [])
        digests = [row.get("sha256") if isinstance(row, Mapping) else None for row in rows]
        if not digests or not all(isinstance(d, str) and d in given for d in digests):
            return None
        sides.append([str(given[str(d)][0]) for d in dict.fromkeys(digests)])
    return None if set(sides[0]) & set(sides[1]) else sides
