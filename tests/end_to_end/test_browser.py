"""The feedback page in a real browser: headless Chromium, offline, every connection recorded.

Contract: the pages of a passing, a failing and a hostile submission, written by the real `grade`
command, load without a single request leaving the page and without a console message; the failing
page draws the mask's visibility matrix and an expected/got table; text from a hostile submission is
shown as text and never runs. Screenshots for review go to tests/output/browser/ (git-ignored).

Chromium is required in CI (GRADER_REQUIRE_BROWSER=1, which .ci/run exports; tests/end_to_end/test_readme.py
checks it does): .ci/run installs Debian's package, and a CI machine without it fails here. Elsewhere
(a newcomer's first `pytest`) a missing chromium skips these tests with the command that installs it,
so the README's test command stays true.
"""
from __future__ import annotations

import html
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

import pytest

from conftest import ROOT, SOLUTION, mutant, mutations
from grader.results import from_json
from grader.judge.launcher import ZygoteLauncher
from helpers import grade_in_process, no_traceback

OUTPUT = ROOT / "tests" / "output" / "browser"
REQUIRE_BROWSER = "GRADER_REQUIRE_BROWSER"  # set to 1, a missing chromium fails these tests
BROWSER_TIMEOUT = 60
# Chromium logs every console message of a file:// page at INFO, whatever its level (console.error
# included), so no line can be told apart as an error: the page is static and must log nothing.
CONSOLE = re.compile(r"CONSOLE|Uncaught")
HOSTILE = """\
import torch

print("<script>document.title='pwned'</script>")


class CausalAttention(torch.nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, qkv_bias=False):
        super().__init__()
        self.W_query = torch.nn.Linear(d_in, d_out, bias=qkv_bias)

    def forward(self, x):
        raise ValueError("<img src=x onerror=document.title='pwned'>")
"""
# A page that breaks every rule, to show the harness notices: a request, a console.error, an
# uncaught exception, and a script that runs.
CONTROL = """<!DOCTYPE html><html><head><title>quiet</title></head><body>
<img src="http://example.com/x.png">
<script>console.error("control-console-error"); document.title = "changed";</script>
<script>throw new Error("control-uncaught")</script>
</body></html>
"""


@dataclass
class Visit:
    stdout: str
    console: list[str]  # console lines Chromium logged
    requests: list[str]  # first line of every connection the stand-in proxy received


class Recorder:
    """The stand-in proxy: accepts every connection, records its first line, closes it."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(0.1)
        self.port = self.sock.getsockname()[1]
        self.seen: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except socket.timeout:
                if self._stop.is_set():  # stopped, and nothing left waiting in the backlog
                    return
                continue
            with conn:
                conn.settimeout(2)
                try:
                    first = conn.recv(300).split(b"\r\n", 1)[0].decode("latin-1")
                except OSError:
                    first = ""
                self.seen.append(first or "(a connection that sent nothing)")

    def close(self) -> list[str]:
        self._stop.set()
        self._thread.join()
        self.sock.close()
        return self.seen


@pytest.fixture(scope="module")
def chromium() -> str:
    found = shutil.which("chromium")
    if found is None:
        missing("chromium is not installed: the browser tests need Debian's chromium "
                "(apt-get update && apt-get install -y chromium; .ci/run installs it)")
    return found


def missing(why: str) -> NoReturn:
    """What the browser tests need is not here: a failure where they are required, else a skip."""
    if os.environ.get(REQUIRE_BROWSER) == "1":
        pytest.fail(why, pytrace=False)
    pytest.skip(why)


def visit(chromium: str, page: Path, *mode: str, fonts: Path | None = None) -> Visit:
    """Load `page` in a fresh headless Chromium whose only way out is the recording proxy; `fonts`: a
    fontconfig file that limits the fonts it may use."""
    recorder = Recorder()
    with tempfile.TemporaryDirectory(prefix="chromium-") as home:
        command = [
            chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            f"--user-data-dir={home}/profile",
            f"--proxy-server=127.0.0.1:{recorder.port}",
            # every name resolves to nothing; the proxy's own address is spared, or the proxy would be
            # unreachable and "it saw no request" would hold for any page
            "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
            # Chromium's own traffic, which the flags above leave on: the network clock, the on-demand
            # component download (it ignores --disable-component-update) and the account check. It goes
            # to a dead local port (loopback bypasses the proxy), so the proxy sees only the page.
            "--disable-features=NetworkTimeServiceQuerying",
            "--component-updater=url-source=http://127.0.0.1:9/",
            "--gaia-url=http://127.0.0.1:9/",
            "--enable-logging=stderr", "--v=0",
            *mode, page.resolve().as_uri(),
        ]
        env = {**os.environ, "HOME": home, "XDG_CONFIG_HOME": f"{home}/config", "XDG_CACHE_HOME": f"{home}/cache",
               **({"FONTCONFIG_FILE": str(fonts)} if fonts else {})}
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                                start_new_session=True, text=True, errors="replace")
        try:
            stdout, stderr = proc.communicate(timeout=BROWSER_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)  # the browser's helpers too, not only the wrapper
            proc.communicate()
            pytest.fail(f"chromium did not finish {page.name} within {BROWSER_TIMEOUT} s")
        finally:
            requests = recorder.close()
    assert proc.returncode == 0, stderr[-3000:]
    return Visit(stdout, [line for line in stderr.splitlines() if CONSOLE.search(line)], requests)


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory, launcher: ZygoteLauncher) -> dict[str, Path]:
    """The three pages, written by the real `grade` command (in-process, with the session's zygote)."""
    work = tmp_path_factory.mktemp("browser")
    OUTPUT.mkdir(parents=True, exist_ok=True)
    (work / "failing.py").write_text(mutant(mutations.MASK_BUGS, "inverted_mask"), encoding="utf-8")
    (work / "hostile.py").write_text(HOSTILE, encoding="utf-8")
    runs = {"passing": ("ch03", SOLUTION, 0), "failing": ("ch03", work / "failing.py", 1),
            "hostile": ("mask", work / "hostile.py", 1)}
    written = {}
    for name, (exercises, submission, code) in runs.items():
        page = OUTPUT / f"{name}.html"
        page.unlink(missing_ok=True)
        result = grade_in_process(exercises, submission, "--html", page, "--json", work / f"{name}.json", "--seed",
                                  "1", cwd=work, launcher=launcher)
        assert result.code == code, result.stdout + result.stderr
        no_traceback(result)
        written[name] = page
    # what a notebook shows under `%grade mask` (grader.integrations.jupyter), in a page of its own
    inline = OUTPUT / "inline.html"
    run = from_json(json.loads((work / "failing.json").read_text(encoding="utf-8")))
    inline.write_text(f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>inline</title></head><body>'
                      f'{run._repr_html_()}</body></html>', encoding="utf-8")
    written["inline"] = inline
    return written


def test_the_harness_notices_requests_console_messages_and_scripts(chromium: str, tmp_path: Path) -> None:
    """Without this, "no request, no console line" could pass because nothing is ever seen."""
    page = tmp_path / "control.html"
    page.write_text(CONTROL, encoding="utf-8")
    seen = visit(chromium, page, "--dump-dom")
    assert any("example.com" in request for request in seen.requests), seen.requests
    assert any("control-console-error" in line for line in seen.console), seen.console
    assert any("Uncaught" in line and "control-uncaught" in line for line in seen.console), seen.console
    assert "<title>changed</title>" in seen.stdout


@pytest.mark.parametrize("name", ["passing", "failing", "hostile"])
def test_the_page_loads_offline_and_quietly(chromium: str, pages: dict[str, Path], name: str) -> None:
    page = pages[name]
    loaded = visit(chromium, page, "--dump-dom")
    assert loaded.requests == [], f"{name} page made requests: {loaded.requests}"
    assert loaded.console == [], f"{name} page logged to the console: {loaded.console}"
    assert "</html>" in loaded.stdout

    screenshot = OUTPUT / f"{name}.png"
    screenshot.unlink(missing_ok=True)
    shot = visit(chromium, page, f"--screenshot={screenshot}", "--window-size=1200,2400")
    assert shot.requests == [], f"{name} page made requests: {shot.requests}"
    assert shot.console == [], f"{name} page logged to the console: {shot.console}"
    assert screenshot.is_file() and screenshot.stat().st_size > 0
    assert screenshot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_failing_page_draws_the_mask_evidence(chromium: str, pages: dict[str, Path]) -> None:
    dom = visit(chromium, pages["failing"], "--dump-dom").stdout
    assert re.search(r'<svg\b[^>]*\bclass="[^"]*\bvisibility-matrix\b', dom), "no <svg class=\"visibility-matrix\">"
    assert re.search(r'<table\b[^>]*\bclass="[^"]*\bexpected-got\b', dom), "no <table class=\"expected-got\">"


def test_hostile_text_is_shown_not_run(chromium: str, pages: dict[str, Path]) -> None:
    loaded = visit(chromium, pages["hostile"], "--dump-dom")
    title = re.search(r"<title>(.*?)</title>", loaded.stdout, re.S)
    assert title is not None and "pwned" not in title.group(1), title
    assert loaded.requests == []
    # the attack reached the page, as text: what the submission printed and what its forward raised
    assert "&lt;script&gt;document.title='pwned'&lt;/script&gt;" in loaded.stdout
    assert "&lt;img src=x onerror=document.title='pwned'&gt;" in loaded.stdout
    assert re.search(r"<img\b[^>]*onerror", loaded.stdout) is None


def test_the_failing_page_prints_to_pdf_offline(chromium: str, pages: dict[str, Path]) -> None:
    """Students print feedback: the print stylesheet applies and nothing is fetched to do it."""
    pdf = OUTPUT / "failing.pdf"
    pdf.unlink(missing_ok=True)
    printed = visit(chromium, pages["failing"], f"--print-to-pdf={pdf}", "--no-pdf-header-footer")
    assert printed.requests == [] and printed.console == []
    assert pdf.is_file() and pdf.read_bytes()[:5] == b"%PDF-"
    assert pdf.stat().st_size > 10_000  # every exercise, not a blank page


# -- no missing glyphs --------------------------------------------------------------------------------------
# Fonts as on a fresh machine: Chromium's own Liberation fonts and nothing else (no DejaVu, no emoji, no
# symbol font). Chinese text needs a CJK font, which a Chinese reader's machine has; marks must need none.
FRESH_FONTS = ("/usr/share/fonts/truetype/liberation", "/usr/share/fonts/truetype/liberation2")
# Appended to a copy of a page: draws each visible character in the font its element uses and compares it
# with a character no font has (U+E000): the same pixels mean an empty box. Checks each mark and icon is
# drawn (an SVG of some size, no text in it). Writes what it found into the page, for --dump-dom.
GLYPH_PROBE = r"""<script>
addEventListener("load", () => {
  const canvas = document.createElement("canvas"); canvas.width = 48; canvas.height = 48;
  const ctx = canvas.getContext("2d", {willReadFrequently: true});
  const pixels = (font, ch) => { ctx.clearRect(0, 0, 48, 48); ctx.font = font; ctx.textBaseline = "top";
    ctx.fillText(ch, 4, 4); return ctx.getImageData(0, 0, 48, 48).data.join(""); };
  const cjk = /[\u2e80-\u9fff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]/;
  const report = {boxes: [], characters: 0, marks: 0, bad_marks: []}, seen = new Set();
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const el = walker.currentNode.parentElement;
    if (!el || el.closest("script, style") || el.getClientRects().length === 0) continue;
    const style = getComputedStyle(el);
    if (style.visibility !== "visible") continue;
    const font = `${style.fontStyle} ${style.fontWeight} 32px ${style.fontFamily}`;
    for (const ch of walker.currentNode.data) {
      if (ch.codePointAt(0) < 0x80 || /\s/.test(ch) || cjk.test(ch) || seen.has(font + ch)) continue;
      seen.add(font + ch); report.characters++;
      if (pixels(font, ch) === pixels(font, "\ue000"))
        report.boxes.push(`U+${ch.codePointAt(0).toString(16).toUpperCase()} ${ch} in <${el.tagName.toLowerCase()} class="${el.getAttribute("class") || ""}">`);
    }
  }
  for (const mark of document.querySelectorAll(".mark, .icon, .swatch")) {
    const box = mark.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) continue;  // folded away
    report.marks++;
    if (mark.tagName.toLowerCase() !== "svg" || box.width < 8 || box.height < 8 || mark.textContent.trim())
      report.bad_marks.push(mark.outerHTML.slice(0, 120));
  }
  const out = document.createElement("pre"); out.id = "glyph-report"; out.textContent = JSON.stringify(report);
  document.body.append(out);
});
</script>"""


@pytest.fixture(scope="module")
def fresh_fonts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folders = [folder for folder in FRESH_FONTS if Path(folder).is_dir()]
    if not folders:
        missing("the fonts of a fresh machine's Chromium are not installed: the glyph tests draw with them "
                "(apt-get install -y fonts-liberation; .ci/run installs them)")
    work = tmp_path_factory.mktemp("fonts")
    config = work / "fonts.conf"
    config.write_text('<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd"><fontconfig>'
                      + "".join(f"<dir>{folder}</dir>" for folder in folders)
                      + f"<cachedir>{work / 'cache'}</cachedir></fontconfig>", encoding="utf-8")
    return config


def glyph_report(chromium: str, page: Path, fonts: Path, tmp_path: Path) -> dict[str, object]:
    probed = tmp_path / f"probed-{page.name}"
    probed.write_text(page.read_text(encoding="utf-8").replace("</body>", GLYPH_PROBE + "</body>"), encoding="utf-8")
    dom = visit(chromium, probed, "--dump-dom", "--window-size=1200,4000", fonts=fonts).stdout
    found = re.search(r'<pre id="glyph-report">(.*?)</pre>', dom, re.S)
    assert found is not None, dom[-2000:]
    return json.loads(html.unescape(found.group(1)))


def test_the_glyph_probe_sees_empty_boxes(chromium: str, fresh_fonts: Path, tmp_path: Path) -> None:
    """Without this, "no empty box" could pass because the probe never sees one: the marks the page used
    to type (a check mark, a cross, a book emoji) show as boxes with a fresh machine's fonts."""
    page = tmp_path / "typed.html"
    page.write_text('<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>'
                    '<p>passed \u2713 failed \u2717 <span class="icon">\U0001f4d6</span> \u2192 ok</p></body></html>',
                    encoding="utf-8")
    report = glyph_report(chromium, page, fresh_fonts, tmp_path)
    assert {box.split()[0] for box in report["boxes"]} == {"U+2713", "U+2717", "U+1F4D6"}, report  # type: ignore[union-attr]
    assert report["bad_marks"], report


@pytest.mark.parametrize("name", ["passing", "failing", "inline"])
def test_marks_and_text_need_no_font_a_fresh_machine_lacks(chromium: str, pages: dict[str, Path],
                                                            fresh_fonts: Path, tmp_path: Path, name: str) -> None:
    report = glyph_report(chromium, pages[name], fresh_fonts, tmp_path)
    assert report["boxes"] == [], report["boxes"]
    assert report["bad_marks"] == [], report["bad_marks"]
    assert report["marks"] >= (3 if name == "passing" else 10), report  # type: ignore[operator]
    assert report["characters"] > 0, report  # type: ignore[operator]
