"""Loading a submission into cells: what the sandbox will run, and with which line numbers.

Students hand in notebooks full of IPython syntax (!pip, %matplotlib, %%time, obj?) that plain
Python cannot run; `neutralise` must turn each into something harmless without moving any line, or
every traceback and message would point at the wrong line of the student's file. Files that cannot
be graded must fail with their own catalogue key, not a stack trace. All of this is pure text
handling in the judge, so these tests need no sandbox.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_raw_cell

from grader.messages import catalogue
from grader.load.submission import Cell, LoadError, load, load_many, neutralise


def cell(source: str) -> Cell:
    return Cell(number=3, source=source, filename="<cell 3>", first_line=1)


def write_notebook(path: Path, *cells) -> Path:
    path.write_text(nbformat.writes(new_notebook(cells=list(cells))), encoding="utf-8")
    return path


# -- .py files ---------------------------------------------------------------------------------------
SCRIPT = (
    '"""A learner\'s script."""\n'          # 1
    "import torch  # 注释\n"                # 2
    "x = 1; y = 2\n"                        # 3
    "\n"                                    # 4
    "@staticmethod\n"                       # 5
    "def f(a,\n"                            # 6
    "      b):\n"                           # 7
    "    return a\n"                        # 8
    "# a note between statements\n"        # 9
    "class Head:\n"                         # 10
    "    pass\n"                            # 11
    "for step in range(3):\n"               # 12
    "    x += step\n"                       # 13
    "else:\n"                               # 14
    "    pass\n"                            # 15
    'text = """\n'                          # 16
    "not code\n"                            # 17
    '"""\n'                                 # 18
    'if __name__ == "__main__":\n'          # 19
    "    print(x)\n"                        # 20
)


def test_module_without_markers_runs_statement_by_statement(tmp_path: Path) -> None:
    """A def, class, for or if block is one statement with its decorators and clauses; a line of several
    simple statements is one; comments and blank lines go with the statement before them."""
    path = tmp_path / "answer.py"
    path.write_text(SCRIPT, encoding="utf-8")
    sub = load(path)
    assert sub.kind == "py"
    assert [(c.number, c.first_line, c.filename) for c in sub.cells] == [
        (1, 1, "answer.py"), (2, 2, "answer.py"), (3, 3, "answer.py"), (4, 5, "answer.py"), (5, 10, "answer.py"),
        (6, 12, "answer.py"), (7, 16, "answer.py"), (8, 19, "answer.py")]
    assert "".join(c.source for c in sub.cells) == SCRIPT
    assert sub.cells[3].source == "@staticmethod\ndef f(a,\n      b):\n    return a\n# a note between statements\n"


def test_a_module_that_does_not_parse_is_split_by_its_layout(tmp_path: Path) -> None:
    """One broken statement (a missing colon) fails alone: the statements around it are their own cells,
    split where the parsed file would have been."""
    path = tmp_path / "answer.py"
    path.write_text(SCRIPT.replace("class Head:", "class Head"), encoding="utf-8")
    assert [c.first_line for c in load(path).cells] == [1, 2, 3, 5, 10, 12, 16, 19]


BROKEN_NOTEBOOK_STYLE = """\
import torch
vocab = {"(": 0, "#": 1, '[': 2}  # a quote in a comment: don't
doc = \"\"\"Notes (unfinished
x = 1 is not code here
\"\"\"
total = 1 + \\
2
pairs = [(1, 2),
(3, 4)]
escaped = "a \\" ( b"
def broken(:
    pass
print(total)
"""


def test_a_broken_module_is_split_where_its_brackets_strings_and_backslashes_close(tmp_path: Path) -> None:
    """The layout split reads a bracket or `#` in a string, a quote in a comment, a string of three quotes
    over lines, an escaped quote and a backslash at a line's end as Python does, one line at a time."""
    path = tmp_path / "answer.py"
    path.write_text(BROKEN_NOTEBOOK_STYLE, encoding="utf-8")
    assert [c.first_line for c in load(path).cells] == [1, 2, 3, 6, 8, 10, 11]  # `broken(` never closes


@pytest.mark.parametrize("text, expected", [
    ("# %%\na = 1\n# %%\nb = 2\nc = 3\n", [(1, "# %%\na = 1\n", 1), (2, "# %%\nb = 2\nc = 3\n", 3)]),
    # a preamble before the first marker is its own cell
    ("import torch\n# %% setup\na = 1\n\n# %%\nb = 2\n",
     [(1, "import torch\n", 1), (2, "# %% setup\na = 1\n\n", 2), (3, "# %%\nb = 2\n", 5)]),
])
def test_module_splits_on_percent_markers(tmp_path: Path, text: str, expected: list) -> None:
    path = tmp_path / "answer.py"
    path.write_text(text, encoding="utf-8")
    assert [(c.number, c.source, c.first_line) for c in load(path).cells] == expected


def test_module_source_is_not_neutralised(tmp_path: Path) -> None:
    path = tmp_path / "answer.py"
    path.write_text("x = 10 % 3\n", encoding="utf-8")
    assert load(path).cells[0].source == "x = 10 % 3\n"


@pytest.mark.parametrize("raw", [b"x = 1\n", "\ufeffs = '\u6ce8\u610f'\n".encode("utf-8")], ids=["ascii", "bom"])
def test_sha256_is_over_the_file_bytes(tmp_path: Path, raw: bytes) -> None:
    path = tmp_path / "answer.py"
    path.write_bytes(raw)
    sub = load(path)
    assert sub.sha256 == hashlib.sha256(raw).hexdigest()
    assert not sub.cells[0].source.startswith("\ufeff")


# -- notebooks -----------------------------------------------------------------------------------------
def test_notebook_keeps_code_cells_numbered_over_all_cells(tmp_path: Path) -> None:
    path = write_notebook(
        tmp_path / "answer.ipynb",
        new_markdown_cell("# Title"),
        new_code_cell("a = 1"),
        new_raw_cell("raw text"),
        new_markdown_cell("more"),
        new_code_cell("b = 2\n%matplotlib inline"),
    )
    sub = load(path)
    assert sub.kind == "ipynb"
    assert [(c.number, c.filename, c.source) for c in sub.cells] == [
        (2, "<cell 2>", "a = 1\n"),
        (5, "<cell 5>", "b = 2\npass\n"),
    ]
    assert sub.cells[1].skipped_magics == ("%matplotlib inline",)
    assert sub.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()


# -- neutralise: line magics -------------------------------------------------------------------------
@pytest.mark.parametrize("line, replaced, recorded", [
    ("!pip install x", "pass", "!pip install x"),
    ("%matplotlib inline", "pass", "%matplotlib inline"),
    ("    !pip install x", "    pass", "!pip install x"),
    ("\t%time f()", "\tpass", "%time f()"),
    ("x = !ls", "x = []", "!ls"),
    ("  files = %sx ls", "  files = []", "%sx ls"),
    ("obj?", "pass", "obj?"),
    ("torch.nn.Linear??", "pass", "torch.nn.Linear??"),
    ("    obj?", "    pass", "obj?"),
])
def test_line_magic_becomes_python_on_the_same_line(line: str, replaced: str, recorded: str) -> None:
    out = neutralise(cell(f"a = 1\n{line}\nb = 2\n"))
    assert out.source == f"a = 1\n{replaced}\nb = 2\n"
    assert out.skipped_magics == (recorded,)
    assert (out.number, out.filename, out.first_line, out.writefile) == (3, "<cell 3>", 1, None)


def test_magic_inside_a_block_keeps_the_block_valid() -> None:
    out = neutralise(cell("if True:\n    !pip install x\n    %matplotlib inline\n"))
    assert out.source == "if True:\n    pass\n    pass\n"
    compile(out.source, "<cell>", "exec")
    assert out.skipped_magics == ("!pip install x", "%matplotlib inline")


@pytest.mark.parametrize("source", [
    "x = 10 % 3\n",
    "y = a != b\n",
    "print('%d' % 3)\n",
    "z = {'k': 1}  # what?\n",
])
def test_ordinary_python_is_untouched(source: str) -> None:
    out = neutralise(cell(source))
    assert (out.source, out.skipped_magics) == (source, ())


@pytest.mark.parametrize("source", [
    's = ("%d"\n     % 3)\n',          # modulo operator starting a continuation line
    "ok = (a\n      != b)\n",          # != starting a continuation line
    'doc = """\n%d items\n!done\n"""\n',  # lines of a triple-quoted string
], ids=["modulo-continuation", "not-equal-continuation", "string-lines"])
def test_lines_inside_an_open_statement_are_not_magics(source: str) -> None:
    """IPython only treats ! and % as escapes at the start of a statement; these cells run unchanged there."""
    out = neutralise(cell(source))
    assert (out.source, out.skipped_magics) == (source, ())


def test_prefix_help_is_skipped() -> None:
    out = neutralise(cell("a = 1\n?obj\n"))
    assert out.source == "a = 1\npass\n"
    assert out.skipped_magics == ("?obj",)


# -- neutralise: cell magics -------------------------------------------------------------------------
@pytest.mark.parametrize("magic", ["%%time", "%%timeit -n 1 -r 1", "%%capture out", "%%prun"])
def test_body_magic_keeps_the_body_on_its_lines(magic: str) -> None:
    out = neutralise(cell(f"{magic}\nx = 1\n!ls\ny = x + 1\n"))
    assert out.source == "\nx = 1\npass\ny = x + 1\n"
    assert out.skipped_magics == (magic, "!ls")
    assert out.writefile is None


@pytest.mark.parametrize("magic", ["%%bash", "%%html", "%%javascript", "%%script python", "%%sh"])
def test_other_cell_magic_empties_the_cell(magic: str) -> None:
    out = neutralise(cell(f"{magic}\necho hi\nrm -rf /\n"))
    assert (out.source, out.skipped_magics, out.writefile) == ("", (magic,), None)


@pytest.mark.parametrize("first, expected", [
    ("%%writefile helper.py", ("helper.py", "import os\nx = 1\n", False)),
    ("%%writefile -a helper.py", ("helper.py", "import os\nx = 1\n", True)),
    ("%%writefile --append helper.py", ("helper.py", "import os\nx = 1\n", True)),
])
def test_writefile_becomes_a_file_to_write(first: str, expected: tuple) -> None:
    out = neutralise(cell(f"{first}\nimport os\nx = 1"))
    assert out.source == ""
    assert out.writefile == expected
    assert out.skipped_magics == (first,)


def test_neutralise_preserves_line_numbers() -> None:
    source = "%%time\nimport torch\n!pip install x\ny = !ls\nobj?\n\n    \nz = 1\n"
    out = neutralise(cell(source))
    before, after = source.splitlines(), out.source.splitlines()
    assert len(after) == len(before)
    assert after[1] == "import torch" and after[7] == "z = 1"
    compile(out.source, "<cell>", "exec")


# -- files that cannot be graded -----------------------------------------------------------------------
def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nope.py"
    with pytest.raises(LoadError) as err:
        load(path)
    assert err.value.key == "cli.missing_file"
    assert err.value.args_["path"] == str(path)


@pytest.mark.parametrize("name", ["answer.txt", "answer.pyc", "answer", "answer.ipynb.bak"])
def test_wrong_suffix(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_text("x = 1\n", encoding="utf-8")
    with pytest.raises(LoadError) as err:
        load(path)
    assert err.value.key == "cli.bad_kind"


NB_HEAD = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}}


@pytest.mark.parametrize("text", [
    "{not json",
    "[]",
    "{}",
    json.dumps({**NB_HEAD, "cells": "not a list"}),
    json.dumps({"nbformat": 4, "nbformat_minor": 5, "cells": []}),  # no metadata
    json.dumps({**NB_HEAD, "cells": [{"cell_type": "banana", "id": "a", "source": "", "metadata": {}}]}),
], ids=["not-json", "list", "empty-object", "cells-not-list", "no-metadata", "bad-cell-type"])
def test_bad_notebook(tmp_path: Path, text: str) -> None:
    path = tmp_path / "answer.ipynb"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(LoadError) as err:
        load(path)
    assert err.value.key == "cli.bad_notebook"
    assert err.value.args_["error"]


@pytest.mark.parametrize("name", ["answer.py", "answer.ipynb"])
def test_undecodable_bytes(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_bytes(b"x = '\xff\xfe\xfa'\n")
    with pytest.raises(LoadError) as err:
        load(path)
    assert err.value.key == "cli.unreadable"


@pytest.mark.parametrize("name", ["answer.py", "class-folder"])
def test_a_folder_is_named_a_folder_and_pointed_to_grade_batch(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.mkdir()
    with pytest.raises(LoadError) as err:
        load(path)
    assert err.value.key == "cli.is_folder"
    for lang in catalogue.LANGS:
        said = catalogue.text(err.value.key, lang, **err.value.args_)
        assert str(path) in said and "grade batch" in said


@pytest.mark.parametrize("text", ["", "\n  \n"], ids=["0-bytes", "blank"])
def test_an_empty_notebook_is_said_to_be_empty(tmp_path: Path, text: str) -> None:
    path = tmp_path / "answer.ipynb"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(LoadError) as err:
        load(path)
    assert err.value.key == "cli.empty_notebook"
    said = catalogue.text(err.value.key, "en", **err.value.args_)
    assert "empty" in said and "saved" in said and "JSON" not in said


def test_an_empty_submission_says_so_and_what_to_hand_in() -> None:
    with pytest.raises(LoadError) as err:
        load_many([])
    assert err.value.key == "cli.empty_submission"
    for lang in catalogue.LANGS:
        said = catalogue.text(err.value.key, lang, **err.value.args_)
        assert ".ipynb" in said and ".py" in said and "none of" not in said


def _saved_by_an_editor(**header: object) -> str:
    """A notebook as some editors save it: ordinary version-4 cells under a header nbformat refuses."""
    cells = [{"cell_type": "markdown", "metadata": {}, "source": ["# 练习 3.1\n"]},
             {"cell_type": "code", "metadata": {}, "execution_count": 1, "outputs": [],
              "source": ["import torch\n", "x = torch.ones(2)"]},
             {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": "y = x * 2\n"}]
    return json.dumps({"metadata": {"language_info": {"name": "python"}}, **header, "cells": cells})


@pytest.mark.parametrize(("header", "said"), [
    ({"nbformat": 5, "nbformat_minor": 0}, '"nbformat": 5'),
    ({"nbformat": "4", "nbformat_minor": 2}, '"nbformat": "4"'),
    ({"nbformat": 4}, '"nbformat_minor": null'),
], ids=["version-5", "version-as-text", "no-minor"])
def test_a_notebook_with_an_odd_header_is_read_for_its_cells(tmp_path: Path, header: dict, said: str) -> None:
    path = tmp_path / "answer.ipynb"
    path.write_text(_saved_by_an_editor(**header), encoding="utf-8")
    submission = load(path)
    assert [(c.number, c.source) for c in submission.cells] == [(2, "import torch\nx = torch.ones(2)\n"),
                                                               (3, "y = x * 2\n")]
    assert submission.header == said


def test_what_cannot_be_read_is_still_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "answer.ipynb"
    path.write_text(json.dumps({"nbformat": 5, "cells": [{"cell_type": "code", "source": 42}]}), encoding="utf-8")
    with pytest.raises(LoadError) as err:
        load(path)
    assert err.value.key == "cli.bad_notebook" and "5" in err.value.args_["error"]
