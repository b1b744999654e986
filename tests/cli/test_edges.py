"""The edge holds no surprise (issue 40, point 5): what `grade` does to the process it runs in is what its
design needs and says, and its errors follow click's conventions in the user's language.

- Importing `grader.cli` changes nothing; the command's own entry (`main`) keeps library warnings (torch's
  "Failed to initialize NumPy" when NumPy is absent) off the student's terminal while it runs.
- `main` runs the process's atexit handlers before it ends it with os._exit.
- An exercise's messages join the catalogue when it is discovered, never when it is built.
- A result shows in IPython without anyone importing grader.render first.
- Under `standalone_mode=False` the group re-raises, as click does; standalone, a usage error and an internal
  error are told in the user's language (`--lang`, else the locale), with click's exit code.
- What stays for the process's life, by design: a judge is not dumpable, and the instructors' folders it
  loaded stay hidden from every later child (one entry per folder, however often it is loaded).
"""
from __future__ import annotations

import subprocess
import sys
import textwrap
import types
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from grader.checks import Exercise
from grader.cli import cli
from grader.judge import secrets
from grader.judge.exercise import discover
from grader.messages import catalogue
from grader.messages.errors import GraderError
from helpers import MODULE, clean_env, grade, grade_in_process

NUMPY = "Failed to initialize NumPy: No module named 'numpy'"
# An instructor's file that warns as torch does on import where NumPy is absent: an import the command does.
LOUD = f"import warnings\nwarnings.warn({NUMPY!r}, UserWarning)\n"


def python(code: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """A fresh interpreter running `code`, as a student's shell would (English unless `env` says otherwise),
    asking for every warning (PYTHONWARNINGS=always)."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=cwd, capture_output=True, text=True,
                          timeout=180, env={**clean_env(PYTHONWARNINGS="always"), **env})


def chinese(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


# -- warnings ------------------------------------------------------------------------------------------
def test_importing_the_cli_leaves_the_warning_filters_as_they_were(tmp_path: Path) -> None:
    done = python("""
        import warnings
        before = list(warnings.filters)
        import grader.cli
        print(warnings.filters == before)
        warnings.warn("a library speaks", UserWarning)
    """, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True"
    assert "a library speaks" in done.stderr  # the embedding program's warnings are its own business


def test_the_command_keeps_torchs_numpy_warning_off_the_terminal(tmp_path: Path) -> None:
    """The warning comes from an import the command does (an instructor's folder, as torch's own import):
    the command is quiet, GRADER_DEBUG=1 shows it, and the same process outside the command shows it."""
    (tmp_path / "loud").mkdir()
    (tmp_path / "loud" / "loud.py").write_text(LOUD, encoding="utf-8")
    quiet = grade("--exercises", "loud", "list", cwd=tmp_path, command=MODULE, env={"PYTHONWARNINGS": "always"})
    assert quiet.code == 0 and quiet.stdout, quiet.stderr
    assert quiet.stderr == ""
    debugging = grade("--exercises", "loud", "list", cwd=tmp_path, command=MODULE,
                      env={"PYTHONWARNINGS": "always", "GRADER_DEBUG": "1"})
    assert NUMPY in debugging.stderr
    outside = python(f"import grader.cli\n{LOUD}", tmp_path)
    assert NUMPY in outside.stderr


# -- atexit ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("args", "code"), [(["--version"], 0), (["list"], 0), (["3.1", "missing.py"], 2),
                                             (["list", "--no-such-option"], 2)])
def test_atexit_handlers_run_when_grade_exits(tmp_path: Path, args: list[str], code: int) -> None:
    done = python(f"""
        import atexit, sys
        atexit.register(lambda: print("atexit ran", flush=True))
        sys.argv = ["grade", *{args!r}]
        from grader.cli import main
        main()
    """, tmp_path)
    assert done.returncode == code, done.stderr
    assert done.stdout.rstrip().endswith("atexit ran"), done.stdout


# -- the catalogue -----------------------------------------------------------------------------------------
def test_building_an_exercise_writes_nothing_into_the_catalogue(tmp_path: Path) -> None:
    """A test's Exercise, or one built twice, leaves the catalogue as it was; discovering an exercise is
    what adds its messages (the exercises the process grades with)."""
    real = discover()["3.1"]
    key = next(iter(real.messages))
    before = catalogue.text(f"3.1.{key}", "en")
    texts = {"en": "clobbered", "zh": "覆盖"}
    reference = types.ModuleType("reference")
    for _ in range(2):
        Exercise(id="3.1", title=texts, statement=texts, reference=reference, messages={key: texts})
        Exercise(id="edges.built", title=texts, statement=texts, reference=reference, messages={"said": texts})
    assert catalogue.text(f"3.1.{key}", "en") == before
    assert not catalogue.has("edges.built.said")

    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "found.py").write_text(textwrap.dedent("""
        import types
        from grader.checks import Exercise

        TEXTS = {"en": "found", "zh": "找到"}
        EXERCISE = Exercise(id="edges.found", title=TEXTS, statement=TEXTS, reference=types.ModuleType("r"),
                            messages={"said": TEXTS})
    """), encoding="utf-8")
    hidden = list(secrets._HIDDEN)
    try:
        assert "edges.found" in discover(folders=[folder])
    finally:
        secrets._HIDDEN[:] = hidden
    assert catalogue.text("edges.found.said", "zh") == "找到"


# -- Jupyter -----------------------------------------------------------------------------------------------
def test_a_result_shows_in_ipython_without_importing_the_renderers(tmp_path: Path) -> None:
    done = python("""
        import sys
        from IPython.core.formatters import DisplayFormatter
        from grader.results import RunResult, SubmissionInfo

        run = RunResult("0.1.0", 1, "en", "2025-01-01T00:00:00", 0.5, SubmissionInfo("s.py", "0" * 64, "py"),
                        (), (), ())
        assert "grader.render" not in sys.modules
        shown, _ = DisplayFormatter().format(run)
        print("<" in (shown.get("text/html") or ""), "RunResult" not in shown["text/plain"])
    """, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True"], done.stdout


# -- click's conventions -------------------------------------------------------------------------------------
def test_standalone_mode_false_reraises_as_click_does(tmp_path: Path) -> None:
    """An embedding caller gets the exception (click re-raises there) and a command's exit code back."""
    with pytest.raises(GraderError) as raised:
        cli.main(["--exercises", str(tmp_path / "nowhere"), "list"], prog_name="grade", standalone_mode=False)
    assert raised.value.key == "cli.no_exercise_folder"
    with pytest.raises(click.UsageError) as usage:
        cli.main(["list", "--no-such-option"], prog_name="grade", standalone_mode=False)
    assert usage.value.exit_code == 2
    assert cli.main(["list"], prog_name="grade", standalone_mode=False) == 0


@pytest.mark.parametrize("args", [["list", "--lang", "{lang}", "--no-such-option"], ["--no-such-option", "list"],
                                  ["3.1", "ok.py", "--timeout", "0", "--lang", "{lang}"], ["list", "--lang", "fr"]],
                         ids=["unknown-option", "group-option", "bad-timeout", "bad-lang"])
def test_a_usage_error_speaks_the_users_language(tmp_path: Path, args: list[str]) -> None:
    """`--lang zh`, even where parsing stopped before it, or a Chinese locale where the command line names no
    language: click's usage line, hint and error, in Chinese, with click's exit code 2; in English as click
    writes them."""
    asked = "{lang}" in args
    zh_locale = {} if asked else {"LC_ALL": "zh_CN.UTF-8", "LANG": "zh_CN.UTF-8"}
    shown = grade_in_process(*[a.format(lang="zh") for a in args], cwd=tmp_path, environ={**clean_env(), **zh_locale})
    assert shown.code == 2, shown.stderr
    assert chinese(shown.stderr.strip().splitlines()[-1]), shown.stderr
    assert "Error:" not in shown.stderr and "Usage:" not in shown.stderr and "Try " not in shown.stderr
    english = grade_in_process(*[a.format(lang="en") for a in args], cwd=tmp_path)
    assert english.code == 2
    assert english.stderr.startswith("Usage: grade") and "Try 'grade" in english.stderr, english.stderr
    assert english.stderr.strip().splitlines()[-1].startswith("Error: "), english.stderr
    assert not chinese(english.stderr)


def test_a_usage_error_in_chinese_through_a_real_process(tmp_path: Path) -> None:
    done = grade("list", "--lang", "zh", "--no-such-option", cwd=tmp_path)
    assert done.code == 2 and chinese(done.stderr.strip().splitlines()[-1]), done.stderr
    assert "Traceback" not in done.stderr


def test_the_internal_error_line_comes_in_the_users_language(tmp_path: Path) -> None:
    failing = """
        import sys
        import grader.cli.listing

        def broken():
            raise RuntimeError("boom")

        grader.cli.listing.new_grader = broken
        sys.argv = ["grade", "list", *sys.argv[1:]]
        from grader.cli import main
        main()
    """
    for extra, lang in (([], "en"), (["--lang", "zh"], "zh")):
        done = subprocess.run([sys.executable, "-c", textwrap.dedent(failing), *extra], cwd=tmp_path,
                              capture_output=True, text=True, timeout=180, env=clean_env())
        assert done.returncode == 2, done.stderr
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("grade: ") and "RuntimeError: boom" in lines[0], lines
        assert chinese(lines[0]) == (lang == "zh"), lines
        assert lines[0] == "grade: " + catalogue.text("cli.internal_error", lang, error="RuntimeError: boom")


# -- what the design keeps for the process's life --------------------------------------------------------------
def test_the_folders_a_judge_hides_stay_hidden_one_entry_each(tmp_path: Path) -> None:
    """A forked batch judge grades with the exercises its parent loaded, so a folder once loaded stays hidden
    from every later child of the process (grader.judge.secrets); it is listed once however often, and
    however spelled, a command loads it."""
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "plain.py").write_text("X = 1\n", encoding="utf-8")
    (tmp_path / "link").symlink_to(folder)
    saved = list(secrets._HIDDEN)
    try:
        for spelled in (folder, tmp_path / "link", folder / ".." / "folder", folder):
            result = CliRunner().invoke(cli, ["--exercises", str(spelled), "list"], prog_name="grade")
            assert result.exit_code == 0, result.output
        assert secrets._HIDDEN == [*saved, str(folder.resolve())]
    finally:
        secrets._HIDDEN[:] = saved


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_DUMPABLE is Linux's")
def test_a_judge_stays_hidden_from_tracing_after_its_grader_closes() -> None:
    """What it computed stays in its memory (the references stay imported), so the process is not dumpable
    again when the Grader closes (grader.judge.grader)."""
    import ctypes

    from grader.judge.grader import Grader
    from helpers import dumpable_kept

    libc = ctypes.CDLL(None, use_errno=True)
    with dumpable_kept():
        libc.prctl(4, 1, 0, 0, 0)  # PR_SET_DUMPABLE: as a process that never graded
        with Grader(launcher=types.SimpleNamespace(close=None)):  # type: ignore[arg-type]  # given: never started
            assert libc.prctl(3, 0, 0, 0, 0) == 0  # PR_GET_DUMPABLE
        assert libc.prctl(3, 0, 0, 0, 0) == 0
