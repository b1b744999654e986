"""Every command and every option says what it is for, in `--help` and in the docs (sqlite-utils'
habit): a user who reads `grade batch --help` or docs/ finds each one, and a new option without help
text or documentation fails here."""
from __future__ import annotations

import click
import pytest

from conftest import ROOT
from grader.cli import cli

DOCS = "\n".join(path.read_text(encoding="utf-8") for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))])
COMMANDS = sorted(cli.commands)


def options(command: click.Command) -> list[click.Option]:
    return [p for p in command.params if isinstance(p, click.Option) and "--help" not in p.opts]


@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_and_option_has_help_text(name: str) -> None:
    command = cli.commands[name]
    assert (command.help or "").strip(), f"`grade {name}` has no help text"
    for option in options(command):
        assert (option.help or "").strip(), f"`grade {name} {option.opts[-1]}` has no help text"


@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_and_option_is_in_the_docs(name: str) -> None:
    command = cli.commands[name]
    spelled = "grade EXERCISE SUBMISSION" if name == "exercise" else f"grade {name}"
    assert spelled in DOCS, f"the docs never show `{spelled}`"
    for option in options(command):
        flags = [flag for flag in option.opts + option.secondary_opts if flag.startswith("--")] or option.opts
        assert any(flag in DOCS for flag in flags), f"the docs never name `grade {name}` {flags}"


def test_the_group_options_are_documented() -> None:
    for option in options(cli):
        assert (option.help or "").strip() and any(flag in DOCS for flag in option.opts), option.opts


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
        command = cli.commands[words[1]]
        taken = {flag for param in command.params for flag in [*param.opts, *getattr(param, "secondary_opts", [])]}
        assert {w for w in words[2:] if w.startswith("-")} <= taken, words
