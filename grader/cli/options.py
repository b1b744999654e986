"""What every command shares: the language it speaks, its one-line warnings, its `Grader`, the exercises.

A command records the language it chose (`speak`) so that the group, which turns every GraderError
into one line and an exit code, tells that error in the same language as the command's other output.
"""
from __future__ import annotations

import difflib
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence, TypeVar

import click

from grader.messages import catalogue
from grader.render.text import one_line

if TYPE_CHECKING:
    from grader.judge.exercise import Exercise
    from grader.judge.grader import Grader

F = TypeVar("F", bound=Callable[..., Any])

EXERCISES_HELP = "Exercise ids or sets (ch03, gpt) joined by commas, or `all`."


def lang_option(help: str = "Language of the outputs.") -> Callable[[F], F]:
    return click.option("--lang", type=click.Choice(catalogue.LANGS), default=None, help=help)


def output_folder(ctx: click.Context, param: click.Parameter, value: Path | None) -> Path | None:
    """The callback of an option that names an output folder, checked before the command does anything: `-`
    (standard output) is no folder, and a file or a place that cannot be written is refused."""
    from grader.render import atomic

    named = "/".join(param.opts) if isinstance(param, click.Option) else param.human_readable_name
    atomic.check(folders={named: value})
    return value


def _state() -> dict[str, Any]:
    context = click.get_current_context(silent=True)
    root = context.find_root() if context else None
    if root is None:
        return {}
    if root.obj is None:
        root.obj = {}
    state: dict[str, Any] = root.obj
    return state


def speak(lang: str | None) -> str:
    """The language the command speaks from here on: the one asked for, else the locale's."""
    chosen = lang or catalogue.default_lang()
    _state()["lang"] = chosen
    return chosen


def spoken(state: Mapping[str, Any] | None = None) -> str:
    """The language to tell a message in that comes before or without the command's own choice (an error
    while its options are parsed, or once its context has closed: `state` is then the group's root object):
    the one it chose, else `--lang` as the command line gives it, else the locale's."""
    state = _state() if state is None else state
    return str(state.get("lang") or _asked(state.get("args", ())) or catalogue.default_lang())


def _asked(args: Sequence[str]) -> str | None:
    """The last valid `--lang` of a command line (click keeps the last of a repeated option), read before
    click has parsed it, or where its parsing stopped first; none after `--`, where options end."""
    asked = None
    for before, arg in zip(["", *args], args):
        if arg == "--":
            break
        value = arg.partition("=")[2] if arg.startswith("--lang=") else arg if before == "--lang" else None
        asked = value if value in catalogue.LANGS else asked
    return asked


def exercise_folders() -> tuple[Path, ...]:
    """The `--exercises DIR` folders given to the group (and those a CI configuration adds)."""
    return tuple(_state().get("folders", ()))


def add_exercise_folders(folders: tuple[Path, ...]) -> None:
    _state()["folders"] = (*exercise_folders(), *folders)


def new_grader() -> Grader:
    """A Grader over the group's exercise folders. A test run hands the group its shared launcher
    (`obj={"launcher": ...}`), which the Grader uses and leaves open."""
    from grader.judge.grader import Grader

    return Grader(exercise_folders(), launcher=_state().get("launcher"))


def chosen_exercises(grader: Grader, spec: str) -> list[Exercise]:
    """The exercises EXERCISE names (Grader.select), each id or set in any case (`Mask` is `mask`); an
    unknown one close to a real one (`maks`) says which it may have meant."""
    from grader.judge.exercise import UnknownExercise

    names = [*grader.exercises, *sorted({e.group for e in grader.exercises.values()}), "all"]
    folded = {name.lower(): name for name in reversed(names)}  # the first spelling of a name, where two fold alike
    spec = ",".join(part if part in names else folded.get(part.lower(), part) for part in spec.split(","))
    try:
        return grader.select(spec)
    except UnknownExercise as exc:
        near = difflib.get_close_matches(str(exc.args_.get("name", "")).lower(), list(folded), n=1)
        if not near:
            raise
        raise UnknownExercise("cli.unknown_exercise_near", **exc.args_, near=folded[near[0]]) from exc


def warn(message: str) -> None:
    """One line on stderr. It may quote a file name or an error a student chose: no escape, no line
    break and no workflow command of theirs reaches the terminal or a CI log."""
    click.echo(f"grade: {one_line(message)}", err=True)


def use_color(stream: Any) -> bool:
    return "NO_COLOR" not in os.environ and hasattr(stream, "isatty") and stream.isatty()


def points(points: float, gpu: float, lang: str) -> str:
    """An exercise's points as every output shows them: those of any machine, then what a GPU adds."""
    return catalogue.text("points.gpu", lang, points=points, gpu=gpu) if gpu else f"{points:g}"
