"""The README's commands are the ones that run: its first command grades the bundled notebook with full
marks, and `.ci/run` runs that command and the README's test command, with the browser tests required."""
from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from helpers import grade, no_traceback, require_extra
from test_browser import REQUIRE_BROWSER

README = (ROOT / "README.md").read_text(encoding="utf-8")
CI_RUN = (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def commands(section: str) -> list[str]:
    """The commands of the ```sh blocks of `section`, a line's `&&`-joined commands one by one."""
    blocks = re.findall(r"```sh\n(.*?)```", section, re.S)
    return [part.strip() for block in blocks for line in block.splitlines() for part in line.split("&&")
            if part.strip()]


FIRST = next(c for c in commands(README) if c.startswith("grade "))
TESTS = next(c for c in commands(README) if "pytest" in c)


def test_the_readme_first_command_gives_full_marks(tmp_path: Path) -> None:
    """`grade ch03 tests/corpus/book_style.ipynb`, run as written from a folder that holds the notebook where
    the command names it: exit 0 and every point."""
    args = FIRST.split()[1:]
    assert args[:1] == ["ch03"], FIRST
    notebook = tmp_path / args[-1]
    notebook.parent.mkdir(parents=True)
    shutil.copy(ROOT / args[-1], notebook)
    result = grade(*args, cwd=tmp_path)
    assert result.code == 0, result.stdout + result.stderr
    no_traceback(result)
    total = re.search(r"^Total\s+(\S+)/(\S+)$", result.stdout, re.M)
    assert total and total.group(1) == total.group(2) and float(total.group(2)) >= 38, result.stdout
    assert "✗" not in result.stdout and (tmp_path / "feedback" / "book_style.html").is_file()


def test_ci_runs_the_readme_commands() -> None:
    """.ci/run's own lines: the README's first command (under `set -e`, a non-zero exit fails CI) and its
    test command, after the install."""
    lines = CI_RUN.splitlines()
    assert "set -euo pipefail" in lines
    assert FIRST in lines and TESTS in lines, (FIRST, TESTS)
    assert lines.index("pip install --quiet '.[test]'") < lines.index(FIRST) < lines.index(TESTS)


def test_ci_requires_the_browser_tests() -> None:
    """The variable tests/test_browser.py reads to fail, rather than skip, without chromium is exported
    before the tests run."""
    lines = CI_RUN.splitlines()
    export = f"export {REQUIRE_BROWSER}=1"
    assert export in lines and lines.index(export) < lines.index(TESTS)
    assert f"`{REQUIRE_BROWSER}=1`" in README


def test_a_missing_test_extra_fails_with_the_install_command(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """tests/test_ci.py and test_ci_renderers.py take junitparser and yaml through require_extra: where
    the README's `pip install '.[test]'` was not run in full they fail, never skip."""
    monkeypatch.setitem(sys.modules, "junitparser", None)  # what an import of a missing module meets
    with pytest.raises(ImportError, match=re.escape("pip install '.[test]'")):
        require_extra("junitparser")
    assert "pip install '.[test]'" in README
