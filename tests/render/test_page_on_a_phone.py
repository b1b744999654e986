"""The feedback page on a phone (issue 50, point 3): the score and the checks come first.

Contract: under the title come the total and the score table, then the checks; the run's details (when,
how long, the budget, the seed, the sandbox's protections) are folded in one closed <details>, the
protections said in plain words in every language rather than as internal names. In a 400×800 window
(a phone, in an iframe: headless Chromium lays a window out at least 500 px wide) the score table and
the first check card start within the first screen, in English and in Chinese.
"""
from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from conftest import grade, mutant, mutations, select
from grader.judge.launcher import ZygoteLauncher
from grader.render import html
from grader.results import RunResult
from end_to_end.test_browser import chromium, visit  # noqa: F401  (the fixture: required in CI, else skipped)
from helpers import notebook
from render.test_page import parse

PROTECTIONS = ("pid-namespace", "network-namespace", "mount-namespace", "private-proc", "disk-quota",
               "memory-limit", "cpu-limit", "landlock-abi4", "seccomp", "unprivileged-user", "subreaper",
               "memory-cgroup", "deadlines", "process-group-kill", "scratch-copy", "output-capture")

FRAME = """<!DOCTYPE html><html><head><meta charset="utf-8"></head><body style="margin:0">
<iframe id="phone" src="PAGE" style="width:WIDTHpx;height:800px;border:0"></iframe>
<script>
document.getElementById("phone").addEventListener("load", (event) => {
  const doc = event.target.contentDocument;
  const top = (selector) => { const el = doc.querySelector(selector);
                              return el ? el.getBoundingClientRect().top : null; };
  const out = document.createElement("pre"); out.id = "layout-report";
  out.textContent = JSON.stringify({window: doc.documentElement.clientWidth, page: doc.documentElement.scrollWidth,
                                    height: doc.documentElement.clientHeight, table: top("table.summary"),
                                    check: top("article.check"), details: top("details.run-details")});
  document.body.append(out);
});
</script></body></html>"""


@pytest.fixture(scope="module")
def failing(launcher: ZygoteLauncher, tmp_path_factory: pytest.TempPathFactory) -> RunResult:
    """A chapter's worth of exercises, the mask with a bug: the longest score table a student sees."""
    work = tmp_path_factory.mktemp("phone")
    path = work / "attention_homework.py"
    path.write_text(mutant(mutations.MASK_BUGS, "diagonal_zero"), encoding="utf-8")
    run = grade(path, select("ch03"), launcher, seed=1, timeout=60)
    assert any(c.status == "failed" for e in run.exercises for c in e.checks)
    return replace(run, protections=PROTECTIONS)


def layout(chromium: str, page: str, tmp_path: Path, width: int) -> dict[str, float]:
    (tmp_path / "page.html").write_text(page, encoding="utf-8")
    frame = tmp_path / f"frame{width}.html"
    frame.write_text(FRAME.replace("PAGE", "page.html").replace("WIDTH", str(width)), encoding="utf-8")
    dom = visit(chromium, frame, "--dump-dom", "--allow-file-access-from-files", "--window-size=1400,900").stdout
    found = re.search(r'<pre id="layout-report">(.*?)</pre>', dom, re.S)
    assert found is not None, dom[-2000:]
    return dict(json.loads(found.group(1)))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_phone_shows_the_score_and_the_first_check(failing: RunResult, chromium: str, tmp_path: Path,
                                                      lang: str) -> None:
    report = layout(chromium, html.render(replace(failing, lang=lang)), tmp_path, 400)
    assert 380 <= report["window"] <= 400 and report["height"] <= 800, report  # a phone, less a scroll bar
    assert report["table"] is not None and 0 <= report["table"] < 800, report
    assert report["check"] is not None and report["table"] < report["check"] < 800, report  # the first check card
    assert report["details"] is not None and report["details"] < report["check"], report  # folded, one line


def test_a_wide_window_shows_them_too(failing: RunResult, chromium: str, tmp_path: Path) -> None:
    report = layout(chromium, html.render(failing), tmp_path, 1280)
    assert report["table"] is not None and report["check"] is not None and report["check"] < 800, report


def test_the_runs_details_are_folded_in_plain_words(failing: RunResult) -> None:
    dom = parse(html.render(failing))
    folded = dom.find("details", cls="run-details")
    assert "open" not in folded.attrs
    assert dom.find("dl", cls="meta") is folded.find("dl", cls="meta")  # the budget, seed, version: inside
    assert str(failing.seed) in folded.text("en") and "--seed" in folded.text("en")
    items = folded.find("dd", cls="protections").find_all("li")
    assert 0 < len(items) < len(PROTECTIONS)  # two memory caps read alike: said once
    english, chinese = folded.text("en"), folded.text("zh")
    assert "no network" in english and "dangerous system calls are blocked" in english
    assert "无法访问网络" in chinese and "危险的系统调用被禁止" in chinese
    for name in PROTECTIONS:
        assert name not in english and name not in chinese, name
    # the summary is the first thing after the score table, and it is before every check
    page = html.render(failing)
    assert page.index('class="summary"') < page.index('class="run-details"') < page.index('<article class="check')


def test_a_protection_the_page_does_not_know_is_shown_as_it_is() -> None:
    assert html.protection("quantum-shield") == {"en": "quantum-shield", "zh": "quantum-shield"}
    assert html.protection("landlock-abi6")["en"] == "it may read and write only its own files"


# -- %grade names the notebook (issue 50, point 5) ------------------------------------------------------
def test_grade_in_jupyter_names_the_notebook(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Jupyter Server gives the kernel its notebook's session path (JPY_SESSION_NAME, relative to the server's
    folder, not the kernel's; the notebook not yet saved): the header and the banner name that notebook, not
    `(kernel)` and `notebook.ipynb`."""
    monkeypatch.setenv("JPY_SESSION_NAME", "course/chapter3/attention_homework.ipynb")
    nb = nbformat.reads(notebook(mutant(mutations.MASK_BUGS, "diagonal_zero"), "%load_ext grader",
                                 "%grade mask --lang en"), as_version=4)
    NotebookClient(nb, timeout=180, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    shown = [out["data"]["text/html"] for out in nb.cells[-1].outputs if "text/html" in out.get("data", {})]
    assert len(shown) == 1, nb.cells[-1].outputs
    assert '<p class="run">attention_homework.ipynb · seed' in shown[0], shown[0][:3000]
    assert "grade mask attention_homework.ipynb" in shown[0]
    assert "(kernel)" not in shown[0] and "notebook.ipynb" not in shown[0].replace("attention_homework.ipynb", "")
