"""Every command and every option says what it is for, in `--help` and in docs/cli.md, the reference
generated from that `--help` (sqlite-utils' habit, with cog): a new option without help text, or a
reference that no longer says what the commands print, fails here."""
from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import click
import pytest

from conftest import ROOT
from grader.cli import cli
from helpers import grade


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("cli_reference", ROOT / "docs" / "cli.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GENERATOR = _generator()
REFERENCE = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
PROSE = "\n".join(path.read_text(encoding="utf-8")  # the docs written by hand
                  for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))] if path != GENERATOR.PATH)
COMMANDS = cli.list_commands(click.Context(cli))
EVERY = list(GENERATOR.commands())


def options(command: click.Command) -> list[click.Option]:
    return [p for p in command.params if isinstance(p, click.Option) and "--help" not in p.opts]


def command_at(words: tuple[str, ...]) -> click.Command:
    command: click.Command = cli
    for word in words:
        assert isinstance(command, click.Group)
        found = command.get_command(click.Context(command), word)
        assert found is not None, words
        command = found
    return command


def section(words: tuple[str, ...]) -> str:
    """The reference's section for `grade WORDS...`, its whitespace made single spaces (help is wrapped)."""
    heading = f"## {' '.join(('grade', *words))}\n"
    assert heading in REFERENCE, f"docs/cli.md has no section `{heading.strip()}`: run `{GENERATOR.REGENERATE}`"
    return " ".join(REFERENCE.split(heading, 1)[1].split("\n## ", 1)[0].split())


@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_and_option_has_help_text(name: str) -> None:
    command = command_at((name,))
    assert (command.help or "").strip(), f"`grade {name}` has no help text"
    for option in options(command):
        assert (option.help or "").strip(), f"`grade {name} {option.opts[-1]}` has no help text"


def test_the_reference_is_what_the_commands_print() -> None:
    """docs/cli.md is exactly what the generator renders from today's commands."""
    assert GENERATOR.reference() == REFERENCE, f"docs/cli.md is out of date: run `{GENERATOR.REGENERATE}`"


@pytest.mark.parametrize("words", EVERY, ids=lambda words: " ".join(("grade", *words)))
def test_every_command_and_option_is_in_the_reference(words: tuple[str, ...]) -> None:
    """Each command has its section in docs/cli.md, and there its help and each option's flags and help."""
    command, text = command_at(words), section(words)
    assert " ".join((command.help or "").replace("\b", "").split()[:6]) in text, words
    for option in options(command):
        for flag in option.opts + option.secondary_opts:
            spelled = rf"(^|[\s,/]){re.escape(flag)}(?![\w-])"
            assert re.search(spelled, text), f"docs/cli.md lacks `grade {' '.join(words)} {flag}`"
        assert " ".join((option.help or "").split()) in text, f"docs/cli.md lacks the help of {option.opts}"


def test_the_reference_covers_every_command() -> None:
    assert {words[0] for words in EVERY if words} == set(COMMANDS) and () in EVERY, EVERY


def test_every_command_is_shown_in_the_prose_and_the_reference_is_linked() -> None:
    """Beyond the reference, each command is shown where its readers look; the README links the reference."""
    for name in COMMANDS:
        spelled = "grade EXERCISE SUBMISSION" if name == "exercise" else f"grade {name}"
        assert spelled in PROSE, f"the docs never show `{spelled}`"
    assert "(docs/cli.md)" in (ROOT / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("words", EVERY, ids=lambda words: " ".join(("grade", *words)))
def test_the_reference_is_what_a_terminal_shows(tmp_path: Path, words: tuple[str, ...]) -> None:
    """The installed `grade ... --help`, run as a student's 80-column English shell runs it, prints what
    the generator renders in process."""
    result = grade(*words, "--help", cwd=tmp_path, env={"COLUMNS": "80"})
    assert result.code == 0 and not result.stderr, result.stderr
    assert result.stdout == GENERATOR.help_text(words)


def test_the_end_of_assignment_walkthrough_names_only_real_commands_and_flags() -> None:
    """docs/end-of-assignment.md is what an instructor copies at the end of term: each `grade` line in its
    code blocks names a command that exists and only flags that command takes."""
    import re
    import shlex

    text = (ROOT / "docs" / "end-of-assignment.md").read_text(encoding="utf-8")
    lines = [line.split("#")[0] for block in re.findall(r"```sh\n(.*?)```", text, re.S) for line in block.splitlines()]
    commands = [shlex.split(line) for line in lines if line.startswith("grade ")]
    assert {words[1] for words in commands} >= {"batch", "adjust", "export", "release"}, commands
    for words in commands:
        command = command_at((words[1],))
        taken = {flag for param in command.params for flag in [*param.opts, *getattr(param, "secondary_opts", [])]}
        assert {w for w in words[2:] if w.startswith("-")} <= taken, words
