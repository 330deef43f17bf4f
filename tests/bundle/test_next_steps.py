"""The bundle says what to run next (ci64): right under the bottom line of REPORT.md and
report.html (and in summary.json's `next_steps`), for each failing or inconclusive row, the
step its document's own command suggests in its own report — wheels' `--explain`,
`--allow-native-changes` and waiver stanza, triage's `next:` line, where the logs report lists
a new error — in that report's words, with bare `k3diff`; none when everything passes."""

from __future__ import annotations

import html
import json
import re
import shlex
import shutil
from pathlib import Path
from typing import Any

import pytest
import wheelkit
from cli_support import HOSTILE, pasted, run_k3diff
from triage.helpers import S, compare_texts, write_samples
from wheels.wheelset_support import SOLO, release_sets

from k3diff.wheel.codes import WAIVER_PLACEHOLDER_REASON

from .helpers import wheels_json

WHEEL = "pkg-1.0-py3-none-any.whl"


def _report(where: Path, *inputs: str, code: int) -> tuple[list[dict[str, str]], str, str]:
    result = run_k3diff("report", *inputs, "--out", "b", cwd=where)
    assert result.exit_code == code, result.stdout + result.stderr
    summary: dict[str, Any] = json.loads((where / "b" / "summary.json").read_text())
    return (
        summary["next_steps"],
        (where / "b" / "REPORT.md").read_text(),
        (where / "b" / "report.html").read_text(),
    )


def _under_bottom_line(report: str) -> list[str]:
    """REPORT.md's next steps: the list between `### Next steps` and the evidence matrix, which
    must come right after the bottom line."""
    bottom, _, rest = report.partition("## Bottom line")
    assert bottom and rest
    before_matrix = rest.split("## Evidence matrix")[0]
    if "### Next steps" not in before_matrix:
        return []
    listed = before_matrix.split("### Next steps")[1]
    return [line[2:] for line in listed.splitlines() if line.startswith("- ")]


def test_a_changed_native_gets_wheels_own_next_steps(tmp_path: Path) -> None:
    name = wheels_json(tmp_path, native_changed=True)
    steps, report, html = _report(tmp_path, name, code=1)
    text = run_k3diff("wheels", f"base/{WHEEL}", f"patch/{WHEEL}", cwd=tmp_path).stdout
    assert "Next steps (native code differs)" in text
    said = [line.strip() for line in text.splitlines()]
    command = f"k3diff wheels base/{WHEEL} patch/{WHEEL} "
    explain, allow, waiver = (s["step"] for s in steps)
    # The options in `wheels`' own words, after the command they are given to.
    assert explain.startswith(command) and explain.removeprefix(command) in said
    assert explain.removeprefix(command).startswith("--explain: ")
    assert allow.startswith(command) and allow.removeprefix(command) in said
    # The waiver stanza `wheels` prints, as one TOML line that, once reviewed (its reason
    # written), waives the finding.
    assert waiver.startswith("or accept each reviewed file with a waiver")
    line = "waiver = [" + waiver.split("waiver = [")[1].split("] (the same tables")[0] + "]"
    reviewed = line.replace(WAIVER_PLACEHOLDER_REASON, "rebuilt with the new toolchain, by ana")
    (tmp_path / "waivers.toml").write_text(reviewed + "\n")
    waived = run_k3diff(
        "wheels", f"base/{WHEEL}", f"patch/{WHEEL}", "--waivers", "waivers.toml", cwd=tmp_path
    )
    assert waived.exit_code == 0, waived.stdout + waived.stderr
    assert {s["evidence"] for s in steps} == {"artifact identity"}
    assert {s["source"] for s in steps} == {name}
    listed = _under_bottom_line(report)
    assert len(listed) == 3 and listed[0].startswith(f"artifact identity ({name}): k3diff wheels")
    assert html.index("<h3>Next steps</h3>") < html.index("<h2>Evidence matrix</h2>")
    assert html.count("<li>artifact identity (") == 3


def test_an_explained_pair_is_not_told_to_explain(tmp_path: Path) -> None:
    wheels_json(tmp_path, native_changed=True)
    made = run_k3diff(
        "wheels", f"base/{WHEEL}", f"patch/{WHEEL}", "--explain", "--format", "json",
        "-o", "x.json", cwd=tmp_path,
    )  # fmt: skip
    assert made.exit_code == 1, made.stderr
    steps, _, _ = _report(tmp_path, "x.json", code=1)
    assert [s["step"].split(": ")[0] for s in steps][:1] == [
        f"k3diff wheels base/{WHEEL} patch/{WHEEL} --allow-native-changes"
    ]
    assert not any("--explain" in s["step"] for s in steps)


def test_nothing_to_do_when_everything_passes(tmp_path: Path) -> None:
    name = wheels_json(tmp_path, native_changed=False)
    steps, report, html = _report(tmp_path, name, code=0)
    assert steps == []
    assert "Next steps" not in report and "Next steps" not in html


def test_a_held_triage_gets_its_next_line(tmp_path: Path) -> None:
    # No power at n = 3: triage's `next:` line says how many more samples would decide it.
    answers = {"base": ["The answer is 3.", "It is 5.", "Five."], "patch": ["8", "Eight.", "8!"]}
    samples = [S(side, "q", text) for side, texts in answers.items() for text in texts]
    compare_texts(tmp_path, {"q": ("The answer is 1.", "9")})
    write_samples(tmp_path / "run" / "samples.jsonl", samples, params={"temperature": 1})
    triage = run_k3diff("triage", "cmp.json", "run/samples.jsonl", cwd=tmp_path)
    (own,) = [line for line in triage.stdout.splitlines() if line.startswith("next: ")]
    made = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--format", "json", "-o", "t.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert made.exit_code == 1, made.stderr
    more = json.loads((tmp_path / "t.json").read_text())["records"][0]["more_samples"]
    steps, report, _ = _report(tmp_path, "cmp.json", "run/samples.jsonl", "t.json", code=1)
    (step,) = [s for s in steps if s["source"] == "t.json"]
    # The run's repeats (3, from its log) grown by what the held record asks for, as triage's
    # own line has it, with bare `k3diff` and RUN_DIR for the run's directory.
    assert f"--out RUN_DIR --resume --repeats {3 + more:,}" in step["step"]
    assert step["step"].startswith(f"to take the {more:,} more samples a side")
    assert own.split(", grow the run: ")[0] == "next: " + step["step"].split(", grow the run: ")[0]
    (listed,) = [s for s in _under_bottom_line(report) if s.startswith("nondeterminism")]
    assert listed.startswith("nondeterminism follow-up (t.json): to take the")
    assert f"--resume --repeats {3 + more:,} (only --repeats may grow" in listed


def test_a_new_log_error_says_where_the_logs_report_lists_it(tmp_path: Path) -> None:
    (tmp_path / "base.log").write_text("INFO: Application startup complete.\n")
    (tmp_path / "patch.log").write_text(
        "INFO: Application startup complete.\n"
        "RuntimeError: CUDA error: an illegal memory access was encountered\n"
    )
    made = run_k3diff(
        "logs", "base.log", "patch.log", "--format", "json", "-o", "l.json", cwd=tmp_path
    )
    assert made.exit_code == 1, made.stderr
    (rule,) = {f["rule"] for f in json.loads((tmp_path / "l.json").read_text())["findings"]}
    text = run_k3diff("logs", "base.log", "patch.log", cwd=tmp_path).stdout
    assert "patch.log:2:" in text  # where the logs report lists it
    steps, _, _ = _report(tmp_path, "l.json", code=1)
    (step,) = steps
    assert step["evidence"] == "runtime logs"
    assert step["step"].endswith(f": {rule} at patch.log:2")


def test_the_new_log_errors_are_named_in_the_order_the_log_shows_them(tmp_path: Path) -> None:
    """newuser64c: the step listed the findings in the document's order (by rule), so the
    out-of-memory at :2 came after the CUDA error below it at :3."""
    (tmp_path / "base.log").write_text("INFO: Application startup complete.\n")
    (tmp_path / "patch.log").write_text(
        "INFO: Application startup complete.\n"
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n"
        "RuntimeError: CUDA error: an illegal memory access was encountered\n"
    )
    made = run_k3diff(
        "logs", "base.log", "patch.log", "--format", "json", "-o", "l.json", cwd=tmp_path
    )
    assert made.exit_code == 1, made.stderr
    findings = json.loads((tmp_path / "l.json").read_text())["findings"]
    lines = {f["rule"]: f["examples"][0]["line"] for f in findings if f["side"] == "patch"}
    assert sorted(lines.values()) == [2, 3], lines
    (step,) = _report(tmp_path, "l.json", code=1)[0]
    at = [f"{rule} at patch.log:{line}" for rule, line in sorted(lines.items(), key=lambda i: i[1])]
    assert step["step"].endswith(": " + ", ".join(at)), step["step"]


def test_a_release_set_gets_each_failing_pair_and_its_unpaired_wheel(tmp_path: Path) -> None:
    release_sets(tmp_path, native_change=True)
    made = run_k3diff("wheels", "base", "patch", "--format", "json", "-o", "s.json", cwd=tmp_path)
    assert made.exit_code == 1, made.stderr
    document = json.loads((tmp_path / "s.json").read_text())
    failing = [
        (p["wheels"]["base"]["path"], p["wheels"]["patch"]["path"])
        for p in document["pairs"]
        if any(f["code"] == "W101" and f["severity"] == "error" for f in p["wheels"]["findings"])
    ]
    assert failing
    steps = [s["step"] for s in _report(tmp_path, "s.json", code=1)[0]]
    for base, patch in failing:  # each failing pair's steps name it and its command
        assert f"{base} -> {patch}: k3diff wheels {base} {patch} --allow-native-changes" in (
            " ".join(steps)
        )
    assert steps[-1] == (
        f"base/{SOLO}: not compared, so they fail the run (--allow-unpaired accepts them)"
    )


def test_a_failing_tool_config_gets_its_waiver_without_native_options(tmp_path: Path) -> None:
    """newuser64b: a patch that only adds a Jupyter server config (W717) failed the identity
    row with no next step; the step is `wheels`' own waiver, with no native option, and its
    TOML line, once reviewed, waives the finding."""
    config = "pkg-1.0.data/data/etc/jupyter/jupyter_server_config.d/x.json"
    files = {"pkg/__init__.py": b""}
    wheelkit.make_wheel(tmp_path / "base", "pkg", "1.0", files)
    wheelkit.make_wheel(tmp_path / "patch", "pkg", "1.0", {**files, config: b"{}\n"})
    pair = (f"base/{WHEEL}", f"patch/{WHEEL}")
    made = run_k3diff("wheels", *pair, "--format", "json", "-o", "w.json", cwd=tmp_path)
    assert made.exit_code == 1, made.stdout + made.stderr
    steps, report, _ = _report(tmp_path, "w.json", code=1)
    [waiver] = [s["step"] for s in steps]
    assert waiver.startswith("accept each reviewed file with a waiver"), waiver
    assert "--allow-native-changes" not in waiver and "--explain" not in waiver
    line = "waiver = [" + waiver.split("waiver = [")[1].split("] (the same tables")[0] + "]"
    assert f'code = "W717", path = "{config}"' in line
    reviewed = line.replace(WAIVER_PLACEHOLDER_REASON, "the server extension we ship, by ana")
    (tmp_path / "waivers.toml").write_text(reviewed + "\n")
    waived = run_k3diff("wheels", *pair, "--waivers", "waivers.toml", cwd=tmp_path)
    assert waived.exit_code == 0, waived.stdout + waived.stderr
    assert len(_under_bottom_line(report)) == 1


def test_a_wheels_step_is_runnable_as_printed_whatever_the_paths(tmp_path: Path) -> None:
    """review64b: the wheels command was the paths pasted between spaces, so a wheel kept under
    `dist $(touch PWNED)/` gave a step that, pasted into a shell, ran what its path spelt."""
    wheels_json(tmp_path, native_changed=True)
    odd = tmp_path / "dist $(touch PWNED)"
    (tmp_path / "patch").rename(odd)
    patch = f"{odd.name}/{WHEEL}"
    made = run_k3diff(
        "wheels", f"base/{WHEEL}", patch, "--format", "json", "-o", "odd.json", cwd=tmp_path
    )
    assert made.exit_code == 1, made.stderr
    steps, _, _ = _report(tmp_path, "odd.json", code=1)
    commands = [s["step"] for s in steps if s["step"].startswith("k3diff wheels ")]
    assert commands
    for command in commands:
        words = shlex.split(command.split(": ", 1)[0])
        assert words[:4] == ["k3diff", "wheels", f"base/{WHEEL}", patch], command


def _rendered_markdown(line: str) -> str:
    """A Markdown line as a reader sees it: CommonMark's backslash escapes of ASCII punctuation
    and its entities undone."""
    return html.unescape(re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", line))


def _rendered_html(item: str) -> str:
    """An HTML list item's text as a browser shows it: tags dropped, entities undone, each run
    of whitespace one space."""
    return " ".join(html.unescape(re.sub(r"<[^>]*>", "", item)).split())


@pytest.mark.skipif(shutil.which("bash") is None, reason="the command is pasted into bash")
def test_a_wheels_step_pastes_as_the_paths_given_from_the_rendered_report(tmp_path: Path) -> None:
    """shell65: a wheel kept where a path holds two spaces, a tab, a newline or an ESC was named
    quoted, then REPORT.md showed the tab as `\\t` and a browser folded the spaces, so the
    pasted step compared other files. Pasted from either report as a reader sees it, the step's
    command names the wheels given."""
    wheels_json(tmp_path, native_changed=True)
    odd = tmp_path / HOSTILE
    (tmp_path / "patch").rename(odd)
    patch = f"{odd.name}/{WHEEL}"
    made = run_k3diff(
        "wheels", f"base/{WHEEL}", patch, "--format", "json", "-o", "odd.json", cwd=tmp_path
    )
    assert made.exit_code == 1, made.stderr
    _, report, page = _report(tmp_path, "odd.json", code=1)
    shown = [_rendered_markdown(line) for line in _under_bottom_line(report)]
    shown += [_rendered_html(item) for item in re.findall(r"<li>(.*?)</li>", page, re.S)]
    commands = [line.split("): ", 1)[1] for line in shown if "): k3diff wheels " in line]
    assert len(commands) == 4, shown  # --explain and --allow-native-changes, in each report
    for command in commands:
        words = pasted(command.split(": ", 1)[0])
        assert words[:4] == ["k3diff", "wheels", f"base/{WHEEL}", patch], command


def test_the_waiver_line_stands_in_report_md_as_code_to_paste(tmp_path: Path) -> None:
    """REPORT.md wrote the waiver TOML as prose: `waiver = \\[{…}]` and `pkg/\\_native`,
    backslashes the TOML does not hold, and a rendered page folds a path's run of spaces
    (report66). It stands as inline code, the TOML summary.json's step holds as `toml`."""
    import tomllib

    from .helpers import BASE_FILES

    path = "pkg/_native  x.so"
    wheelkit.make_wheel(tmp_path / "base", "pkg", "1.0", {**BASE_FILES, path: b"\x7fELF" + b"a"})
    wheelkit.make_wheel(tmp_path / "patch", "pkg", "1.0", {**BASE_FILES, path: b"\x7fELF" + b"b"})
    wheels = ["base/pkg-1.0-py3-none-any.whl", "patch/pkg-1.0-py3-none-any.whl"]
    made = run_k3diff("wheels", *wheels, "--format", "json", "-o", "w.json", cwd=tmp_path)
    assert made.exit_code == 1, made.stderr
    steps, markdown, _ = _report(tmp_path, "w.json", code=1)
    (toml,) = [s["toml"] for s in steps if "toml" in s]
    spans = re.findall(r"`(waiver = \[.*?\])`", markdown)
    assert spans == [toml], markdown
    (waiver,) = tomllib.loads(spans[0])["waiver"]
    assert (waiver["code"], waiver["path"]) == ("W101", path)


def test_a_wheels_step_names_a_wheel_named_like_an_option_as_a_path(tmp_path: Path) -> None:
    """A base given as `-- -pkg….whl` made the step `k3diff wheels -pkg….whl …`, whose first
    path k3diff read as options (review73c): it names `./-pkg….whl`, the same file."""
    wheels_json(tmp_path, native_changed=True)
    (tmp_path / "base" / WHEEL).rename(tmp_path / f"-{WHEEL}")
    args = ("--format", "json", "-o", "dash.json", "--", f"-{WHEEL}", f"patch/{WHEEL}")
    assert run_k3diff("wheels", *args, cwd=tmp_path).exit_code == 1
    steps, _, _ = _report(tmp_path, "dash.json", code=1)
    commands = [s["step"] for s in steps if s["step"].startswith("k3diff wheels ")]
    assert commands
    for command in commands:
        words = shlex.split(command.split(": ", 1)[0])
        assert words[:4] == ["k3diff", "wheels", f"./-{WHEEL}", f"patch/{WHEEL}"], command
