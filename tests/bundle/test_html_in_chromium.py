"""report.html opened from disk in a real headless Chromium: no console error, no network
request, plots and tables present, sortable, a non-blank screenshot."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_support import run_k3diff

from . import browser
from .helpers import sampled_seed, seed, wheels_json


@pytest.fixture(scope="module")
def chromium() -> str:
    return browser.install()


@pytest.fixture
def page(chromium: str, tmp_path: Path) -> Iterator[browser.Page]:
    yield from browser.open_page(chromium, tmp_path / "profile")


def test_the_seed_bundle_renders_offline_with_its_plots(
    page: browser.Page, tmp_path: Path, engines: dict[str, str]
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    comparison, samples, triage = sampled_seed(work, engines)
    result = run_k3diff(
        "report", wheels_json(work), comparison, samples, triage, "--out", "bundle", cwd=work
    )
    assert result.exit_code == 0, result.stderr
    for domain in ("Runtime", "Log", "Network", "Page"):
        page.call(f"{domain}.enable")
    page.call("Page.navigate", url=(work / "bundle/report.html").as_uri())
    page.wait_for("Page.loadEventFired")

    assert page.evaluate("document.querySelectorAll('figure svg').length") == 5  # splits too
    # the wheels document adds its execution-surfaces table to the others
    assert page.evaluate("document.querySelectorAll('table.sortable').length") == 7
    assert page.evaluate("document.getElementById('table-execution_surfaces') !== null")
    assert page.evaluate("document.getElementById('table-records').tBodies[0].rows.length") == 8
    assert (
        "0.78 (3 samples: up to 77.6 % of its outputs may differ from its usual one), 60 per side would bound it by 0.05, both at α = 0.05"
        in (page.evaluate("document.body.innerText"))
    )
    # Sorting: 'patch distinct' descending puts nothing above 1; 'key' descending puts q7 first.
    page.evaluate("document.querySelector('#table-records th').click()")
    page.evaluate("document.querySelector('#table-records th').click()")
    first = "document.getElementById('table-records').tBodies[0].rows[0].cells[0].textContent"
    assert page.evaluate(first) == "q7"

    image = page.screenshot()
    assert image.width >= 1000 and image.height > 1000
    colours = image.convert("RGB").getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 50

    errors = [
        e
        for e in page.events
        if e.get("method") in ("Runtime.exceptionThrown",)
        or (e.get("method") == "Runtime.consoleAPICalled" and e["params"]["type"] == "error")
        or (e.get("method") == "Log.entryAdded" and e["params"]["entry"]["level"] == "error")
    ]
    assert errors == []
    requests = [
        e["params"]["request"]["url"]
        for e in page.events
        if e.get("method") == "Network.requestWillBeSent"
    ]
    assert requests == [(work / "bundle/report.html").as_uri()]


def test_at_1400_px_wide_tables_scroll_in_their_box_not_the_page(
    page: browser.Page, tmp_path: Path
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    comparison, samples, triage = seed(work, base_stable=True)
    result = run_k3diff("report", comparison, samples, triage, "--out", "bundle", cwd=work)
    assert result.exit_code == 1, result.stderr
    page.call("Page.enable")
    page.call(
        "Emulation.setDeviceMetricsOverride",
        width=1400,
        height=1000,
        deviceScaleFactor=1,
        mobile=False,
    )
    page.call("Page.navigate", url=(work / "bundle/report.html").as_uri())
    page.wait_for("Page.loadEventFired")
    # The triage table has 16 columns: it is wider than the page and scrolls inside its box.
    table = "document.getElementById('table-records')"
    assert page.evaluate(f"{table}.offsetWidth > {table}.parentElement.clientWidth")
    page_width = page.evaluate("document.documentElement.scrollWidth")
    assert page_width <= page.evaluate("window.innerWidth"), page_width
    # The bottom line names the regressing records before the stages that fail.
    verdict = page.evaluate("document.querySelector('p.verdict').textContent")
    assert verdict.startswith("FAIL: 4 regression candidates q0, q1, q2, q3; "), verdict


def test_a_waiver_copied_from_the_page_keeps_its_paths_run_of_spaces(
    page: browser.Page, tmp_path: Path
) -> None:
    """A native library whose path holds two spaces changes: the bundle's step holds its
    waiver as one TOML line. Prose folds the run of spaces, so the waiver copied from the page
    named `pkg/_native x.so`, no finding's path (report66); the page keeps it, and the copied
    TOML waives the finding."""
    import tomllib

    import wheelkit

    from .helpers import BASE_FILES

    path = "pkg/_native  x.so"
    base = {**BASE_FILES, path: wheelkit.elf_bytes(b"\x90" * 64)}
    patch = {**BASE_FILES, path: wheelkit.elf_bytes(b"\xcc" * 64)}
    wheelkit.make_wheel(tmp_path / "base", "pkg", "1.0", base)
    wheelkit.make_wheel(tmp_path / "patch", "pkg", "1.0", patch)
    wheels = ["base/pkg-1.0-py3-none-any.whl", "patch/pkg-1.0-py3-none-any.whl"]
    made = run_k3diff("wheels", *wheels, "--format", "json", "-o", "w.json", cwd=tmp_path)
    assert made.exit_code == 1, made.stderr
    result = run_k3diff("report", "w.json", "--out", "bundle", cwd=tmp_path)
    assert result.exit_code == 1, result.stderr
    page.call("Page.enable")
    page.call("Page.navigate", url=(tmp_path / "bundle/report.html").as_uri())
    page.wait_for("Page.loadEventFired")

    shown = page.evaluate(
        "Array.from(document.querySelectorAll('ul.next li'), li => li.innerText)"
        ".find(text => text.includes('waiver = ['))"
    )
    assert isinstance(shown, str), shown
    copied = shown[shown.index("waiver = [") : shown.index("] (the same tables") + 1]
    (waiver,) = tomllib.loads(copied)["waiver"]
    assert (waiver["code"], waiver["path"]) == ("W101", path), copied
    # The TOML as code, and the same line the step in summary.json holds.
    code = page.evaluate("document.querySelector('ul.next code.toml').innerText")
    assert code == copied
    waivers = tmp_path / "waivers.toml"
    waivers.write_text(copied.replace("why this change", "reviewed: why this change") + "\n")
    waived = run_k3diff("wheels", *wheels, "--waivers", str(waivers), cwd=tmp_path)
    assert waived.exit_code == 0, waived.stdout  # the copied waiver waives the finding
