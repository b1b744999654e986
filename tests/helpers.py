"""What several test files share, each in one place: notebooks written from cells, the `grade` command run
as a student runs it, the JSON results it wrote held to their shipped schema, the records of a run's cells,
the accelerator this machine has, and the attacks of the hostile corpus (tests/hostile/attacks) for the tests
that put them in a class.

The root conftest.py holds the fixtures (the session zygote, grade_file); this module holds plain functions.
"""
from __future__ import annotations

import functools
import importlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Iterator, Protocol

import nbformat
import pytest

from grader.judge.accelerator import hardware_accelerator, judge_accelerator
from grader.results import CellRecord, RunResult

ROOT = Path(__file__).resolve().parents[1]
ATTACKS = ROOT / "tests" / "hostile" / "attacks"


# -- the test extra ---------------------------------------------------------------------------------------
def require_extra(module: str) -> ModuleType:
    """A module of the test extra (pyproject.toml: junitparser, pyyaml). Where it is missing the tests that
    need it fail with the command that installs it: a half-installed extra never quiets the suite."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(f"{module} is not installed: pip install '.[test]' installs the test extra "
                          f"(junitparser, pyyaml) the tests need") from exc


# -- the docs --------------------------------------------------------------------------------------------
def docs_text() -> str:
    """The README, then every page of docs/ in name order: what a test reads where it asserts that the
    documentation says something, wherever the README's reference moved (docs/students.md, ...)."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    return "\n".join(page.read_text(encoding="utf-8") for page in pages)


# -- notebooks -------------------------------------------------------------------------------------------
def notebook(*cells: str) -> str:
    """A notebook of code cells; a cell starting with 'md:' is a markdown cell."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell(c[3:]) if c.startswith("md:") else nbformat.v4.new_code_cell(c)
                for c in cells]
    return nbformat.writes(nb)


def chapter_notebook(*cells: str) -> str:
    """A notebook as Jupyter writes it: a markdown heading first (cells are counted over all of them)."""
    return notebook("md:# Chapter 3", *cells)


def line_of(text: str | Path, needle: str) -> int:
    """The number (from 1) of the first line of `text` (a file's, for a Path) that holds `needle`."""
    if isinstance(text, Path):
        text = text.read_text(encoding="utf-8")
    return next(n for n, line in enumerate(text.splitlines(), 1) if needle in line)


# -- the grade command -------------------------------------------------------------------------------------
def _grade_command() -> list[str]:
    script = Path(sys.executable).parent / "grade"
    if script.exists():
        return [str(script)]
    found = shutil.which("grade")
    return [found] if found else [sys.executable, "-m", "grader"]


GRADE = _grade_command()
MODULE = [sys.executable, "-m", "grader"]  # `python -m grader`: the working directory is on the import path


@dataclass
class Result:
    code: int
    stdout: str
    stderr: str
    elapsed: float

    def __post_init__(self) -> None:
        """What the command printed in our result format (`--json -`, `grade export -f jsonl`) follows its schema."""
        broken = [f"{where}: {why}" for where, data in results_in_text(self.stdout, "stdout")
                  for why in result_errors(data)]
        assert not broken, "stdout holds a result off its schema (grader/results/result.schema.json):\n" + \
            "\n".join(broken)

    def json(self) -> dict[str, Any]:
        """stdout read as the JSON result (`--json -`)."""
        data: dict[str, Any] = json.loads(self.stdout)
        return data

    @property
    def returncode(self) -> int:  # as subprocess.CompletedProcess names it
        return self.code


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment as a student's shell has it: English, no colour, no pytest or debug."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("LANGUAGE", "LC_MESSAGES", "GRADER_DEBUG", "BROWSER") and not k.startswith("PYTEST")}
    env.update(LC_ALL="C.UTF-8", LANG="C.UTF-8", NO_COLOR="1", PYTHONIOENCODING="utf-8", **extra)
    return env


def grade(*args: str | Path, cwd: Path, command: list[str] | None = None, timeout: float = 180,
          env: dict[str, str] | None = None) -> Result:
    """`grade ARGS...` run in `cwd` (or `command ARGS...`), as a student's shell runs it."""
    started = time.monotonic()
    proc = subprocess.run([*(command or GRADE), *map(str, args)], cwd=cwd, env=clean_env(**(env or {})),
                          capture_output=True, text=True, encoding="utf-8", errors="replace", timeout=timeout)
    return Result(proc.returncode, proc.stdout, proc.stderr, time.monotonic() - started)


def grade_in_process(*args: str | Path, cwd: Path, launcher: Any = None, env: dict[str, str] | None = None,
                     environ: dict[str, str] | None = None) -> Result:
    """`grade ARGS...` as `grade(...)` runs it, in this process: the click group through CliRunner, in `cwd`,
    with the environment `clean_env(**env)` gives a subprocess (or exactly `environ`; the PYTEST_* variables
    stay either way), grading with `launcher` (the session's zygote, which the command uses and leaves
    open) where one is given. The environment, the working directory, whether this process may be traced
    and the instructors' folders the judge hides are as they were afterwards.

    For the option and error matrices: no interpreter, no `import torch`, no zygote of its own per run.
    Each command keeps a test through `grade(...)` for what only a real process shows (its exit status,
    what reaches file descriptors 1 and 2, os._exit). An unexpected exception is what `main` makes of it:
    one `grade: internal error` line and exit 2."""
    from click.testing import CliRunner

    from grader.cli import EXIT_CANNOT_GRADE, cli
    from grader.outputs.safe_text import one_line

    wanted = clean_env(**(env or {})) if environ is None else dict(environ)
    saved_env, saved_cwd, dumpable = dict(os.environ), os.getcwd(), _dumpable()
    hidden = _hidden_folders()
    saved_hidden = list(hidden)
    started = time.monotonic()
    try:
        for key in set(os.environ) - set(wanted) - {k for k in os.environ if k.startswith("PYTEST")}:
            del os.environ[key]
        os.environ.update(wanted)
        os.chdir(cwd)
        result = CliRunner().invoke(cli, [str(a) for a in args], obj={"launcher": launcher} if launcher else None,
                                    prog_name="grade")
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
        _set_dumpable(dumpable)  # the commands hide the judge from tracing: this process stays as it was
        hidden[:] = saved_hidden  # `--exercises DIR` adds DIR to what the judge hides, for this process's life
    code, stderr = result.exit_code, result.stderr
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        error = result.exception
        code, stderr = EXIT_CANNOT_GRADE, stderr + f"grade: {one_line(f'internal error: {type(error).__name__}: {error}')}\n"
    return Result(code, result.stdout, stderr, time.monotonic() - started)


def _hidden_folders() -> list[str]:
    try:
        from grader.judge import secrets
    except ImportError:
        return []
    return getattr(secrets, "_HIDDEN", [])


def _prctl(option: int, value: int = 0) -> int:
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    return int(libc.prctl(option, value, 0, 0, 0))


def _dumpable() -> int:
    return _prctl(3) if sys.platform.startswith("linux") else 1  # PR_GET_DUMPABLE


def _set_dumpable(value: int) -> None:
    if sys.platform.startswith("linux"):
        _prctl(4, value)  # PR_SET_DUMPABLE


@contextmanager
def traceable() -> Iterator[None]:
    """This process as a fresh one starts, one that may be traced (an earlier test's `Grader` may have hidden it
    for the process's life), and as it was afterwards: for the tests that see hiding happen."""
    with dumpable_kept():
        _set_dumpable(1)
        yield


@contextmanager
def dumpable_kept() -> Iterator[None]:
    """Whether this process may be traced, as it was afterwards: a `Grader` hides its judge from tracing for
    the process's life, and a test run's process grades many times, and checks that hiding happens."""
    dumpable = _dumpable()
    try:
        yield
    finally:
        _set_dumpable(dumpable)


class Printed(Protocol):
    stdout: str
    stderr: str


def no_traceback(result: Printed) -> None:
    assert "Traceback" not in result.stderr, result.stderr
    assert "Traceback" not in result.stdout, result.stdout


# -- the JSON result and its schema --------------------------------------------------------------------------
def result_errors(data: Any) -> list[str]:
    """Why `data` is no result of the current format, as the schema the package ships says (none: it is one),
    told against the type its tag names, where it names one."""
    jsonschema = require_extra("jsonschema")
    tag = data.get("$report_type") if isinstance(data, dict) else None
    validator = _result_validator(tag if isinstance(tag, str) else "")
    error = jsonschema.exceptions.best_match(validator.iter_errors(data))
    return [] if error is None else [f"at /{'/'.join(map(str, error.absolute_path))}: {error.message[:300]}"]


@functools.cache
def _result_validator(tag: str) -> Any:
    """The shipped schema's validator, or its definition of `tag`'s type where it has one."""
    from grader.results.schema import PATH

    jsonschema = require_extra("jsonschema")
    spec = json.loads(PATH.read_text(encoding="utf-8"))
    if tag in spec["$defs"]:
        spec = {key: value for key, value in spec.items() if key != "oneOf"} | {"$ref": f"#/$defs/{tag}"}
    return jsonschema.Draft202012Validator(spec)


def results_off_schema(folder: Path) -> list[str]:
    """Each result under `folder` that is not one of the current format, and why."""
    return [f"{where}: {why}" for where, data in written_results(folder) for why in result_errors(data)]


def written_results(folder: Path) -> Iterator[tuple[str, Any]]:
    """Every result in our format under `folder`, and where: each JSON file tagged with a result's type
    (`grade --json PATH`), and the `result` of each line of a results.jsonl. Gradescope's results.json follows
    Gradescope's own spec and carries no tag; a gradebook's rows are what results.jsonl writes again."""
    for path in sorted(folder.rglob("*.json*")):
        try:  # a regular file alone: a FIFO a test made in place of an output would block the read for ever
            text = path.read_text(encoding="utf-8", errors="replace") \
                if path.suffix in (".json", ".jsonl") and path.is_file() else ""
        except OSError:  # one a test made unreadable: nothing the grader wrote
            continue
        yield from results_in_text(text, str(path))


def results_in_text(text: str, where: str) -> Iterator[tuple[str, Any]]:
    """The results a JSON text (`--json`) or a JSON-lines text (results.jsonl) holds, each with where it is."""
    if not text.lstrip().startswith("{"):
        return
    try:
        documents = [json.loads(text)]
    except ValueError:
        try:
            documents = [json.loads(line) for line in text.splitlines() if line.strip()]
        except ValueError:
            return
    for number, data in enumerate(documents, 1):
        if not isinstance(data, dict):
            continue
        if "$report_type" in data:
            yield where, data
        elif isinstance(data.get("result"), dict):  # a line of results.jsonl
            yield f"{where}, line {number}", data["result"]


# -- a run's cells and checks -------------------------------------------------------------------------------
def every_cell(run: RunResult) -> list[CellRecord]:
    """Every cell's record. A result lists the cells that did not run fine (and those a check quotes)
    and counts the rest; for a submission of code cells numbered from 1 (a .py file, or a notebook
    without markdown cells), a cell it counts but does not list ran fine."""
    assert not run.unlisted_problems, "more cells failed than a result lists"
    listed = {r.cell: r for r in run.cells}
    return [listed.get(n, CellRecord(n, "ok")) for n in range(1, sum(run.cell_counts.values()) + 1)]


def cell(run: RunResult, number: int) -> CellRecord:
    """The record of cell `number`: as listed, else (for code cells numbered from 1) one that ran fine."""
    listed = {r.cell: r for r in run.cells}
    records = listed if number in listed else {r.cell: r for r in every_cell(run)}
    assert number in records, f"cell {number} not recorded: {run.cells}"
    return records[number]


def problems(run: RunResult) -> list[tuple[int, str]]:
    """The cells that did not run fine, numbered over all of a notebook's cells (markdown included)."""
    assert not run.unlisted_problems, "more cells failed than a result lists"
    return [(r.cell, r.status) for r in run.cells if r.status != "ok"]


def cells(run: RunResult) -> list[tuple[int, str]]:
    return [(r.cell, r.status) for r in every_cell(run)]


def error_type(record: CellRecord) -> str:
    return str((record.error or {}).get("type"))


def no_grader_errors(run: RunResult) -> None:
    errors = [(e.id, c.id, c.message) for e in run.exercises for c in e.checks if c.status == "error"]
    assert not errors, errors


def failed_checks(run: RunResult) -> set[str]:
    """`exercise/check` of every check that failed."""
    return {f"{e.id}/{c.id}" for e in run.exercises for c in e.checks if c.status == "failed"}


# -- the machine ---------------------------------------------------------------------------------------------
# The device the device exercise compares on here, as it decides it (None: its `accelerator` check is skipped).
accelerator = judge_accelerator
# Tests of what a machine without an accelerator shows (they unset GRADER_ACCELERATOR themselves).
WITHOUT_ACCELERATOR = pytest.mark.skipif(hardware_accelerator() is not None,
                                         reason="an accelerator is present: the GPU comparison runs")


# -- the hostile corpus ----------------------------------------------------------------------------------------
def attack(which: str, /, **values: object) -> str:
    """tests/hostile/attacks/WHICH.py with its `@NAME@` tokens filled from `values` (mark="x" fills @MARK@)."""
    text = (ATTACKS / f"{which}.py").read_text(encoding="utf-8")
    for key, value in values.items():
        text = text.replace(f"@{key.upper()}@", str(value))
    assert not re.search(r"@[A-Z]+@", text), f"unfilled token in {which}"
    return text


# The attacks a class run puts before one student's answers each (test_class_run, test_batch): the student
# kills every process it can see, its parent and its group; floods its output; forks until it cannot; reads
# the reference; prints fake results and workflow commands. Each must cost nobody else anything.
CLASS_ATTACKS = {
    "kills": ("kill_everything", "kill_parent", "kill_group"),
    "floods": ("flood_write_stdout", "flood_print_stdout"),
    "forks": ("fork_bomb",),
    "steals": ("read_solutions",),
    "workflow": ("fake_results",),
}


def class_attacks() -> dict[str, str]:
    """Each student of CLASS_ATTACKS and the attack code before their answers."""
    return {student: "\n".join(attack(a, mark=student) for a in names) + "\n"
            for student, names in CLASS_ATTACKS.items()}


def copy_distribution(into: Path) -> Path:
    """What a clone holds of the distribution, copied into `into` (made): its metadata, README, the package and the
    folders pyproject's package-dir installs into it; a wheel is built from the copy, never in the checkout."""
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    into.mkdir(parents=True)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, into / name)
    for top in {package.split(".")[0] for package in setuptools["packages"]} | set(setuptools["package-dir"].values()):
        shutil.copytree(ROOT / top, into / top, ignore=shutil.ignore_patterns("__pycache__"))
    return into
