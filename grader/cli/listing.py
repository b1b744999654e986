"""`grade list`: the exercises, their sets, titles and points."""
from __future__ import annotations

import click

from grader.cli.options import lang_option, new_grader, points, speak
from grader.messages import catalogue


@click.command("list")
@lang_option("Language of the titles.")
def list_command(lang: str | None) -> None:
    """Show the exercises with their titles and points."""
    from grader.render.terminal import ljust, width

    lang = speak(lang)
    exercises = list(new_grader().exercises.values())
    shown = {e.id: points(e.points, e.gpu_points, lang) for e in exercises}
    column = max(map(width, shown.values()))
    for exercise in exercises:
        click.echo(f"{exercise.id:<14} {exercise.group:<6} {ljust(shown[exercise.id], column)}  "
                   f"{catalogue.pick(exercise.title, lang)}")
    for group in dict.fromkeys(e.group for e in exercises):  # a set's total, as a run without a GPU grades it
        members = [e for e in exercises if e.group == group]
        total = points(sum(e.points for e in members), sum(e.gpu_points for e in members), lang)
        click.echo(catalogue.text("list.set", lang, group=group, points=total))
