"""`%grade` and `check()` in a real Jupyter kernel (nbclient and jupyter_client with ipykernel).

Contract: a notebook that loads the extension and runs `%grade` gets the result inline, as HTML in the
executed notebook: full marks for the book's code, the named masking bug with its picture and the line
that makes it, a cell that raised named by its `In [N]`. What is graded is what the kernel ran, in the
order it ran, re-run from scratch in the sandbox; the grader's own cells are not part of it. Stop
(a kernel interrupt) ends the grade and leaves no process of it behind.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest
from jupyter_client.manager import start_new_kernel
from nbclient import NotebookClient

from conftest import ROOT, SOLUTION, Grade, mutant, mutations
from grader.load.submission import load
from grader.render import terminal
from helpers import notebook
from processes import alive, descendants

BOOK = SOLUTION.read_text(encoding="utf-8")
KERNEL_TIMEOUT = 180
RESUMED = "LC_GRADER_TEST_RESUMED"  # test_stop_ends_the_grade_and_leaves_no_process


def executed(tmp_path: Path, *sources: str) -> nbformat.NotebookNode:
    """A notebook of these code cells, executed top to bottom in a fresh kernel in tmp_path."""
    nb = nbformat.reads(notebook(*sources), as_version=4)
    NotebookClient(nb, timeout=KERNEL_TIMEOUT, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    nbformat.write(nb, tmp_path / "executed.ipynb")  # the saved notebook, as a student's would be
    return nb


def html_of(cell: nbformat.NotebookNode) -> str:
    shown = [out["data"]["text/html"] for out in cell.outputs if "text/html" in out.get("data", {})]
    assert len(shown) == 1, cell.outputs
    return shown[0]


def stderr_of(cell: nbformat.NotebookNode) -> str:
    return "".join(out.get("text", "") for out in cell.outputs if out.get("name") == "stderr")


def test_full_marks_inline(tmp_path: Path) -> None:
    nb = executed(tmp_path, BOOK, "%load_ext grader", "%grade 3.1 --lang en")
    shown = html_of(nb.cells[-1])
    assert 'class="grader-inline"' in shown and "<script" not in shown
    assert "Score: 10 / 10" in shown
    assert shown.count('<details class="check passed"') == 3 and "check failed" not in shown
    assert " open>" not in shown  # passed checks are folded
    assert "<ol class=\"cell-problems\">" not in shown  # neither %load_ext nor %grade ran in the sandbox
    plain = nb.cells[-1].outputs[0]["data"]["text/plain"]
    assert "10/10" in plain  # what a front end without HTML shows


def test_a_masking_bug_is_named_with_its_picture_and_line(tmp_path: Path) -> None:
    buggy = mutant(mutations.MASK_BUGS, "softmax_wrong_dim")
    nb = executed(tmp_path, "import grader.integrations.jupyter", buggy, "%grade mask --lang en")
    shown = html_of(nb.cells[-1])
    assert '<details class="check failed" id="' in shown and " open>" in shown
    assert "The softmax runs over the wrong dim" in shown
    assert shown.count('class="visibility-matrix"') == 1  # drawn once, the other check points to it
    assert "The same who-sees-whom matrix is drawn under" in shown
    # the excerpt marks the softmax line of the class, in the kernel's numbering
    line = 1 + buggy.splitlines().index(next(l for l in buggy.splitlines() if "dim=-2" in l))
    assert f"Your CausalAttention: In [2], line {line}" in shown
    assert f'<span class="marked"><span class="ln">→ {line}</span>' in shown


def test_a_cell_that_raised_is_named_by_its_execution_count(tmp_path: Path) -> None:
    answer = "sa_v1 = SelfAttention_v1(3, 2)\nraise RuntimeError('not finished')\n"
    nb = executed(tmp_path, BOOK.split("def transfer_weights")[0], answer, "%load_ext grader", "%grade 3.1 --lang en")
    shown = html_of(nb.cells[-1])
    assert "In [2]" in shown and "RuntimeError" in shown and "not finished" in shown


def test_what_the_kernel_ran_is_graded_in_the_order_it_ran(tmp_path: Path) -> None:
    """A broken transfer, then its fix in a later cell: the kernel holds the fix, so does the grade,
    whether or not the notebook was saved."""
    broken = mutant(mutations.SA_BUGS, "missing_transpose")
    fixed = BOOK[BOOK.index("def transfer_weights"):].split("\n\n\ndef ")[0]
    nb = executed(tmp_path, broken, "%load_ext grader", fixed, "%grade 3.1 --lang en")
    assert "Score: 10 / 10" in html_of(nb.cells[-1])


def test_saved_grades_the_file_on_disk(tmp_path: Path) -> None:
    saved = tmp_path / "saved.ipynb"
    saved.write_text(notebook(mutant(mutations.SA_BUGS, "missing_transpose")), encoding="utf-8")
    nb = executed(tmp_path, BOOK, "%load_ext grader",
                  f"import os; os.environ['JPY_SESSION_NAME'] = {str(saved)!r}",
                  "%grade 3.1 --saved --lang en")
    shown = html_of(nb.cells[-1])
    assert "saved.ipynb" in shown and "Score: 10 / 10" not in shown
    assert "transpose" in shown  # the saved file's bug, not the kernel's right answer


def test_saved_without_a_known_notebook_says_how(tmp_path: Path) -> None:
    nb = executed(tmp_path, BOOK, "%load_ext grader", "%grade 3.1 --saved --lang en")
    assert not any("text/html" in out.get("data", {}) for out in nb.cells[-1].outputs)
    message = stderr_of(nb.cells[-1])
    assert "cannot tell which notebook file this kernel runs" in message and "%grade EXERCISE path" in message
    assert "Traceback" not in message


def test_bad_arguments_get_one_message(tmp_path: Path) -> None:
    nb = executed(tmp_path, "%load_ext grader", "%grade 9.9 --lang en", "%grade")
    assert "unknown exercise" in stderr_of(nb.cells[1]).lower() or "9.9" in stderr_of(nb.cells[1])
    assert "Missing argument" in stderr_of(nb.cells[2])
    assert all(out.get("output_type") != "error" for cell in nb.cells for out in cell.outputs)


def test_the_function_form_returns_the_result(tmp_path: Path) -> None:
    nb = executed(tmp_path, BOOK, "from grader import check\nresult = check('3.1', lang='en')\n"
                  "assert result.full_marks and result.score == 10\nprint('graded', result.score)",
                  "check('3.2', lang='zh')")
    assert "graded 10" in "".join(out.get("text", "") for out in nb.cells[1].outputs)
    shown = html_of(nb.cells[2])  # a cell's last expression: Jupyter shows the result inline
    assert 'lang="zh-CN"' in shown and "得分：6 / 6" in shown


def test_stop_ends_the_grade_and_leaves_no_process(tmp_path: Path) -> None:
    kernel, client = start_new_kernel(kernel_name="python3", cwd=str(tmp_path))
    try:
        # Slow only where it must be: in the sandbox's re-run of the first grade, until Stop ends it. The kernel
        # itself runs the cell at once (it has get_ipython), and so does the grade after Stop: its new judge
        # hands the sandbox RESUMED (LC_* variables reach it; were that to change, it would sleep out 30 s).
        slow = (f"import os, time\nif 'get_ipython' not in globals() and not os.environ.get({RESUMED!r}):\n"
                "    time.sleep(30)\n")
        client.execute_interactive(BOOK + "\n" + slow, timeout=KERNEL_TIMEOUT)  # what the sandbox re-runs
        kernel_pid = kernel.provisioner.process.pid  # type: ignore[union-attr]
        msg_id = client.execute("%load_ext grader\n%grade 3.1 --timeout 200")
        deadline = time.monotonic() + 60
        while len(descendants(kernel_pid)) < 3 and time.monotonic() < deadline:  # judge, zygote, sandbox
            time.sleep(0.1)
        grading = descendants(kernel_pid)
        assert len(grading) >= 3, grading
        time.sleep(1)
        kernel.interrupt_kernel()
        reply = client.get_shell_msg(timeout=30)
        while reply["parent_header"].get("msg_id") != msg_id:
            reply = client.get_shell_msg(timeout=30)
        assert reply["content"]["status"] == "error" and reply["content"]["ename"] == "KeyboardInterrupt"
        deadline = time.monotonic() + 10
        while [pid for pid in grading if alive(pid)] and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not [pid for pid in grading if alive(pid)], "a process of the stopped grade is still running"
        assert not descendants(kernel_pid)
        # the kernel is still usable, and a new grade starts afresh
        client.execute_interactive(f"import os\nos.environ[{RESUMED!r}] = '1'", timeout=KERNEL_TIMEOUT)
        again = client.execute_interactive("%grade 3.1 --lang en --timeout 200", timeout=KERNEL_TIMEOUT)
        assert again["content"]["status"] == "ok"
    finally:
        client.stop_channels()
        kernel.shutdown_kernel(now=True)


def test_grade_works_without_ipython(tmp_path: Path) -> None:
    """IPython is an optional extra: the command line never imports it, and check() says what it needs."""
    script = (
        "import sys\n"
        "sys.modules['IPython'] = None  # as if it were not installed\n"
        "from grader import check\n"
        "try:\n"
        "    check('3.1')\n"
        "except Exception as exc:\n"
        "    print(type(exc).__name__, exc)\n"
        "sys.argv = ['grade', '3.1', sys.argv[1], '--lang', 'en']\n"
        "from grader.cli import main\n"
        "main()\n"
    )
    proc = subprocess.run([sys.executable, "-c", script, str(SOLUTION)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=180, env={**os.environ, "LANG": "en_US.UTF-8"})
    assert proc.returncode == 0, proc.stderr
    assert "GradeError check() grades the code a Jupyter kernel ran" in proc.stdout
    assert "10/10" in proc.stdout


def test_the_graders_own_calls_are_not_run_in_the_sandbox(tmp_path: Path) -> None:
    """A saved notebook that checked itself: its `check(...)` lines are the grader's, left out as `%grade`
    is; a notebook that does not import the grader keeps a `check` of its own."""
    path = tmp_path / "checked.ipynb"
    path.write_text(notebook("from grader import check", "x = 1\nassert check(\n    '3.1',\n).full_marks\ny = 2",
                             "r = check('ch03')"), encoding="utf-8")
    cells = load(path).cells
    assert cells[1].source.splitlines() == ["x = 1", "pass", "", "", "y = 2"]
    assert cells[1].skipped_magics == ("assert check(",) and cells[2].source.strip() == "pass"
    own = tmp_path / "own.ipynb"
    own.write_text(notebook("def check(x):\n    return x\ncheck(1)"), encoding="utf-8")
    assert "check(1)" in load(own).cells[0].source


def test_a_terminal_ipython_shows_the_terminal_summary(grade_file: Grade) -> None:
    from IPython.lib.pretty import pretty

    run = grade_file(SOLUTION, "3.1")
    assert pretty(run) == terminal.render(run, None, color=False)
    assert "10/10" in pretty(run)


@pytest.mark.parametrize("template", ["student_template/chapter3.ipynb", "examples/course-repo/chapter3/chapter3.ipynb"])
def test_the_student_template_ends_with_a_grade_cell(template: str) -> None:
    nb = nbformat.read(ROOT / template, as_version=4)
    code = [cell.source for cell in nb.cells if cell.cell_type == "code"]
    assert code[-1].splitlines() == ["%load_ext grader", "%grade ch03"]
