"""The class overview in a real browser: headless Chromium, offline, with both of issue 20's sections.

Contract: `grade batch --similar` writes an index.html whose "common mistakes" and "unusually alike"
sections Chromium renders without a request leaving the page or a console message; the links from a
mistake to a student's check, from a pass rate to who failed it, and from a pair to its side-by-side
page lead to files that exist; the pair page loads quietly too. The harness (a recording proxy, the
`chromium` fixture that skips or fails as tests/end_to_end/test_browser.py explains) is tests/end_to_end/test_browser.py's.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from end_to_end.test_browser import OUTPUT, chromium, visit  # noqa: F401 (chromium is a fixture)
from render.test_mistakes import PLANTED, source
from classes.test_similar import grade_command, write_class


@pytest.fixture(scope="module")
def overview(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("overview")
    folder = write_class(root / "class")
    for student, plan in PLANTED.items():
        if plan is not None and plan != "template":
            (folder / f"{student.lstrip('=')}.py").write_text(source(plan), encoding="utf-8")
    done = grade_command("batch", folder, "-e", "3.1,mask", "-o", root / "out", "-j", 2, "--timeout", 20, "--similar")
    assert done.returncode == 0, done.stderr
    return root / "out"


def test_the_overview_with_both_sections_loads_offline_and_quietly(chromium: str, overview: Path) -> None:  # noqa: F811
    loaded = visit(chromium, overview / "index.html", "--dump-dom")
    assert loaded.requests == [] and loaded.console == [], (loaded.requests, loaded.console)
    dom = loaded.stdout
    assert re.search(r'<section id="mistakes">.*data-mistake="3\.1\.diag\.missing_transpose"', dom, re.S)
    assert re.search(r'<section id="similar">.*data-a="alice" data-b="mallory"', dom, re.S)
    links = set(re.findall(r'href="((?:pages|similar)/[^"#]+)(?:#[^"]*)?"', dom))
    assert any(link.startswith("similar/") for link in links) and any(link.startswith("pages/") for link in links)
    assert all((overview / link).is_file() for link in links), links

    OUTPUT.mkdir(parents=True, exist_ok=True)
    screenshot = OUTPUT / "class-overview.png"
    screenshot.unlink(missing_ok=True)
    shot = visit(chromium, overview / "index.html", f"--screenshot={screenshot}", "--window-size=1200,3000")
    assert shot.requests == [] and shot.console == []
    assert screenshot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_pair_page_loads_offline_and_marks_shared_lines(chromium: str, overview: Path) -> None:  # noqa: F811
    page = next((overview / "similar").glob("*.html"))
    loaded = visit(chromium, page, "--dump-dom")
    assert loaded.requests == [] and loaded.console == []
    assert loaded.stdout.count("<pre") == 2 and "<mark" in loaded.stdout
