"""Hostile kernel: a notebook that forges what `check()` in its own kernel grades.

The in-kernel check grades the kernel's input history and hands its result back into the kernel, and
the notebook's code controls both: here a cell rewrites the history to the reference's source (which
the unsandboxed kernel can read) and defines nothing. No kernel-side defence can stop that, so the
property is about what is shown and what a course runs (docs/security.md, "The in-kernel check"):
every form of the in-kernel result says, in the language asked, that it is a self-check and not a
grade, and `grade` on the saved notebook, the grade a course relies on, gives nothing for code the
notebook does not hold.
"""
from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from helpers import grade, no_traceback, notebook
from integrations.test_jupyter import executed, html_of

# The kernel recalls this cell (In [1]) as the reference's chapter 3; the kernel itself defines nothing.
FORGE_HISTORY = """\
import importlib.util, os
_found = importlib.util.find_spec("grader.solutions")
with open(os.path.join(_found.submodule_search_locations[0], "chapter3.py"), encoding="utf-8") as _f:
    get_ipython().history_manager.input_hist_raw[1] = _f.read()
del _found, _f
"""
BANNER = {"en": "Self-check in your kernel: not a grade", "zh": "内核中的自查：不是成绩"}


def plain_of(cell: nbformat.NotebookNode) -> str:
    """What a front end without HTML shows of the cell's result."""
    shown = [out["data"]["text/plain"] for out in cell.outputs if "text/html" in out.get("data", {})]
    assert len(shown) == 1, cell.outputs
    return str(shown[0])


def test_a_forged_history_is_shown_as_a_self_check_and_the_saved_notebook_earns_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cells = (FORGE_HISTORY,
             "from grader import check\nfrom grader.results import to_json\nforged = check('ch03', lang='en')\n"
             "print('forged', forged.score, 'of', forged.max_score, 'tagged', to_json(forged).get('self_check'))",
             "forged", "%grade ch03 --lang zh")
    saved = tmp_path / "executed.ipynb"
    saved.write_text(notebook(*cells), encoding="utf-8")  # saved before it ran, as Jupyter Server names it
    monkeypatch.setenv("JPY_SESSION_NAME", str(saved))
    nb = executed(tmp_path, *cells)
    printed = "".join(out.get("text", "") for out in nb.cells[1].outputs)
    assert "tagged True" in printed, nb.cells[1].outputs  # the JSON form carries the tag too

    # what a course runs: `grade` on the saved notebook, outside the student's process
    graded = grade("ch03", saved.name, "--json", "-", "--lang", "en", cwd=tmp_path)
    no_traceback(graded)
    assert graded.code == 1, graded.stderr
    result = graded.json()
    assert result["score"] == 0, [(c["id"], c["status"]) for e in result["exercises"] for c in e["checks"] if c["score"]]
    assert result["self_check"] is False

    command = f"grade {','.join(e['id'] for e in result['exercises'])} {saved.name}"
    for cell, lang in ((nb.cells[2], "en"), (nb.cells[3], "zh")):
        assert BANNER[lang] in html_of(cell) and command in html_of(cell), (lang, printed)
        assert BANNER[lang] in plain_of(cell) and command in plain_of(cell), (lang, printed)
