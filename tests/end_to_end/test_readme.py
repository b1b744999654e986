"""The README's commands are the ones that run: its first command grades the bundled notebook with full
marks, and `.ci/run` runs that command and the README's test command, with the browser tests required.
Every `pip install` line of the docs and examples installs this distribution by its own name: the
`grader` on the package index is another project."""
from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from conftest import ROOT
from helpers import copy_distribution, grade, no_traceback, require_extra
from end_to_end.test_browser import REQUIRE_BROWSER

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
    """The variable tests/end_to_end/test_browser.py reads to fail, rather than skip, without chromium is exported
    before the tests run."""
    lines = CI_RUN.splitlines()
    export = f"export {REQUIRE_BROWSER}=1"
    assert export in lines and lines.index(export) < lines.index(TESTS)
    assert f"`{REQUIRE_BROWSER}=1`" in README


def test_a_missing_test_extra_fails_with_the_install_command(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """tests/integrations/test_ci.py and test_ci_renderers.py take junitparser and yaml through require_extra: where
    the README's `pip install '.[test]'` was not run in full they fail, never skip."""
    monkeypatch.setitem(sys.modules, "junitparser", None)  # what an import of a missing module meets
    with pytest.raises(ImportError, match=re.escape("pip install '.[test]'")):
        require_extra("junitparser")
    assert "pip install '.[test]'" in README


# -- the install lines ---------------------------------------------------------------------------------------
if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
NAME = PYPROJECT["project"]["name"]
ARCHIVE = re.compile(rf"{re.escape(NAME)}(\[[\w,-]+\])? @ "
                     r"https://github\.com/OWNER/grader/archive/refs/tags/\S+\.tar\.gz")
# The README's line for a machine without a checkout: an archive of the repository, with the Jupyter extra.
ARCHIVE_LINE = next(iter(re.findall(r"^pip install '(\S+\[jupyter\] @ https://\S+)'$", README, re.M)), "")
# What users read: the README and docs, the examples, the action, CI, the benchmarks, the students' template.
READ = [ROOT / "README.md", ROOT / "action.yml", ROOT / ".ci" / "run", *sorted((ROOT / "docs").glob("*.md")),
        *(path for folder in ("examples", "benchmarks", "student_template")
          for path in sorted((ROOT / folder).rglob("*"))
          if path.is_file() and path.suffix in {"", ".md", ".sh", ".py", ".yml", ".yaml", ".toml", ".ipynb"})]
VALUED = {"-d", "-w", "-t", "-r", "-c", "-i", "-f", "--index-url", "--extra-index-url", "--find-links", "--target",
          "--constraint", "--requirement", "--python-version", "--platform"}


def pip_installs() -> list[tuple[str, str]]:
    """(file, requirement) for each requirement of each `pip install` the files show, a variable's aside."""
    found = []
    for path in READ:
        text = path.read_text(encoding="utf-8")
        for command in re.split(r"&&|\|\||;|`|\n", text):  # one command at a time, a code span's end its end
            rest = re.search(r"pip install (.*)", command)
            words = shlex.split(re.split(r"\s#|\s\(|\"\]", rest.group(1))[0]) if rest else []  # not what follows
            found += [(str(path.relative_to(ROOT)), word) for before, word in zip(["", *words], words)
                      if not word.startswith(("-", "$")) and before not in VALUED]
    return found


def test_every_install_line_names_this_distribution() -> None:
    """A checkout's `.` with extras that exist, or this distribution's name from an archive of the repository;
    never `grader`, which installs the unrelated package of that name."""
    installs = pip_installs()
    assert NAME == "llm-from-scratch-grader"
    for where, requirement in installs:
        local = re.fullmatch(r"\.(?:\[([\w,-]+)\])?", requirement)
        name = re.match(r"[A-Za-z0-9][\w.-]*", requirement)
        if local:
            extras = set(filter(None, (local.group(1) or "").split(",")))
            assert extras <= set(PYPROJECT["project"]["optional-dependencies"]), (where, requirement)
        elif name and name.group().lower().replace("_", "-") in {"grader", NAME}:
            assert ARCHIVE.fullmatch(requirement), (where, requirement)
    assert {req for _, req in installs} >= {".[test]", ".[jupyter]", ARCHIVE_LINE}, installs


def wheel(requirement: str, cwd: Path) -> zipfile.ZipFile:
    """`pip wheel --no-deps REQUIREMENT`, built as `pip install` builds it (in an isolated build environment)."""
    out = cwd / "dist"
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(out), requirement],
                          cwd=cwd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    [built] = out.glob("*.whl")
    return zipfile.ZipFile(built)


def metadata(built: zipfile.ZipFile) -> tuple[str, str]:
    """The wheel's METADATA and entry_points.txt."""
    names = built.namelist()
    info = next(n for n in names if n.endswith(".dist-info/METADATA"))
    points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    return built.read(info).decode(), built.read(points).decode()


def test_the_install_lines_build_this_distribution(tmp_path: Path) -> None:
    """The checkout's `pip install '.[jupyter]'` and the README's archive line (its address swapped for a
    local archive of the same files) build `llm-from-scratch-grader` with the `grade` command and the
    `grader` package, as a wheel that the Gradescope example's zip line and setup.sh pick up."""
    source = copy_distribution(tmp_path / "grader-0.1")
    built = wheel(".[jupyter]", cwd=source)
    info, points = metadata(built)
    assert f"\nName: {NAME}\n" in info
    assert {"Provides-Extra: jupyter", "Provides-Extra: test"} <= set(info.splitlines())
    assert "grade = grader.cli:main" in points and "grader/__init__.py" in built.namelist()
    gradescope = ROOT / "examples" / "gradescope"
    setup = (gradescope / "setup.sh").read_text(encoding="utf-8")
    pattern = re.search(r'wheels=\("\$source_dir"/(\S+\.whl)\)', setup).group(1)  # type: ignore[union-attr]
    assert Path(built.filename or "").match(pattern) and f" dist/{pattern}\n" in (gradescope / "README.md").read_text()

    archive = tmp_path / "v0.1.tar.gz"  # as GitHub serves a tag: the files under one folder
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(source, arcname=source.name, filter=lambda info: None if "dist" in Path(info.name).parts else info)
    line = re.sub(r"https://\S+", archive.as_uri(), ARCHIVE_LINE)
    assert line.startswith(f"{NAME}[jupyter] @ file:"), ARCHIVE_LINE
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    info, points = metadata(wheel(line, cwd=elsewhere))  # pip refuses a line whose name the build does not give
    assert f"\nName: {NAME}\n" in info and "grade = grader.cli:main" in points
