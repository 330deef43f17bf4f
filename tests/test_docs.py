"""The user's page stays a user's page: README.md within 300 lines, opening with the two
commands, and every relative link in it and in docs/ pointing at a file that exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _links(page: Path) -> list[tuple[str, Path]]:
    found = []
    for target in LINK.findall(page.read_text(encoding="utf-8")):
        if "://" in target or target.startswith(("#", "mailto:")):
            continue
        path = target.split("#", 1)[0]
        found.append((target, (page.parent / path).resolve()))
    return found


def test_readme_is_short_and_opens_with_the_two_commands() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 300
    fence = lines.index("```sh")
    assert lines[fence + 1].startswith("make demo") and lines[fence + 2].startswith("make test")


def test_every_relative_link_resolves() -> None:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    broken = [
        f"{page.relative_to(ROOT)}: {target}"
        for page in pages
        for target, path in _links(page)
        if not path.exists()
    ]
    assert broken == []


def test_the_readme_says_what_its_torch_bench_wheel_fails() -> None:
    # Found by the new-user trial: the README quotes the torch 2.5.1 pair for its speed figures;
    # the page says where it quotes the pair that its audit fails (A115), and that the WHEEL
    # file's linux_x86_64 under a manylinux1 filename is no W605 (tag59: pip installs by the
    # filename).
    text = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert "torch 2.5.1 pair" in text
    assert "The torch 2.5.1 wheel, as PyPI serves it, fails every audit by default" in text
    assert "no W605, since pip installs by the filename" in text


def test_the_logs_page_counts_the_prefilter_keywords_the_scanner_searches() -> None:
    # polish62: docs/logs.md said 34 substring passes a block while the scanner made 38.
    from k3diff.logs.rules import PREFILTER

    text = " ".join((ROOT / "docs" / "logs.md").read_text(encoding="utf-8").split())
    assert f"`k3diff.logs.rules.PREFILTER`: {len(PREFILTER)} keywords now" in text
