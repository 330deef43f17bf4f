"""`--waivers FILE`: a reviewed finding passes with its reason said everywhere; an expired
waiver does not apply and says so; a waiver nothing used is reported; a waiver file that
cannot be read is exit 2, never a silent pass or a silent fail."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import jsonschema
import pytest
import wheelkit
from cli_support import run_k3diff

from k3diff.documents.catalog import load_schema as schema_of
from k3diff.errors import InputError
from k3diff.wheel.codes import WAIVER_PLACEHOLDER_REASON, Code, Finding, Severity
from k3diff.wheel.policy import Policy
from k3diff.wheel.waivers import load_waivers

SO = wheelkit.elf_bytes(b"\x55\x48\x89\xe5" * 512)
SO_CHANGED = wheelkit.elf_bytes(b"\x31\xc0\xc3\x90" * 512)
MEMBER = "engine/_C.cpython-311-x86_64-linux-gnu.so"
TAG = "cp311-cp311-linux_x86_64"
REASON = "rebuilt with the new toolchain, reviewed"


def _pair(tmp_path: Path) -> tuple[Path, Path]:
    files = {"engine/__init__.py": b"x = 1\n", MEMBER: SO}
    base = wheelkit.make_wheel(tmp_path / "base", "engine", "1.0", files, tag=TAG)
    patch = wheelkit.make_wheel(
        tmp_path / "patch", "engine", "1.0", {**files, MEMBER: SO_CHANGED}, tag=TAG
    )
    return base, patch


def _waivers(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "waivers.toml"
    path.write_text(body, encoding="utf-8")
    return path


def _entry(code: str = "W101", path: str = MEMBER, extra: str = "") -> str:
    return f'[[waiver]]\ncode = "{code}"\npath = "{path}"\nreason = "{REASON}"\n{extra}\n'


def test_a_waived_native_change_passes_and_says_why_in_every_format(tmp_path: Path) -> None:
    base, patch = _pair(tmp_path)
    assert run_k3diff("wheels", base, patch, "--no-file-hash").exit_code == 1
    waivers = _waivers(tmp_path, _entry(extra="expires = 2999-12-31"))
    text = run_k3diff("wheels", base, patch, "--no-file-hash", "--waivers", waivers)
    assert text.exit_code == 0, text.stdout
    verdict = text.stdout.strip().splitlines()[-1]
    assert verdict.startswith("Verdict: OK (exit 0)")
    assert f"1 finding waived: W101 {MEMBER} — {REASON}" in verdict
    assert f"by waiver 1: {REASON} (until 2999-12-31)" in text.stdout
    result = run_k3diff(
        "wheels", base, patch, "--no-file-hash", "--waivers", waivers, "--format", "json"
    )
    document = json.loads(result.stdout)
    jsonschema.validate(document, schema_of("wheels"))
    finding = next(f for f in document["findings"] if f["code"] == "W101")
    assert finding["severity"] == "info"
    assert finding["waiver"] == {"number": 1, "reason": REASON, "expires": "2999-12-31"}
    assert document["waivers"]["waived"] == 1 and document["verdict"]["ok"] is True
    markdown = run_k3diff(
        "wheels", base, patch, "--no-file-hash", "--waivers", waivers, "--format", "markdown"
    )
    assert REASON in markdown.stdout and markdown.exit_code == 0


def test_an_expired_waiver_does_not_apply_and_says_so(tmp_path: Path) -> None:
    base, patch = _pair(tmp_path)
    waivers = _waivers(tmp_path, _entry(extra="expires = 2020-01-31"))
    result = run_k3diff("wheels", base, patch, "--no-file-hash", "--waivers", waivers)
    assert result.exit_code == 1
    assert "waiver 1 expired on 2020-01-31" in result.stdout
    assert result.stdout.strip().splitlines()[-1].startswith("Verdict: FAIL (exit 1): 1 × W101")


def test_unused_waivers_are_reported_and_globs_must_match(tmp_path: Path) -> None:
    base, patch = _pair(tmp_path)
    body = _entry(path="other/x.so") + _entry(extra='artifact = "someone-else-*.whl"')
    result = run_k3diff(
        "wheels", base, patch, "--no-file-hash", "--waivers", _waivers(tmp_path, body)
    )
    assert result.exit_code == 1
    assert "unused: waiver 1 (W101 other/x.so) matched no finding" in result.stdout
    assert f"unused: waiver 2 (W101 {MEMBER}) matched no finding" in result.stdout
    matching = _entry(extra='artifact = "engine-1.0-*.whl"')
    again = run_k3diff(
        "wheels", base, patch, "--no-file-hash", "--waivers", _waivers(tmp_path, matching)
    )
    assert again.exit_code == 0


def test_audit_takes_waivers_too(tmp_path: Path) -> None:
    bad = wheelkit.make_wheel(
        tmp_path / "bad",
        "tool",
        "1.0",
        {"tool/__init__.py": b"x = 1\n"},
        record_overrides={"tool/__init__.py": "tool/__init__.py,sha256=AAAA,6"},
    )
    result = run_k3diff("audit", bad, "--format", "json")
    assert result.exit_code == 1
    codes = {f["code"] for a in json.loads(result.stdout)["artifacts"] for f in a["findings"]}
    body = "".join(_entry(code=code, path="tool/__init__.py") for code in sorted(codes))
    waived = run_k3diff("audit", bad, "--waivers", _waivers(tmp_path, body), "--format", "json")
    assert waived.exit_code == 0, waived.stdout
    document = json.loads(waived.stdout)
    jsonschema.validate(document, schema_of("audit"))
    assert document["verdict"]["errors"] == 0
    assert document["waivers"]["waived"] == len(codes)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("not toml = = 1", "not a TOML waiver file"),
        ('[[waiver]]\ncode = "W101"\npath = "*"\n', "'reason' is required"),
        ('[[waiver]]\ncode = "W101"\npath = "*"\nreason = "  "\n', "'reason' is empty"),
        ('[[waiver]]\ncode = "W999"\npath = "*"\nreason = "r"\n', "unknown finding code"),
        (
            '[[waiver]]\ncode = "W101"\npath = "x.so"\nreason = "r"\nexpires = "soon"\n',
            "not a date",
        ),
        ('[[waiver]]\ncode = "W101"\npath = "*"\nreason = "r"\nowner = "me"\n', "unknown key"),
        ("title = 'x'\n", "unknown top-level key"),
        ("", "no [[waiver]] table"),
    ],
)
def test_a_bad_waiver_file_is_exit_2_in_one_line(tmp_path: Path, body: str, message: str) -> None:
    base, patch = _pair(tmp_path)
    waivers = _waivers(tmp_path, body)
    result = run_k3diff("wheels", base, patch, "--no-file-hash", "--waivers", waivers)
    assert result.exit_code == 2
    assert message in result.stderr and str(waivers) in result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_policy_waives_by_code_path_and_day(tmp_path: Path) -> None:
    waivers = load_waivers(
        _waivers(tmp_path, _entry(extra="expires = 2027-01-31")), today=dt.date(2027, 1, 31)
    )
    policy = Policy(waivers=waivers)
    native = Finding(Code.W101, MEMBER, "size differs")
    assert policy.severity_of(native) is Severity.INFO  # its last day still applies
    assert policy.severity_of(Finding(Code.W102, MEMBER, "")) is Severity.ERROR
    assert policy.severity_of(Finding(Code.W101, "other/x.so", "")) is Severity.ERROR
    later = Policy(waivers=load_waivers(tmp_path / "waivers.toml", dt.date(2027, 2, 1)))
    assert later.severity_of(native) is Severity.ERROR


def test_a_release_set_calls_a_waiver_unused_only_when_no_pair_used_it(tmp_path: Path) -> None:
    """Pair `alpha` has no finding the waiver covers, pair `beta` does: alpha's section must not
    call the waiver stale while the set uses it; a waiver no pair used is named once."""
    for side, payload in (("a", SO), ("b", SO_CHANGED)):
        for name in ("alpha", "beta"):
            files = {f"{name}/__init__.py": b"", f"{name}/_k.so": payload}
            wheelkit.make_wheel(tmp_path / side, name, "1.0", files, tag=TAG)
    body = _entry(path="beta/_k.so") + _entry(path="alpha/_k.so") + _entry(path="gone/_k.so")
    result = run_k3diff(
        "wheels", tmp_path / "a", tmp_path / "b", "--no-file-hash",
        "--waivers", _waivers(tmp_path, body),
    )  # fmt: skip
    assert result.exit_code == 0, result.stdout
    assert "waiver 1 (W101 beta/_k.so) matched no finding" not in result.stdout
    assert "waiver 2 (W101 alpha/_k.so) matched no finding" not in result.stdout
    assert result.stdout.count("unused: waiver 3 (W101 gone/_k.so) matched no finding") == 1


def test_thousands_of_unused_waivers_are_counted_not_listed(tmp_path: Path) -> None:
    base, patch = _pair(tmp_path)
    body = "".join(_entry(path=f"gone{n}/_k.so") for n in range(200))
    result = run_k3diff(
        "wheels", base, patch, "--no-file-hash", "--waivers", _waivers(tmp_path, body)
    )
    assert result.exit_code == 1
    assert result.stdout.count("matched no finding (stale?)") == 50
    assert "… and 150 more unused (--format json)" in result.stdout


def test_a_waiver_reason_cannot_break_the_verdict_line_or_start_a_workflow_command(
    tmp_path: Path,
) -> None:
    """The reason is repeated in the verdict line; a newline there started a line of its own
    (`::error::…` is a GitHub workflow command on stdout) and an ESC reached the terminal."""
    base, patch = _pair(tmp_path)
    hostile = "ok\\n::error::forged \\u001b[31mRED <img src=x> \\u0007"
    body = f'[[waiver]]\ncode = "W101"\npath = "{MEMBER}"\nreason = "{hostile}"\n'
    waivers = _waivers(tmp_path, body)
    runs = [
        ("wheels", base, patch, "--no-file-hash", "--waivers", waivers),
        ("wheels", base.parent, patch.parent, "--no-file-hash", "--waivers", waivers),
    ]
    for args in runs:
        for fmt in ("text", "markdown"):
            result = run_k3diff(*args, "--format", fmt)
            assert result.exit_code == 0, result.stdout
            assert "\x1b" not in result.stdout and "\x07" not in result.stdout
            lines = result.stdout.splitlines()
            assert not any(line.startswith("::") for line in lines)
            verdict = lines[-1]
            assert "waived" in verdict and "\\n::error::forged \\x1b" in verdict
            if fmt == "markdown":
                assert "<img" not in verdict


def test_archive_soundness_findings_cannot_be_waived(tmp_path: Path) -> None:
    base, patch = _pair(tmp_path)
    for code in ("W601", "W612", "W613", "W616"):
        waivers = _waivers(tmp_path, _entry(code=code, path="*"))
        result = run_k3diff("wheels", base, patch, "--no-file-hash", "--waivers", waivers)
        assert result.exit_code == 2, code
        assert f"{code} (" in result.stderr and "cannot be waived" in result.stderr


def test_an_artifact_pip_cannot_install_at_all_cannot_be_waived(tmp_path: Path) -> None:
    # review66: a waiver for A001 (not a zip archive) or A126 (not a wheel filename) made the
    # artifact pass (exit 0): pip refuses both files, and no review of a content can accept one.
    files = {"engine/__init__.py": b"x = 1\n"}
    copy = wheelkit.make_wheel(tmp_path, "engine", "1.0", files, filename="copy.whl")
    broken = tmp_path / "engine-1.0-py3-none-any.whl"
    broken.write_bytes(b"not a zip")
    for code, artifact in (("A001", broken), ("A126", copy)):
        assert run_k3diff("audit", artifact).exit_code == 1, code
        waivers = _waivers(tmp_path, _entry(code=code, path="*"))
        result = run_k3diff("audit", artifact, "--waivers", waivers)
        assert result.exit_code == 2, (code, result.stdout)
        assert result.stderr.startswith(f"k3diff: error: {waivers}: waiver 1: {code} (")
        assert "cannot be waived" in result.stderr


@pytest.mark.parametrize("extra", ["", 'artifact = "engine-*.whl"'])
def test_a_waived_native_change_still_has_its_record_row_checked(
    tmp_path: Path, extra: str
) -> None:
    """A changed native whose W101 fails the run is not hashed for RECORD (the verdict is FAIL
    either way); once a waiver may take that W101 away, a RECORD row that lies about the new
    library must still fail the run (W302), as it does under --allow-native-changes."""
    files = {"engine/__init__.py": b"x = 1\n", MEMBER: SO}
    base = wheelkit.make_wheel(tmp_path / "base", "engine", "1.0", files, tag=TAG)
    lie = f"{MEMBER},{wheelkit.record_hash(b'not the library')},{len(SO_CHANGED)}"
    patch = wheelkit.make_wheel(
        tmp_path / "patch",
        "engine",
        "1.0",
        {**files, MEMBER: SO_CHANGED},
        tag=TAG,
        record_overrides={MEMBER: lie},
    )
    allowed = run_k3diff("wheels", base, patch, "--allow-native-changes")
    assert allowed.exit_code == 1 and "W302" in allowed.stdout, allowed.stdout
    waivers = _waivers(tmp_path, _entry(extra=extra))
    result = run_k3diff("wheels", base, patch, "--waivers", waivers)
    assert result.exit_code == 1, result.stdout
    assert "1 × W302" in result.stdout.strip().splitlines()[-1], result.stdout


@pytest.mark.parametrize("code", ["W101", "W102", "W103", "A103"])
@pytest.mark.parametrize("path", ["*", "engine/*.so", "engine/_C?cpython*", "engine/[_]C*.so"])
def test_a_native_change_or_record_mismatch_is_waived_by_exact_path_only(
    tmp_path: Path, code: str, path: str
) -> None:
    """fix58 item 4: `A103 path="*"` (or W101 over a glob) would clear any later tampered
    library without a word; refused, exit 2 in one line naming the file and the waiver. (A `[`
    alone is a character of the name, hostile59: tests/wheel/test_waiver_natives.py.)"""
    base, patch = _pair(tmp_path)
    waivers = _waivers(tmp_path, _entry() + _entry(code=code, path=path))
    for args in (("wheels", base, patch, "--no-file-hash"), ("audit", patch)):
        result = run_k3diff(*args, "--waivers", waivers)
        assert result.exit_code == 2, result.stdout
        line = result.stderr.strip()
        assert "\n" not in line and "Traceback" not in line
        assert f"{waivers}: waiver 2: {code} (" in line, line
        assert f"is waived by one exact path, not the glob {path!r}" in line, line


def test_the_verdict_names_every_waived_native_change(tmp_path: Path) -> None:
    """Two libraries changed, each waived by its own path: the verdict line names both with
    their paths and reasons (not the first and "1 more")."""
    other = "engine/_D.cpython-311-x86_64-linux-gnu.so"
    files = {"engine/__init__.py": b"x = 1\n", MEMBER: SO, other: SO}
    base = wheelkit.make_wheel(tmp_path / "base", "engine", "1.0", files, tag=TAG)
    changed = {**files, MEMBER: SO_CHANGED, other: SO_CHANGED}
    patch = wheelkit.make_wheel(tmp_path / "patch", "engine", "1.0", changed, tag=TAG)
    body = _entry() + f'[[waiver]]\ncode = "W101"\npath = "{other}"\nreason = "second"\n'
    result = run_k3diff(
        "wheels", base, patch, "--no-file-hash", "--waivers", _waivers(tmp_path, body)
    )
    assert result.exit_code == 0, result.stdout
    verdict = result.stdout.strip().splitlines()[-1]
    assert f"2 findings waived: W101 {MEMBER} — {REASON}; W101 {other} — second" in verdict
    assert "more" not in verdict


def test_every_pasted_placeholder_is_named_in_one_refusal(tmp_path: Path) -> None:
    stanza = '[[waiver]]\ncode = "W101"\npath = "a{n}.so"\nreason = "{r}"\n'
    reasons = [WAIVER_PLACEHOLDER_REASON] * 6
    reasons[2] = REASON
    body = "".join(stanza.format(n=n, r=r) for n, r in enumerate(reasons))
    with pytest.raises(InputError) as caught:
        load_waivers(_waivers(tmp_path, body))
    assert str(caught.value).endswith(
        "waivers.toml: waivers 1, 2, 4-6: in all 5, 'reason' is still the suggested placeholder: "
        "say why this change is expected and who reviewed it"
    )
