"""What a student reads when an answer is missing or wrong: said once, where it applies, in both languages.

Each test grades a small submission (or renders a message) and reads the sentence a student gets.
"""
from __future__ import annotations

import nbformat
import pytest

from conftest import Grade, check
from grader import catalogue


def _notebook(*cells: str) -> str:
    return nbformat.writes(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells]))


@pytest.mark.parametrize("suffix", [".py", ".ipynb"])
def test_the_markdown_hint_is_for_notebooks_only(grade_file: Grade, suffix: str) -> None:
    source = "x = 1\n" if suffix == ".py" else _notebook("x = 1")
    run = grade_file(source, "3.2,3.3", suffix=suffix)
    for exercise, check_id in (("3.2", "answer"), ("3.3", "parameters")):
        found = check(run, exercise, check_id)
        assert found.message_key == "check.not_found"
        for lang, hint in (("en", "markdown cell"), ("zh", "Markdown")):
            assert (hint in found.messages[lang]) == (suffix == ".ipynb"), found.messages[lang]
