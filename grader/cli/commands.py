"""The commands by name, and the rule that tells `grade EXERCISE FILE` from a command: read by grader.cli.main
before anything else is imported, and by the group (grader.cli.group), so this imports nothing."""
from __future__ import annotations

# Each command's module, imported when the command runs (or help lists them): click's lazily loading group
# (grader.cli.group.GradeGroup), so that `grade EXERCISE FILE` imports no other command's module.
COMMANDS = {
    "list": ("grader.cli.listing", "list_command"),
    "exercise": ("grader.cli.grade", "exercise_command"),
    "batch": ("grader.cli.batch", "batch_command"),
    "export": ("grader.cli.export", "export_command"),
    "merge": ("grader.cli.merge", "merge_command"),
    "similar": ("grader.cli.similar", "similar_command"),
    "gradescope": ("grader.cli.gradescope", "gradescope_command"),
    "ci": ("grader.cli.ci", "ci_command"),
    "adjust": ("grader.cli.adjust", "adjust_command"),
    "release": ("grader.cli.release", "release_command"),
}

# The commands that load torch and the exercises, with the collector off meanwhile (grader.sandbox.heap).
LOADING = {"list", "exercise", "batch", "gradescope", "ci"}


def names_an_exercise(args: list[str]) -> bool:
    """Whether the command line is `grade EXERCISE ...`, the `exercise` command without its name."""
    return bool(args) and args[0] not in COMMANDS and not args[0].startswith("-")


def loads_exercises(args: list[str]) -> bool:
    """Whether the command line runs a command that loads torch and the exercises (its name is the first word that
    names a command, after the group's options)."""
    return names_an_exercise(args) or next((arg for arg in args if arg in COMMANDS), None) in LOADING
