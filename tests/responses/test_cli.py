"""`k3diff responses` as a user runs it: golden outputs, exit codes, errors on one line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .fixtures import chat, chat_logprobs, write_jsonl
from .scenario import FORMATS, write_pair

GROUP = "responses"


@pytest.mark.parametrize(
    ("case", "fmt", "output"),
    [
        ("scenario-text", "jsonl-completion", "text"),
        ("scenario-json", "jsonl-completion", "json"),
        ("scenario-markdown", "sse", "markdown"),
        ("scenario-batch-text", "jsonl-batch", "text"),
    ],
)
def test_scenario_golden(
    case: str, fmt: str, output: str, k3diff_cli: Any, golden: Any, tmp_path: Path
) -> None:
    spec = FORMATS[fmt]
    write_pair(tmp_path, spec)
    result = k3diff_cli(
        "responses",
        f"base/{spec.filename}",
        f"patch/{spec.filename}",
        "--format",
        output,
        cwd=tmp_path,
    )
    assert result.exit_code == 1
    golden.check(GROUP, case, result)


def test_identical_captures_exit_0(k3diff_cli: Any, golden: Any, tmp_path: Path) -> None:
    rows = [{"id": f"q{n}", "prompt": f"p{n}", "text": f"answer {n}"} for n in range(3)]
    write_jsonl(tmp_path / "base.jsonl", rows)
    write_jsonl(tmp_path / "patch.jsonl", rows)
    result = k3diff_cli("responses", "base.jsonl", "patch.jsonl", cwd=tmp_path)
    assert result.exit_code == 0
    golden.check(GROUP, "identical", result)


def test_normalize_and_prompt_pairing(k3diff_cli: Any, golden: Any, tmp_path: Path) -> None:
    write_jsonl(
        tmp_path / "base.jsonl",
        [
            {"prompt": "Translate: cafe", "text": "caf\u00e9 \n"},
            {"prompt": "Only in base", "text": "x"},
        ],
    )
    write_jsonl(
        tmp_path / "patch.jsonl",
        [
            {"prompt": "Translate: cafe", "text": "cafe\u0301"},
            {"prompt": "Only in patch", "text": "y"},
        ],
    )
    args = ["responses", "base.jsonl", "patch.jsonl", "--normalize", "trailing-whitespace"]
    result = k3diff_cli(*args, "--normalize", "nfc", "--allow-unpaired", cwd=tmp_path)
    assert result.exit_code == 0  # the only pair matches after normalisation
    strict = k3diff_cli(*args, "--normalize", "nfc", cwd=tmp_path)
    assert strict.exit_code == 1  # the records on one side only are lost evidence
    golden.check(GROUP, "normalize-prompt-pairing", result)


def test_logprob_flip_markdown(k3diff_cli: Any, golden: Any, tmp_path: Path) -> None:
    def lp(second: str, gap: float) -> dict[str, Any]:
        other = " cat" if second == " dog" else " dog"
        return chat_logprobs(
            [
                ("The", -0.01, [("The", -0.01)]),
                (second, -0.6, [(second, -0.6), (other, -0.6 - gap)]),
            ]
        )

    write_jsonl(tmp_path / "base.jsonl", [chat("a", "The cat", logprobs=lp(" cat", 0.2))])
    write_jsonl(tmp_path / "patch.jsonl", [chat("a", "The dog", logprobs=lp(" dog", 0.05))])
    result = k3diff_cli(
        "responses", "base.jsonl", "patch.jsonl", "--format", "markdown", cwd=tmp_path
    )
    assert result.exit_code == 1
    golden.check(GROUP, "logprob-flip-markdown", result)


ERRORS = {
    "error-malformed-jsonl": (
        b'{"id": "a", "text": "x"}\n{"id": "b" "text": "y"}\n',
        "base.jsonl:2: malformed JSON",
    ),
    "error-no-text": (
        b'{"id": "a", "text": "x"}\n{"id": "b", "tokens": 3}\n',
        "base.jsonl:2: record has no text field",
    ),
    "error-utf8": (
        b'{"id": "a", "text": "x"}\n\n{"id": "b", "text": "\xc3("}\n',
        "base.jsonl:3: invalid UTF-8",
    ),
    "error-duplicate": (
        b'{"id": "a", "prompt": "p", "text": "x"}\n{"id": "a", "prompt": "p", "text": "y"}\n',
        "base.jsonl: duplicate prompt-hash keys: prompt 'p' at lines 1, 2",
    ),
    "error-no-key": (
        b'{"id": "a", "text": "x"}\n{"id": "a", "text": "y"}\n',
        "cannot pair records by id (base.jsonl: id 'a' at base.jsonl:1, base.jsonl:2) nor by prompt "
        "(base.jsonl:1 has no prompt); pass --key FIELD (a field both sides share) or "
        "--by-order (the Nth record of each side)",
    ),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_bad_input_is_one_line_and_exit_2(
    case: str, k3diff_cli: Any, golden: Any, tmp_path: Path
) -> None:
    content, expected = ERRORS[case]
    (tmp_path / "base.jsonl").write_bytes(content)
    write_jsonl(tmp_path / "patch.jsonl", [{"id": "a", "prompt": "p", "text": "x"}])
    result = k3diff_cli("responses", "base.jsonl", "patch.jsonl", cwd=tmp_path)
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.startswith(f"k3diff: error: {expected}")
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    golden.check(GROUP, case, result)


def test_missing_file(k3diff_cli: Any, tmp_path: Path) -> None:
    write_jsonl(tmp_path / "patch.jsonl", [{"id": "a", "text": "x"}])
    result = k3diff_cli("responses", "nope.jsonl", "patch.jsonl", cwd=tmp_path)
    assert result.exit_code == 2
    assert result.stderr.startswith("k3diff: error: nope.jsonl: no such file")


def test_output_file_and_limit(k3diff_cli: Any, tmp_path: Path) -> None:
    write_jsonl(tmp_path / "b.jsonl", [{"id": str(n), "text": "a"} for n in range(5)])
    write_jsonl(tmp_path / "p.jsonl", [{"id": str(n), "text": "a" if n else "b"} for n in range(5)])
    result = k3diff_cli(
        "responses", "b.jsonl", "p.jsonl", "--format", "json", "-o", "r.json", cwd=tmp_path
    )
    assert result.exit_code == 1 and result.stdout == ""
    document = json.loads((tmp_path / "r.json").read_text())
    assert document["summary"]["differing"] == 1 and len(document["records"]) == 5
    limited = k3diff_cli("responses", "b.jsonl", "p.jsonl", "--limit", "2", cwd=tmp_path)
    assert "… 3 more records not shown" in limited.stdout
    assert limited.stdout.index("text-differs") < limited.stdout.index("match ")


def test_help_has_an_example(k3diff_cli: Any) -> None:
    result = k3diff_cli("responses", "--help")
    assert result.exit_code == 0
    assert "k3diff responses base.jsonl patch.jsonl" in result.stdout
    assert "--normalize" in result.stdout and "--key" in result.stdout
