"""A bare `NaN`, `Infinity` or `-Infinity` in a document or log k3diff wrote is refused where it
is read (exit 2, one line naming the file, the line and the constant): RFC 8259 has none of
them, and k3diff writes a non-finite number as the string `"NaN"`, `"Infinity"` or
`"-Infinity"` (`k3diff.jsontext`), so such a file was edited by hand or by another tool.

Python's `json.loads` reads them, and a range check passes NaN (each comparison is false): a
passing triage document whose `modal_share`, `temperature` or a field no reader names was made
a bare NaN read as the pass it had been, `report` exit 0, while `jq` refuses the file the bundle
names by SHA-256. What servers send is still read as they send it (a capture's `-Infinity`
logprob: tests/cli/test_hostile_inputs.py)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff
from triage.helpers import S, compare_texts, side, write_samples

Edit = Callable[[dict[str, Any]], None]


def _passing_triage(tmp_path: Path) -> dict[str, Any]:
    """k1 matches unsampled, k2 matches and was sampled alike on both sides: triage passes."""
    compare_texts(tmp_path, {"k1": ("same", "same"), "k2": ("x", "x")})
    write_samples(
        tmp_path / "run" / "samples.jsonl",
        side("k2", "base", ["x"] * 3) + side("k2", "patch", ["x"] * 3),
    )
    made = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--format", "json", "-o", "triage.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert made.exit_code == 0, made.stderr
    document: dict[str, Any] = json.loads((tmp_path / "triage.json").read_text())
    return document


def _mode(document: dict[str, Any]) -> dict[str, Any]:
    mode: dict[str, Any] = next(r for r in document["records"] if r["key"] == "k2")["modes"][0]
    return mode


EDITS: list[tuple[str, Edit, str]] = [
    ("NaN", lambda d: _mode(d)["base"].update(modal_share=float("nan")), "modal_share"),
    (
        "Infinity",
        lambda d: _mode(d)["requests"]["base"][0].update(temperature=float("inf")),
        "temperature",
    ),
    (
        "-Infinity",
        lambda d: _mode(d)["patch"].update(deviation_ci=[float("-inf"), 1.0]),
        "deviation_ci",
    ),
    ("NaN", lambda d: d.update(p=float("nan")), "p"),
]


@pytest.mark.parametrize(("constant", "edit", "field"), EDITS, ids=[e[2] for e in EDITS])
def test_a_bare_non_finite_constant_in_a_passing_document_is_refused(
    tmp_path: Path, constant: str, edit: Edit, field: str
) -> None:
    document = _passing_triage(tmp_path)
    assert run_k3diff("report", "triage.json", "--out", "as-written", cwd=tmp_path).exit_code == 0
    edit(document)
    text = json.dumps(document, indent=2)  # Python's encoder writes the bare constant
    line = next(
        number
        for number, row in enumerate(text.splitlines(), 1)
        if row.strip().rstrip(",") in (constant, f'"{field}": {constant}')
    )
    (tmp_path / "edited.json").write_text(text)

    result = run_k3diff("report", "edited.json", "--out", "bundle", cwd=tmp_path)

    assert result.exit_code == 2, result.stderr
    assert result.stderr == (
        f"k3diff: error: edited.json: not a k3diff JSON document (line {line}: bare "
        f'{constant}; k3diff writes it as "{constant}")\n'
    )


def test_a_constant_inside_a_string_is_text(tmp_path: Path) -> None:
    """A key or text that spells `NaN` is no constant: the document reads as written, and the
    line named is the bare constant's, past any string that spells one."""
    document = _passing_triage(tmp_path)
    document["note NaN"] = 'Infinity "NaN" -Infinity \\"NaN'
    (tmp_path / "edited.json").write_text(json.dumps(document, indent=2))
    result = run_k3diff("report", "edited.json", "--out", "bundle", cwd=tmp_path)
    assert result.exit_code == 0, result.stderr

    document["p"] = float("-inf")
    text = json.dumps(document, indent=2)
    (tmp_path / "edited.json").write_text(text)
    result = run_k3diff("report", "edited.json", "--out", "bundle", cwd=tmp_path)
    assert result.exit_code == 2, result.stderr
    line = len(text.splitlines()) - 1  # "p" is the last member, before the closing brace
    assert f"(line {line}: bare -Infinity;" in result.stderr, result.stderr


def test_a_bare_nan_in_a_samples_log_is_refused_naming_its_line(tmp_path: Path) -> None:
    """The samples log is JSON k3diff wrote too (a server's NaN is logged as a string): a bare
    one in a line's request parameters is refused by `report` and by `triage`."""
    log = write_samples(tmp_path / "run" / "samples.jsonl", [S("base", "k", "x")])
    lines = log.read_text().splitlines(keepends=True)
    sample = json.loads(lines[1])
    sample["request_params"] = {"temperature": float("nan")}
    log.write_text(lines[0] + json.dumps(sample) + "\n")
    compare_texts(tmp_path, {"k": ("x", "x")})

    for command in (
        ["report", "run/samples.jsonl", "--out", "bundle"],
        ["triage", "cmp.json", "run/samples.jsonl"],
    ):
        result = run_k3diff(*command, cwd=tmp_path)
        assert result.exit_code == 2, result.stderr
        assert result.stderr == (
            'k3diff: error: run/samples.jsonl:2: not JSON (bare NaN; k3diff writes it as "NaN")\n'
        )


OVERFLOWS = [
    ("modal_share", "1e999", "Infinity"),
    ("temperature", "-1E+400", "-Infinity"),
    ("top_p", "1" + "0" * 310 + ".5", "Infinity"),
]


@pytest.mark.parametrize(("field", "literal", "name"), OVERFLOWS, ids=[o[0] for o in OVERFLOWS])
def test_a_number_beyond_a_double_is_refused_as_its_infinity_is(
    tmp_path: Path, field: str, literal: str, name: str
) -> None:
    """review71e: `1e999` is RFC 8259 grammar, but no double: Python's `json` reads it as the
    infinity a bare `Infinity` was refused for (`jq` as 1.8e308), so a passing document with
    `"modal_share": 1e999` (a field no reader bounds) read as the pass it had been, exit 0.
    k3diff writes every float as the shortest text that reads back as itself: none overflows."""
    text = json.dumps(_passing_triage(tmp_path), indent=2)
    rows = text.splitlines()
    line = next(n for n, row in enumerate(rows, 1) if row.strip().startswith(f'"{field}": '))
    key, _, value = rows[line - 1].partition(": ")
    rows[line - 1] = f"{key}: {literal}{',' if value.endswith(',') else ''}"
    (tmp_path / "edited.json").write_text("\n".join(rows))

    result = run_k3diff("report", "edited.json", "--out", "bundle", cwd=tmp_path)

    shown = literal if len(literal) <= 24 else literal[:20] + "..."
    assert result.exit_code == 2, result.stderr
    assert result.stderr == (
        f"k3diff: error: edited.json: not a k3diff JSON document (line {line}: {shown} is "
        f'beyond a double, read as {name}; k3diff writes it as "{name}")\n'
    )


def test_a_number_beyond_a_double_in_a_samples_log_is_refused(tmp_path: Path) -> None:
    """The samples log too: a line's `1e999` temperature read as a sampled infinity."""
    log = write_samples(tmp_path / "run" / "samples.jsonl", [S("base", "k", "x")])
    lines = log.read_text().splitlines(keepends=True)
    sample = json.loads(lines[1])
    sample["request_params"] = {"temperature": 0.5}
    log.write_text(lines[0] + json.dumps(sample).replace("0.5", "1e999") + "\n")
    compare_texts(tmp_path, {"k": ("x", "x")})

    result = run_k3diff("triage", "cmp.json", "run/samples.jsonl", cwd=tmp_path)

    assert result.exit_code == 2, result.stderr
    assert result.stderr == (
        "k3diff: error: run/samples.jsonl:2: not JSON (1e999 is beyond a double, read as "
        'Infinity; k3diff writes it as "Infinity")\n'
    )
