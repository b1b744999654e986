"""The judge's secrets stay hidden where the grader is installed from its wheel, not only in a checkout.

In a checkout, a second rule hides everything of the tree but `grader/` (grader.judge.secrets._checkout), so a
test run from it cannot tell whether solutions/, exercises/ and grader/classes/given/ are hidden for their own
sake: removed from `hidden_paths()`, every hostile test still passed. An installed wheel has no such rule:
site-packages holds grader/, with solutions/ and exercises/ inside it among the code a child needs. So the wheel
is built here, installed into a virtualenv of its own (outside the checkout; what it needs besides comes from this
environment), and:

* it installs nothing at the top level but `grader` (no `exercises`, `solutions` or `student_template` to clash
  with another project's packages);
* its own `grade` grades a submission that imports the references, the checks and the book's code the grader
  keeps, and reads their files in every folder of the import path: nothing is imported, nothing read, nothing
  earned, with every protection and with Landlock alone; without Landlock, the book's code imported earns nothing;
* a contributor's setup: that virtualenv's Python runs `tests/hostile`'s test_reference_is_out_of_reach from the
  checkout, whose code the tests (and the judge) then import while the installed copy lies in site-packages, on
  the child's import path too. Once anything is written into the checkout's top folder during a run (a test's
  output, a cache), a child's import no longer finds the checkout's copy (Python lists the folder again and
  Landlock refuses the listing) and goes on to the installed one, which the judge must hide as well. The run
  here touches the folder before each test, as such a write does.
"""
from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Iterator

import pytest

from conftest import ROOT
from helpers import attack, clean_env, copy_distribution

pytestmark = pytest.mark.e2e
# What the installed grader imports besides itself, and what the contributor's test run needs (pytest, the
# tests' helpers): found in this environment where the new one's base interpreter does not have them.
NEEDED = ("torch", "click", "jinja2", "nbformat", "pytest")
CH03 = "3.1,3.2,3.3,mask,device"


class Installed:
    """A virtualenv outside the checkout with the grader's wheel installed (not editable)."""

    def __init__(self, root: Path, wheel: Path) -> None:
        self.root = root
        self.wheel = wheel
        self.python = root / "venv" / "bin" / "python"
        self.grade = root / "venv" / "bin" / "grade"
        self.site = Path(subprocess.check_output([str(self.python), "-c", "import sysconfig; "
                                                  "print(sysconfig.get_paths()['purelib'])"], text=True).strip())

    def env(self, **extra: str) -> dict[str, str]:
        """The environment of a student's shell in that virtualenv: nothing of the checkout on the path."""
        return {k: v for k, v in clean_env(PYTHONDONTWRITEBYTECODE="1", **extra).items() if k != "PYTHONPATH"}


def build(into: Path) -> Path:
    """The wheel, built as `pip wheel --no-deps .` builds it, from a copy of what a clone holds of the distribution
    (nothing is written into the checkout); without build isolation where this environment has setuptools."""
    source = copy_distribution(into / "source")
    isolation = [] if importlib.util.find_spec("setuptools") is None else ["--no-build-isolation"]
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", *isolation, "-w",
                           str(into / "dist"), str(source)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    [wheel] = (into / "dist").glob("*.whl")
    return wheel


@pytest.fixture(scope="module")
def installed() -> Iterator[Installed]:
    """In a folder anyone may enter (pytest's own temporary folders are root's alone where it runs as root, and a
    sandbox without Landlock would then see nothing of the virtualenv but Python itself)."""
    root = Path(tempfile.mkdtemp(prefix="grader-installed-"))
    try:
        root.chmod(0o755)
        yield _install(root)
    finally:
        shutil.rmtree(root)


def _install(root: Path) -> Installed:
    wheel = build(root / "build")
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", "--system-site-packages", str(venv)], check=True,
                   timeout=120)
    done = Installed(root, wheel)
    missing = subprocess.run([str(done.python), "-c", f"import {', '.join(NEEDED)}"], capture_output=True,
                             cwd=root, timeout=120)
    if missing.returncode:  # this environment is itself a virtualenv: its packages, as a path of the new one
        specs = [importlib.util.find_spec(name) for name in NEEDED]
        folders = dict.fromkeys(str(Path(str(spec.origin)).parents[1]) for spec in specs if spec is not None)
        (done.site / "grader-test-dependencies.pth").write_text("\n".join(folders) + "\n", encoding="utf-8")
    put = subprocess.run([sys.executable, "-m", "pip", "--python", str(done.python), "install", "--quiet", "--no-deps",
                          "--no-index", "--ignore-installed", str(wheel)], capture_output=True, text=True, timeout=600)
    assert put.returncode == 0, put.stdout + put.stderr
    where = subprocess.run([str(done.python), "-c", "import grader.solutions; print(grader.__file__); "
                            "print(grader.solutions.__file__)"], capture_output=True, text=True, cwd=root,
                           env=done.env(), timeout=120)
    assert where.returncode == 0, where.stderr
    assert all(Path(line).is_relative_to(done.site) for line in where.stdout.split()), where.stdout
    return done


def grade(installed: Installed, source: str, without: str) -> dict:
    """The installed `grade` on `source` (ch03), in a folder outside the checkout: the JSON result."""
    folder = installed.root / f"grade-{without.replace(',', '-') or 'all'}"
    folder.mkdir()
    (folder / "submission.py").write_text(source, encoding="utf-8")
    done = subprocess.run([str(installed.grade), CH03, "submission.py", "--json", "result.json", "--html",
                           "result.html"], cwd=folder, capture_output=True, text=True, timeout=300,
                          env=installed.env(GRADER_SANDBOX_WITHOUT=without))
    assert done.returncode in (0, 1), done.stdout + done.stderr
    result: dict = json.loads((folder / "result.json").read_text(encoding="utf-8"))
    return result


def said(result: dict, *words: str) -> list[str]:
    return [line for line in result["output_tail"].splitlines() if line.startswith(words)]


def test_the_wheel_installs_nothing_at_the_top_level_but_grader(installed: Installed) -> None:
    """The wheel's top-level names (its dist-info's top_level.txt, and its files) are `grader` alone: the checks,
    the references and the template are folders of the package; and none of their old top-level names imports."""
    with zipfile.ZipFile(installed.wheel) as wheel:
        files = wheel.namelist()
        [top_level] = [name for name in files if name.endswith(".dist-info/top_level.txt")]
        assert wheel.read(top_level).decode().split() == ["grader"]
    assert {name.split("/")[0] for name in files if ".dist-info/" not in name} == {"grader"}, files
    assert {"grader/solutions/chapter3.py", "grader/exercises/exercise_3_1.py", "grader/exercises/data/input.txt",
            "grader/student_template/chapter3.py", "grader/student_template/chapter3.ipynb",
            "grader/render/compiled.json"} <= set(files)
    for name in ("exercises", "solutions", "student_template"):
        done = subprocess.run([str(installed.python), "-c", f"import {name}"], capture_output=True, text=True,
                              cwd=installed.root, env=installed.env(), timeout=120)
        assert done.returncode != 0 and f"No module named '{name}'" in done.stderr, (name, done.stderr)


@pytest.mark.parametrize("without", ["", "namespaces,seccomp"], ids=["all", "landlock-only"])
def test_the_installed_copies_are_out_of_reach(installed: Installed, without: str) -> None:
    """`import grader.solutions.chapter3`, `import grader.exercises.exercise_3_1`,
    `import grader.classes.given.book_chapter3` (and the old top-level names), and a read of each file in every
    folder of the import path, then the same imports as the answers' cells: none is imported, none read, nothing
    earned."""
    result = grade(installed, attack("installed_copies"), without)
    assert any(p.startswith("landlock") for p in result["protections"]), result["protections"]
    assert not said(result, "IMPORTED", "READ"), result["output_tail"]
    assert len(said(result, "NOT-IMPORTED")) == 5, result["output_tail"]
    assert result["score"] == 0, [(e["id"], c["id"]) for e in result["exercises"] for c in e["checks"] if c["score"]]
    assert [c["status"] for c in result["cells"] if c["cell"] > 1] == ["raised", "raised"], result["cells"]


def test_without_landlock_the_installed_book_code_earns_nothing(installed: Installed) -> None:
    """Nothing hides the installed grader's copy of the book's code without Landlock: imported, it is the
    grader's own code wherever the grader is installed, and earns nothing; each check says so."""
    result = grade(installed, attack("given_import"), "landlock")
    assert result["score"] == 0, [(e["id"], c["id"]) for e in result["exercises"] for c in e["checks"] if c["score"]]
    keys = {c["message_key"] for e in result["exercises"] for c in e["checks"]}
    assert "check.grader_code" in keys and "check.grader_error" not in keys, keys


# The contributor's run: this checkout's hostile test, in the installed grader's virtualenv, with the checkout's
# top folder touched once the session's zygote runs (pytest_runtest_call: after the fixtures, before the test).
CONTRIBUTOR = """
import os, sys
import pytest

class Touch:
    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_call(self, item):
        os.utime(os.getcwd())

sys.exit(pytest.main(sys.argv[1:], plugins=[Touch()]))
"""


def test_a_contributors_venv_outside_the_checkout_keeps_the_references_hidden(installed: Installed,
                                                                                tmp_path: Path) -> None:
    """README's install in a venv outside the checkout (not editable), `tests/hostile` run from the checkout with
    that venv's Python: the checkout's copy of the references is hidden, and so is the installed one."""
    done = subprocess.run([str(installed.python), "-c", CONTRIBUTOR, "-q", "-p", "no:cacheprovider",
                           f"--basetemp={tmp_path / 'basetemp'}", "tests/hostile/test_attacks.py", "-k",
                           "test_reference_is_out_of_reach and (import_solutions or import_exercises or read_solutions)"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600, env=installed.env())
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert "3 passed" in done.stdout, done.stdout[-2000:]
