"""Checking an answer from inside Jupyter: `%grade 3.1` and `check("3.1")`, the result shown under the cell.

The kernel is the student's: code in it could rewrite anything the grader did there. So the kernel only
collects what it ran (IPython's input history, in the order it ran) and hands it, as text, to a judge
of its own (grader.integrations.kernel_judge), which re-runs it from scratch in the sandbox, as `grade` does. No
object of the kernel crosses over, and the kernel's state is never touched. The judge stays warm for
the next `%grade`; Stop (an interrupt) kills it, and with it every process of the grade.

That protects the grader, not the grade: the notebook's code can rewrite the history (or the saved file)
before it is sent and the result it gets back, so every result here is a self-check (RunResult.self_check,
shown as a banner), and a course grades the saved notebook with `grade` in a process of its own.
"""
from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import IO, Any

import click

import grader.render  # noqa: F401  (registers how a run displays: inline feedback, the terminal summary)
from grader.judge.launcher import python_env
from grader.load.submission import GRADER_CALL
from grader.messages import catalogue
from grader.messages.errors import GraderError
from grader.results import RunResult, Ungraded, outcome_from_json

_GRADE_MAGIC = re.compile(r"^\s*%grade\b")


class GradeError(GraderError):
    """A grade that could not be had (no notebook on disk, a judge that did not start): one message."""

    def __str__(self) -> str:
        return catalogue.text(self.key, catalogue.default_lang(), **self.args_)


class Judge:
    """The kernel's judge process: started on first use, one request at a time, killed on interrupt."""

    def __init__(self) -> None:
        self.log: IO[bytes] = tempfile.TemporaryFile()  # its stderr, quoted if it dies
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "grader.integrations.kernel_judge"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
            env=python_env(),  # this grader, wherever the kernel found it
            start_new_session=True,  # Stop signals the kernel's group: the judge hears of it from us
        )

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        try:
            self.proc.stdin.write(json.dumps(request).encode() + b"\n")
            self.proc.stdin.flush()
            line = self.proc.stdout.readline()
        except BrokenPipeError:
            line = b""
        if not line:
            self.kill()
            raise GradeError("jupyter.judge_died", error=self._last_words())
        reply: dict[str, Any] = json.loads(line)
        return reply

    def _last_words(self) -> str:
        self.log.seek(0)
        lines = self.log.read().decode("utf-8", "replace").strip().splitlines()
        return lines[-1][:300] if lines else f"exit {self.proc.returncode}"

    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> None:
        """The judge and its group at once. Its zygote and scratch keeper, each in a session of its own, see
        it go: the zygote ends every process of the grade, the keeper removes the scratch folder."""
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except OSError:
            pass
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                stream.close()


_judge: Judge | None = None


def _ask(request: dict[str, Any]) -> dict[str, Any]:
    global _judge
    if _judge is None or not _judge.alive():
        _judge = Judge()
    try:
        return _judge.ask(request)
    except BaseException:  # Stop (KeyboardInterrupt), or a judge that died: nothing may be left running
        _judge.kill()
        _judge = None
        raise


def check(exercise: str, path: str | os.PathLike[str] | None = None, *, saved: bool = False,
          lang: str | None = None, timeout: float = 60, seed: int | None = None) -> RunResult:
    """Grade EXERCISE (an id, a set, ids joined by commas, or `all`) on the code this kernel has run so
    far, or on the notebook saved on disk (`saved`), or on the file at `path`. Returns the result, which
    Jupyter shows inline: a self-check for the student, which the notebook's code could forge, so a
    course's tests run `grade` on the saved notebook instead of asserting on it."""
    shell = _shell()
    lang = lang or catalogue.default_lang()
    if path is not None:
        target, inputs = Path(path), None
    elif saved:
        target, inputs = saved_notebook(shell), None
    else:
        target, inputs = _this_notebook(shell), recorded_inputs(shell)
    if not target.is_absolute():
        target = Path.cwd() / target
    outcome = outcome_from_json(_ask({"spec": exercise, "path": str(target), "inputs": inputs, "lang": lang,
                                      "timeout": timeout, "seed": seed}))
    if isinstance(outcome, Ungraded):  # why there is no result, told as `grade` tells it
        raise GradeError(outcome.problem.key, **outcome.problem.args)
    return outcome


def recorded_inputs(shell: Any) -> list[tuple[int, str]]:
    """(execution count, source) of each cell the kernel ran since it started, the one running now cut
    before the line that asks for the grade."""
    history = list(shell.history_manager.input_hist_raw)
    inputs = [(count, source) for count, source in enumerate(history) if count and source.strip()]
    if inputs and inputs[-1][0] == len(history) - 1:  # the cell running now
        count, source = inputs.pop()
        lines = source.splitlines(keepends=True)
        cut = next((i for i, line in enumerate(lines) if _GRADE_MAGIC.match(line) or GRADER_CALL.match(line)),
                   len(lines))
        if "".join(lines[:cut]).strip():
            inputs.append((count, "".join(lines[:cut])))
    return inputs


def saved_notebook(shell: Any) -> Path:
    """The notebook file this kernel runs, where the front end says: VS Code in `__vsc_ipynb_file__`,
    Jupyter Server in JPY_SESSION_NAME (a path that may be relative to the server's folder)."""
    named = notebook_named(shell)
    for candidate in (Path(named), Path.cwd() / named, Path.cwd() / Path(named).name):
        if named and candidate.suffix == ".ipynb" and candidate.is_file():
            return candidate
    raise GradeError("jupyter.no_saved", named=named or "—")


def notebook_named(shell: Any) -> str:
    """The notebook the front end says this kernel runs, "" if none says: VS Code's `__vsc_ipynb_file__`,
    else Jupyter Server's session path (JPY_SESSION_NAME, which ipykernel also keeps as `__session__`)."""
    for named in (shell.user_ns.get("__vsc_ipynb_file__"), os.environ.get("JPY_SESSION_NAME"),
                  shell.user_ns.get("__session__")):
        if isinstance(named, str) and named.strip():
            return named
    return ""


def _this_notebook(shell: Any) -> Path:
    """The name the page gives the kernel's code: its notebook's, where the front end says it, even before
    it is saved (a session path relative to the server's folder names it all the same), else `(kernel)`."""
    try:
        return saved_notebook(shell)
    except GradeError:
        named = notebook_named(shell).replace("\\", "/").rsplit("/", 1)[-1]
        return Path.cwd() / (named if named.endswith(".ipynb") else "(kernel)")


def _shell() -> Any:
    try:
        from IPython import get_ipython
    except ImportError:
        get_ipython = None
    shell = get_ipython() if get_ipython is not None else None
    if shell is None or not hasattr(shell, "history_manager"):
        raise GradeError("jupyter.no_kernel")
    return shell


# -- the magic ---------------------------------------------------------------------------------------------
@click.command("%grade", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("exercise")
@click.argument("path", required=False, type=click.Path(path_type=Path))
@click.option("--saved", is_flag=True, help="Grade the notebook as saved on disk, not as this kernel ran it.")
@click.option("--lang", type=click.Choice(catalogue.LANGS), default=None, help="Language of the feedback.")
@click.option("--timeout", type=click.FloatRange(min=1), default=60, show_default=True,
              help="Seconds the whole submission may take.")
@click.option("--seed", type=click.IntRange(min=0), default=None, help="Reproduce a run's hidden inputs.")
def _grade_options(**options: Any) -> dict[str, Any]:
    """Grade the code this kernel has run (or PATH) on EXERCISE, and show the result under the cell."""
    return options


def grade_magic(line: str) -> None:
    """%grade EXERCISE [PATH] [--saved] [--lang en|zh] [--timeout S] [--seed N]"""
    from IPython.display import display

    try:
        options = _grade_options.main(shlex.split(line), prog_name="%grade", standalone_mode=False)
    except click.exceptions.Exit:  # --help was printed
        return
    except click.ClickException as exc:
        exc.show()
        return
    except ValueError as exc:  # shlex: an unclosed quote
        print(f"%grade: {exc}", file=sys.stderr)
        return
    lang = options["lang"] or catalogue.default_lang()
    try:
        result = check(options["exercise"], options["path"], saved=options["saved"], lang=lang,
                       timeout=options["timeout"], seed=options["seed"])
    except GraderError as exc:
        print(catalogue.text(exc.key, lang, **exc.args_), file=sys.stderr)
        return
    except KeyboardInterrupt:
        print(catalogue.text("jupyter.stopped", lang), file=sys.stderr)
        raise
    display(result)


def load_ipython_extension(shell: Any) -> None:
    """`%load_ext grader`: the `%grade` magic."""
    shell.register_magic_function(grade_magic, magic_kind="line", magic_name="grade")


def _register_in_running_shell() -> None:
    """`import grader.integrations.jupyter` in a notebook is the other way to get `%grade`."""
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is not None:
        load_ipython_extension(shell)


_register_in_running_shell()
