"""Every command's errors pass through the one edge (grader.cli.group.GradeGroup): each bad input gives exactly
one line on stderr, `grade: ` and the catalogue's message, in the language asked for, no traceback,
and the documented exit code (grader.messages.errors). Run in-process with the test run's zygote."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import SOLUTION
from grader.cli import cli
from grader.judge.launcher import ZygoteLauncher
from grader.messages import catalogue
from grader.messages.errors import EXIT_CANNOT_GRADE

# (command line, the catalogue key its one line says); `{tmp}` is the test's folder. Each command is
# fed the inputs a user gets wrong: a file or folder that is not there, a broken one, a bad option.
CASES = [
    (["3.1", "{tmp}/absent.py"], "cli.missing_file"),
    (["nope", "{tmp}/solution.py"], "cli.unknown_exercise"),
    (["3.1", "{tmp}/broken.ipynb"], "cli.bad_notebook"),
    (["3.1", "{tmp}/solution.py", "--json", "{tmp}/solution.py/inside.json"], "cli.unwritable"),
    (["--exercises", "{tmp}/absent", "list"], None),
    (["batch", "{tmp}/absent", "-o", "{tmp}/out"], None),
    (["batch", "{tmp}/class", "-o", "{tmp}/out", "--shard", "3/2"], None),
    (["batch", "{tmp}/class", "-o", "{tmp}/out", "--shards", "2"], "shard.shards_without_auto"),
    (["batch", "{tmp}/class", "-o", "{tmp}/out", "--boilerplate", "{tmp}/absent.py"], "similar.no_boilerplate"),
    (["batch", "{tmp}/class", "-o", "{tmp}/out", "-e", "nope"], "cli.unknown_exercise"),
    (["batch", "{tmp}/bad.zip", "-o", "{tmp}/out"], "roster.bad_zip"),
    (["export", "{tmp}/class", "--format", "csv"], "batch.no_gradebook"),
    (["merge", "{tmp}/out", "{tmp}/class"], "batch.no_gradebook"),
    (["similar", "{tmp}/class"], "batch.no_gradebook"),
    (["similar", "{tmp}/class", "--boilerplate", "{tmp}/absent.py"], "similar.no_boilerplate"),
    (["gradescope", "--submission", "{tmp}/absent"], "gradescope.no_submission_folder"),
    (["gradescope", "--submission", "{tmp}/class", "--results", "{tmp}/out", "-e", "nope"], "cli.unknown_exercise"),
    (["ci", "--config", "{tmp}/absent.toml"], None),
    (["ci", "--config", "{tmp}/bad.toml"], None),
]


@pytest.fixture
def inputs(tmp_path: Path) -> Path:
    (tmp_path / "solution.py").write_text(SOLUTION.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "broken.ipynb").write_text("{not json", encoding="utf-8")
    (tmp_path / "class").mkdir()
    (tmp_path / "class" / "alice.py").write_text("x = 1\n", encoding="utf-8")
    (tmp_path / "bad.zip").write_bytes(b"PK\x03\x04 not a zip at all")
    (tmp_path / "bad.toml").write_text("[tool.grader]\nexercises = 3\n", encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(("args", "key"), CASES, ids=[" ".join(a) for a, _ in CASES])
def test_a_bad_input_is_one_line_and_exit_2(args: list[str], key: str | None, lang: str, inputs: Path,
                                           launcher: ZygoteLauncher, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(inputs)
    command = [a.replace("{tmp}", str(inputs)) for a in args] + ["--lang", lang]
    result = CliRunner().invoke(cli, command, obj={"launcher": launcher})
    lines = result.stderr.splitlines()
    assert result.exit_code == EXIT_CANNOT_GRADE, (result.output, result.stderr, result.exception)
    assert len(lines) == 1 and lines[0].startswith("grade: "), result.stderr
    assert "Traceback" not in result.stderr + result.output
    if key is not None:  # the message's own words up to its first argument (a path, an error)
        assert lines[0].startswith("grade: " + catalogue.text(key, lang).split("{")[0]), lines[0]


def test_an_interrupted_batch_exits_130(inputs: Path, launcher: ZygoteLauncher,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C during `grade batch` is one line and the shell's code for SIGINT; what was graded stays."""
    from grader.classes import pool

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(pool, "run", interrupted)
    result = CliRunner().invoke(cli, ["batch", str(inputs / "class"), "-o", str(inputs / "out"), "-j", "1",
                                      "--lang", "en"], obj={"launcher": launcher})
    assert result.exit_code == 130, result.stderr
    assert result.stderr.splitlines()[-1] == "grade: " + catalogue.text("batch.interrupted", "en")


def test_a_graded_file_exits_by_its_marks(inputs: Path, launcher: ZygoteLauncher,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A command's return value is its exit code: full marks 0, and the JSON on stdout stays pure."""
    monkeypatch.chdir(inputs)
    result = CliRunner().invoke(cli, ["3.1", "solution.py", "--json", "-", "--lang", "en"],
                                obj={"launcher": launcher})
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["$report_type"] == "RunResult"
