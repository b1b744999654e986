"""A .py file as learners hand it in: no `# %%` markers, a stale line that raises, a training loop at top
level, `mha` rebound from the 3.2 answer to the 3.3 one, an `if __name__ == "__main__":` block with
argparse. It runs statement by statement, like notebook cells: every answer it defines is graded.
"""
from __future__ import annotations

from conftest import CORPUS, Grade, statuses
from grader.render import terminal
from helpers import line_of

BOOK = (CORPUS / "book_style.py").read_text(encoding="utf-8")
# The book's code without its cell markers, a line left over from an earlier version before the 3.2
# answer, a training loop after it, and the script's entry point at the end.
SCRIPT = (
    BOOK.replace("# %% Exercise 3.2\n", "print(old_result)  # from an earlier version\n")
        .replace("# %% Exercise 3.3\n", "total = 0\nfor step in range(10**12):\n    total += step\n")
        .replace("# %%", "#")
    + '\nif __name__ == "__main__":\n    import argparse\n\n'
      '    parser = argparse.ArgumentParser()\n    parser.add_argument("--epochs", type=int, default=3)\n'
      '    print("MAIN", parser.parse_args().epochs, total > 0)\n'
)


def test_a_script_is_graded_statement_by_statement(grade_file: Grade) -> None:
    assert "# %%" not in SCRIPT
    run = grade_file(SCRIPT, "3.1,3.2,3.3,mask", timeout=20)
    for exercise in ("3.1", "3.2", "3.3", "mask"):
        assert set(statuses(run, exercise).values()) == {"passed"}, (exercise, statuses(run, exercise))
    problems = {r.first_line: r for r in run.cells if r.status != "ok"}
    stale = line_of(SCRIPT, "print(old_result)  # from an earlier version")
    loop = line_of(SCRIPT, "for step in range(10**12):")
    assert sorted(problems) == [stale, loop]
    assert problems[stale].status == "raised" and problems[stale].error["type"] == "NameError"
    assert problems[loop].status == "interrupted" and problems[loop].error["seconds"] == 6.0  # 30% of 20 s
    assert "MAIN 3 True" in run.output_tail  # argparse saw no options; the loop's progress was kept
    summary = terminal.render(run, None, color=False)
    assert f"submission.py, line {stale}: NameError: name 'old_result' is not defined" in summary
    assert f"submission.py, line {loop}: interrupted after 6 s" in summary
