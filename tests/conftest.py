"""The end-to-end harness: one zygote for the session, and a fixture that grades a file or a source text.

Also the markers every test gets from what it reaches (e2e, kernel, browser; see the end of this file):
`pytest -m "not e2e"` is the fast loop, the unit tests alone, in seconds."""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Callable, Iterator, Sequence

import pytest

from grader.judge.exercise import Exercise, discover
from grader.judge.grader import Grader
from grader.judge.launcher import Launcher, ZygoteLauncher, default_launcher, zygotes_available
from grader.results import CheckResult, RunResult
from grader.sandbox.limits import Limits
from helpers import dumpable_kept, results_off_schema

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "corpus"
SEEDS = ROOT / "tests" / "seeds"
SOLUTION = ROOT / "solutions" / "chapter3.py"
TEMPLATE = ROOT / "student_template"

sys.path.insert(0, str(CORPUS))
import mutations  # noqa: E402  (tests/corpus is data, not a package)

EXERCISES = discover()

Grade = Callable[..., RunResult]


def grade(source: Path, exercises: Sequence[Exercise], launcher: Launcher, *, seed: int, lang: str = "en",
          timeout: float = 60.0, beside: bool = False, limits: Limits = Limits()) -> RunResult:
    """Grade as every command does, through `Grader` (the library's one way to grade), with `launcher` (the
    session's zygote, or a test's own), which it leaves open. Whether this process may be traced stays as it
    was: a Grader hides its judge for the process's life, and a test run's process is many judges in turn."""
    with dumpable_kept(), Grader(launcher=launcher) as grader:
        return grader.grade(source, exercises, lang=lang, timeout=timeout, seed=seed, beside=beside, limits=limits)


@pytest.fixture(scope="session")
def launcher() -> Iterator[ZygoteLauncher]:
    """The run's zygote, which forks every sandbox of the run (~1,500): a batch's kind (grader/judge/launcher.py)."""
    launcher = ZygoteLauncher.shared(1)[0] if zygotes_available() else default_launcher()
    yield launcher  # type: ignore[misc]
    launcher.close()


@pytest.fixture
def zygote_pid(launcher: ZygoteLauncher) -> int | None:
    """The session zygote's pid (None with the spawning launcher, whose children are not forks)."""
    zygote = getattr(launcher, "zygote", None)
    return None if zygote is None else int(zygote.proc.pid)


@pytest.fixture
def grade_file(launcher: ZygoteLauncher, tmp_path: Path) -> Grade:
    """grade_file(path_or_source, exercises="ch03", suffix=".py", seed=0, timeout=60) -> RunResult.

    `exercises` as on the command line: ids joined by commas, a set (`ch03`, `gpt`) or `all`."""

    def run(submission: Path | str, exercises: str = "ch03", *, suffix: str = ".py", seed: int = 0,
            timeout: float = 60.0, name: str = "submission") -> RunResult:
        if isinstance(submission, str):
            path = tmp_path / f"{name}{suffix}"
            path.write_text(submission, encoding="utf-8")
        else:
            path = submission
        return grade(path, select(exercises), launcher, seed=seed, timeout=timeout)

    return run


def select(spec: str) -> list:
    """The exercises a spec names, in list order."""
    names = spec.split(",")
    chosen = [e for e in EXERCISES.values() if "all" in names or e.group in names or e.id in names]
    assert chosen, f"no exercise is called {spec}"
    return chosen


def mutant(group: list[tuple[str, str, str]], bug: str) -> str:
    """The reference solution with one named bug (tests/corpus/mutations.py)."""
    for bug_id, old, new in group:
        if bug_id == bug:
            return mutations.apply(SOLUTION.read_text(encoding="utf-8"), old, new)
    raise KeyError(bug)


def check(run: RunResult, exercise: str, check_id: str) -> CheckResult:
    for ex in run.exercises:
        if ex.id == exercise:
            for c in ex.checks:
                if c.id == check_id:
                    return c
    raise KeyError(f"{exercise}/{check_id}")


def statuses(run: RunResult, exercise: str) -> dict[str, str]:
    return {c.id: c.status for ex in run.exercises if ex.id == exercise for c in ex.checks}


# -- markers: e2e, kernel, browser (registered in pyproject.toml) ---------------------------------------------
# A test is marked by what it reaches, so that `pytest -m "not e2e"` (the fast loop) stays fast as tests are
# added: e2e when it grades in a real sandbox or starts a process of the grader (or of any Python, Chromium,
# a Jupyter kernel), that is when it asks for the session zygote's fixtures, or its code, its fixtures' code
# or the code of the tests' own functions and classes they call names one of the entry points below; kernel
# when it reaches a Jupyter kernel; browser when it asks for `chromium`; tests/hostile is e2e as a whole.
# A test left unmarked that starts such a process anyway fails, saying so (`_fast_tests_start_no_process`).
E2E_FIXTURES = frozenset({"launcher", "zygote_pid", "grade_file"})
BROWSER_FIXTURES = frozenset({"chromium"})
TESTS = ROOT / "tests"


def _entry_points() -> dict[int, tuple[object, frozenset[str]]]:
    import subprocess

    import helpers
    from grader.judge.client import SandboxClient
    from grader.judge.grader import Grader
    from grader.judge.launcher import SpawnLauncher

    e2e, kernel = frozenset({"e2e"}), frozenset({"e2e", "kernel"})
    points: list[tuple[object, frozenset[str]]] = [
        (subprocess, e2e), (subprocess.run, e2e), (subprocess.Popen, e2e), (subprocess.check_output, e2e),
        (subprocess.check_call, e2e), (subprocess.call, e2e), (helpers.grade, e2e), (grade, e2e),
        (ZygoteLauncher, e2e), (SpawnLauncher, e2e), (default_launcher, e2e), (Grader, e2e), (SandboxClient, e2e),
    ]
    try:
        from jupyter_client.manager import KernelManager, start_new_kernel
        from nbclient import NotebookClient
    except ImportError:
        pass
    else:
        points += [(start_new_kernel, kernel), (KernelManager, kernel), (NotebookClient, kernel)]
    return {id(obj): (obj, marks) for obj, marks in points}  # the object is kept: its id stays its own


def _code_objects(code: object) -> Iterator[object]:
    yield code
    for const in getattr(code, "co_consts", ()):
        if hasattr(const, "co_names"):
            yield from _code_objects(const)


def _in_tests(obj: object) -> bool:
    """A function or class of the tests' own (tests/ and its helpers), not the grader's or a library's."""
    obj = getattr(obj, "__func__", obj)
    if isinstance(obj, type):
        filename = getattr(sys.modules.get(obj.__module__), "__file__", None)
    else:
        filename = getattr(getattr(obj, "__code__", None), "co_filename", None)
    return filename is not None and Path(filename).resolve().is_relative_to(TESTS)


def _reached(obj: object, points: dict[int, tuple[object, frozenset[str]]], seen: set[int]) -> set[str]:
    """The marks of the entry points a function (or a class of the tests' own) names, followed through the
    tests' own functions and classes it names in turn."""
    if id(obj) in seen:
        return set()
    seen.add(id(obj))
    if isinstance(obj, type):
        return set().union(*(_reached(v, points, seen) for v in vars(obj).values() if _in_tests(v)))
    func = getattr(obj, "__func__", obj)
    code, names = getattr(func, "__code__", None), getattr(func, "__globals__", {})
    marks: set[str] = set()
    for each in _code_objects(code) if code is not None else ():
        for name in each.co_names:  # type: ignore[attr-defined]
            value = names.get(name)
            if id(value) in points:
                marks |= points[id(value)][1]
            elif _in_tests(value):
                marks |= _reached(value, points, seen)
    return marks


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    points = _entry_points()
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        marks: set[str] = set()
        if fixtures & E2E_FIXTURES:
            marks.add("e2e")
        if fixtures & BROWSER_FIXTURES or Path(str(item.path)).name.startswith("test_browser"):
            marks |= {"e2e", "browser"}
        if Path(str(item.path)).resolve().is_relative_to(TESTS / "hostile"):
            marks.add("e2e")
        seen: set[int] = set()
        function = getattr(item, "function", None)
        if function is not None:
            marks |= _reached(function, points, seen)
        info = getattr(item, "_fixtureinfo", None)
        for defs in (info.name2fixturedefs.values() if info is not None else ()):
            for fixture in defs:
                if _in_tests(fixture.func):
                    marks |= _reached(fixture.func, points, seen)
        for mark in sorted(marks - {m.name for m in item.iter_markers()}):
            item.add_marker(mark)


_SLOW_PROGRAMS = ("python", "grade", "chromium", "chrome", "jupyter")
# The scratch folders' keeper: no torch, started once per process (grader/judge/keeper.py).
_CHEAP_SCRIPTS = (os.path.join("grader", "judge", "keeper.py"),)


@pytest.fixture(autouse=True)
def _fast_tests_start_no_process(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A test not marked e2e may not start Python (the grader, a zygote, a kernel) or Chromium: the mark is
    what keeps the fast loop fast, so a test that needs one says so (pytest.mark.e2e) or reaches an entry
    point above."""
    if request.node.get_closest_marker("e2e") is not None:
        return
    import subprocess

    started = subprocess.Popen.__init__

    def guarded(self: subprocess.Popen, args: object, *rest: object, **kwargs: object) -> None:
        argv = [args] if isinstance(args, (str, bytes, os.PathLike)) else list(args)  # type: ignore[call-overload]
        name = os.path.basename(os.fsdecode(argv[0] if argv else "")).lower()
        cheap = any(os.fsdecode(a).endswith(_CHEAP_SCRIPTS) for a in argv[1:])
        if name.startswith(_SLOW_PROGRAMS) and not cheap:
            pytest.fail(f"{request.node.nodeid} starts {name} but is not marked e2e: mark it "
                        f"(pytest.mark.e2e) or see tests/conftest.py's markers", pytrace=False)
        started(self, args, *rest, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(subprocess.Popen, "__init__", guarded)


# -- the JSON result: every one the tests write follows the schema the package ships ---------------------------
_CHECKED: set[Path] = set()  # the tests' own tmp_path folders, checked after each test


@pytest.fixture(autouse=True)
def _results_follow_their_schema(request: pytest.FixtureRequest) -> Iterator[None]:
    """After each test, every result it wrote under its tmp_path (`--json`, results.jsonl) validates against
    grader/results/result.schema.json, so the writer and the schema cannot part (docs/json.md). What a command
    printed is checked where the tests capture it (helpers.Result)."""
    folder = request.getfixturevalue("tmp_path") if "tmp_path" in request.fixturenames else None
    yield
    if folder is not None:
        _CHECKED.add(folder)
        _fail_if_off_schema(results_off_schema(folder))


@pytest.fixture(autouse=True, scope="module")
def _module_results_follow_their_schema(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The same for the folders a module's fixtures made (tmp_path_factory.mktemp: a class graded once for many
    tests), after the module's last test."""
    base = tmp_path_factory.getbasetemp()
    before = set(base.iterdir())
    yield
    _fail_if_off_schema([line for folder in sorted(set(base.iterdir()) - before - _CHECKED) if folder.is_dir()
                         for line in results_off_schema(folder)])


def _fail_if_off_schema(broken: list[str]) -> None:
    if broken:
        pytest.fail("results off their schema (grader/results/result.schema.json):\n" + "\n".join(broken),
                    pytrace=False)
