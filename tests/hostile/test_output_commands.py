"""The hostile corpus, round 4, against what the grader writes (issue 39, section 1): no text a
submission chose acts as a command in a CI log or a spreadsheet, in any output.

Each format has its one escaping function in grader.outputs.safe_text (`one_line` for a log line, `json_text`
for JSON, `csv_text` for CSV); each test drives a whole command, as a course runs it, and reads every
output it wrote by that format's rules, not by our own escaping.
"""
from __future__ import annotations

import csv
import io
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT
from grader.outputs.safe_text import json_text

from .test_attacks import SOURCE, after
from .test_output_sizes import grade_command

ATTACKS = Path(__file__).parent / "attacks"
# GitHub's runner obeys a line starting (after spaces) with `::`, and the old spelling anywhere in a
# line; Azure's `##vso[` and TeamCity's `##teamcity[` have the old one's shape.
OLD_COMMAND = re.compile(r"##[A-Za-z]*\[")
FORMULA = ("=", "+", "-", "@")
SEPARATORS = (",", ";", "\t")


def log_commands(text: str) -> list[str]:
    """The lines of a log the runner would read as a workflow command."""
    return [line for line in text.splitlines() if line.lstrip().startswith("::") or OLD_COMMAND.search(line)]


def formulas(text: str) -> list[tuple[str, str]]:
    """The cells a spreadsheet would run, under each list separator, read as a CSV and as plain
    splitting (an import that ignores quotes): a cell run is one that starts with a formula once the
    spaces and quotes such imports trim are gone."""
    found = []
    for sep in SEPARATORS:
        cells = [cell for row in csv.reader(io.StringIO(text), delimiter=sep) for cell in row]
        cells += [piece for line in text.splitlines() for piece in line.split(sep)]
        found += [(repr(sep), cell) for cell in cells if cell.strip(' "').startswith(FORMULA)]
    return found


def assert_inert_csv(text: str) -> list[list[str]]:
    """Every field quoted (a separator inside a name stays in its cell) and nothing a spreadsheet runs."""
    rows = list(csv.reader(io.StringIO(text)))
    quoted = io.StringIO()
    csv.writer(quoted, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(rows)
    assert text == quoted.getvalue(), text
    assert not formulas(text), formulas(text)
    return rows


def test_workflow_commands_of_the_old_spelling_reach_no_log(tmp_path: Path) -> None:
    """`grade 3.1 FILE --json -`: the JSON on stdout, the terminal summary on stderr, both in the log."""
    source = after((ATTACKS / "out_workflow_commands.py").read_text(encoding="utf-8"))
    student = tmp_path / "cli" / "##[group]ev::il##[add-mask].py"
    student.parent.mkdir()
    student.write_text(source, encoding="utf-8")
    done = grade_command("3.1", student, "--json", "-", "--seed", 0, cwd=student.parent)
    assert done.returncode == 0, done.stderr
    assert log_commands(done.stdout + done.stderr) == []
    assert "grader: 3.1 passed" in done.stderr and "not passed" in done.stderr  # quoted, only broken
    result = json.loads(done.stdout)  # strict JSON, the text whole
    assert result["submission"]["path"].endswith(student.name)
    messages = [(cell.get("error") or {}).get("message", "") for cell in result["cells"]]
    assert any("##[error]grader: 3.1 passed ##[add-mask]not passed ###[group]x" in m for m in messages), messages
    assert json.loads(json_text(result, indent=2)) == result


def test_a_notebook_that_is_not_json_is_refused_without_a_command(tmp_path: Path) -> None:
    """`grade ci`'s one-line refusal quotes the start of the file, which the student wrote."""
    repo = tmp_path / "course"
    shutil.copytree(ROOT / "examples" / "course-repo", repo)
    (repo / "chapter3" / "chapter3.ipynb").write_text("##[error]3.1 passed ##[add-mask]grade\n{\"cells\": [",
                                                      encoding="utf-8")
    done = grade_command("ci", cwd=repo)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "not a valid Jupyter notebook" in done.stderr and "3.1 passed" in done.stderr
    assert log_commands(done.stdout + done.stderr) == []


NAMES = ["zz;=1+1;", "tab\t=2+2", "sp, -3+3", 'q;"=4+4', "@sum(A1)"]  # each a student's, failing 3.1
NO_STUDENT = "##[error]grader broke ##[add-mask]x.py"  # a file no student owns: said so on stderr


@pytest.fixture(scope="module")
def batch(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """One `grade batch` of a class whose file names a spreadsheet splits and runs."""
    root = tmp_path_factory.mktemp("class")
    folder = root / "in"
    folder.mkdir()
    unstarted = (ATTACKS / "out_spreadsheet_names.py").read_text(encoding="utf-8")
    for name in NAMES:
        (folder / f"{name}_1.py").write_text(unstarted, encoding="utf-8")
    (folder / NO_STUDENT).write_text(SOURCE, encoding="utf-8")
    done = grade_command("batch", folder, "-e", "3.1", "-o", root / "out", "-j", 2,
                         "--student-pattern", "^(?P<student>[^_]+)_", cwd=root)
    assert done.returncode == 1, done.stderr  # the file no student owns is a hand-in left out (issue 47): exit 1
    return root / "out", done


def test_the_warning_for_a_file_no_student_owns_holds_no_command(batch) -> None:
    _, done = batch
    assert "grader broke" in done.stderr and "x.py" in done.stderr
    assert log_commands(done.stdout + done.stderr) == []


def test_names_a_spreadsheet_would_split_are_inert_in_every_csv(batch) -> None:
    """grades.csv, `grade export --format csv` and `--format mistakes`, under `,`, `;` and tab."""
    out, _ = batch
    grades = (out / "grades.csv").read_text(encoding="utf-8")
    exported = grade_command("export", out, "--format", "csv", cwd=out)
    mistakes = grade_command("export", out, "--format", "mistakes", cwd=out)
    assert exported.returncode == 0 and mistakes.returncode == 0, exported.stderr + mistakes.stderr
    assert exported.stdout == grades
    rows = assert_inert_csv(grades)
    status = rows[0].index("status")
    assert sorted(row[0] for row in rows[1:] if row[status] != "left out") == sorted(
        ["zz;'=1+1;", "tab\t'=2+2", "sp, '-3+3", "q;\"'=4+4", "'@sum(A1)"])
    # the file no student owns has a row of its own (issue 47), its name as inert as the others
    assert [row[0].rpartition("/")[2] for row in rows[1:] if row[status] == "left out"] == [
        "##[error]grader broke ##[add-mask]x.py"]
    listed = assert_inert_csv(mistakes.stdout)
    assert any("zz;'=1+1;" in row[-1] for row in listed[1:]), listed


def test_csv_text_leaves_no_formula_under_any_separator() -> None:
    """The one CSV writer on cells a name could hold: a formula after each separator, after the spaces
    and quotes an import trims, after a line break; text that only holds an `=` stays as it is."""
    from grader.outputs.safe_text import csv_text  # imported here: the tests above also run against older code

    cells = ["=1+1", " =1", "a;=1", "a; =1", "a,\t+1", "x\n-1", 'q;"@A1', "\t=1", "ann =1", "张三;=1"]
    (row,) = assert_inert_csv(csv_text([cells]))
    assert row == ["'=1+1", "' =1", "a;'=1", "a; '=1", "a,\t'+1", "x\n'-1", "q;\"'@A1", "'\t'=1", "ann =1",
                   "张三;'=1"]
