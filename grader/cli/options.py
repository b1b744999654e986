"""What every command shares: the language it speaks, its one-line warnings, its `Grader`, the exercise folders.

A command records the language it chose (`speak`) so that the group, which turns every GraderError
into one line and an exit code, tells that error in the same language as the command's other output.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence, TypeVar

import click

from grader.messages import catalogue
from grader.outputs.safe_text import one_line

if TYPE_CHECKING:
    from grader.classes.course import Compared
    from grader.judge.grader import Grader

F = TypeVar("F", bound=Callable[..., Any])

EXERCISES_HELP = "Exercise ids or sets (ch03, gpt) joined by commas, or `all`."
BOILERPLATE_HELP = "Code every student was given, besides the template and the book's (repeatable)."


def lang_option(help: str = "Language of the outputs.") -> Callable[[F], F]:
    return click.option("--lang", type=click.Choice(catalogue.LANGS), default=None, help=help)


def output_folder(ctx: click.Context, param: click.Parameter, value: Path | None) -> Path | None:
    """The callback of an option that names an output folder, checked before the command does anything: `-`
    (standard output) is no folder, and a file or a place that cannot be written is refused."""
    from grader.outputs import paths

    named = "/".join(param.opts) if isinstance(param, click.Option) else param.human_readable_name
    paths.check(folders={named: value})
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


def warn(message: str) -> None:
    """One line on stderr. It may quote a file name or an error a student chose: no escape, no line
    break and no workflow command of theirs reaches the terminal or a CI log."""
    click.echo(f"grade: {one_line(message)}", err=True)


def tell_similar(compared: Compared, index: Path, lang: str) -> None:
    """What a comparison found (`grade similar`, `grade batch --similar`), for the terminal: the students it could
    not compare, the most alike pairs, and where the overview is."""
    from grader.render import similar

    found = compared.found
    if compared.missing:
        warn(catalogue.text("similar.no_code", lang, count=compared.missing))
    for line in similar.terminal_lines(found, lang):
        click.echo(one_line(line))
    click.echo(catalogue.text("similar.summary", lang, pairs=len(found.pairs), compared=found.compared,
                              threshold=similar.percent(found.threshold), path=one_line(index)))


def use_color(stream: Any) -> bool:
    return "NO_COLOR" not in os.environ and hasattr(stream, "isatty") and stream.isatty()


def points(points: float, gpu: float, lang: str) -> str:
    """An exercise's points as every output shows them: those of any machine, then what a GPU adds."""
    return catalogue.text("points.gpu", lang, points=points, gpu=gpu) if gpu else f"{points:g}"
