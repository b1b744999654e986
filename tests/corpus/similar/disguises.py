"""Mechanical disguises of a copy: what a student who copied can do to a classmate's code without
understanding it, each one alone, and all of them at once (tests/classes/test_similar.py, benchmarks/similar.py).

Every disguise takes the Python source of a submission (a notebook's code cells joined) and keeps what it
does (a copy with all of them still gets full marks); `write` hands the result in as a module or as a
notebook of one cell per top-level statement. The benchmark uses it outside pytest, so it needs nothing
of the test harness.
"""
from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path
from typing import Callable

import nbformat

from grader.load.submission import statement_starts

HONEST = Path(__file__).resolve().parent / "honest"
ROOT = Path(__file__).resolve().parents[3]
# What a copy that keeps its marks does not rename: the names the grader asks for, the method torch calls,
# and the projections' names, by which the grader finds a fused one (exercises/_attention.py).
KEPT = {node.name for node in ast.parse((ROOT / "student_template" / "chapter3.py").read_text(encoding="utf-8")).body
        if isinstance(node, (ast.FunctionDef, ast.ClassDef))} | {"forward", "qkv", "out_proj"}


def source(path: Path) -> str:
    """The code of a submission: a module's text, or a notebook's code cells one after the other."""
    if path.suffix == ".py":
        return path.read_text(encoding="utf-8")
    cells = nbformat.reads(path.read_text(encoding="utf-8"), as_version=4).cells
    return "\n\n".join(cell.source for cell in cells if cell.cell_type == "code") + "\n"


def rename(code: str) -> str:
    """Every name the code binds (variables, parameters, its functions and classes, what it sets on
    `self`) but those the grader asks for replaced by a meaningless one wherever it is used, as an
    editor's rename does: comments, strings and the library's own names (`x.data`, `device=`) stay as
    they were, and so do the names a string holds (`setattr(m, "W_query", ...)`, an f-string's)."""
    tree = ast.parse(code)
    names: set[str] = set()
    attributes: set[str] = set()
    in_strings: set[str] = set()  # what an f-string or a string-named attribute uses: this rename misses them
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            in_strings.update(name.id for name in ast.walk(node) if isinstance(name, ast.Name))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.isidentifier():
            in_strings.add(node.value)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
            attributes.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) \
                and isinstance(node.value, ast.Name) and node.value.id == "self":
            attributes.add(node.attr)
    defined = {node.name for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    library_keywords = {(keyword.lineno, keyword.col_offset) for node in ast.walk(tree) if isinstance(node, ast.Call)
                        and getattr(node.func, "id", getattr(node.func, "attr", None)) not in defined
                        for keyword in node.keywords if keyword.arg}
    fresh = {name: f"q{n}_" for n, name in enumerate(sorted((names | attributes) - KEPT - in_strings))
             if not name.startswith("__")}
    lines = code.splitlines(keepends=True)
    renamed, before = [], ""
    for tok in tokenize.generate_tokens(io.StringIO(code).readline):
        if tok.type == tokenize.NAME and tok.string in fresh and tok.start not in library_keywords \
                and tok.string in (attributes if before == "." else names):
            renamed.append(tok)
        if tok.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT):
            before = tok.string
    for tok in reversed(renamed):  # right to left, so that each edit leaves the columns of the next
        (row, start), (_, end) = tok.start, tok.end
        lines[row - 1] = lines[row - 1][:start] + fresh[tok.string] + lines[row - 1][end:]
    return "".join(lines)


DEAD = ("pass", "...", "_ = None", "if False: pass")


def dead_statements(code: str) -> str:
    """A statement that does nothing after every statement, at every depth (`pass`, `...`, an unused
    `_ = None`, `if False: pass` in turn); comments and layout stay as they were."""
    lines = code.splitlines()
    ends = {(node.end_lineno, node.col_offset) for node in ast.walk(ast.parse(code)) if isinstance(node, ast.stmt)}
    for n, (end, column) in enumerate(sorted(ends, key=lambda at: (-at[0], at[1]))):  # the outer one last
        lines.insert(end, " " * column + DEAD[n % len(DEAD)])
    return "\n".join(lines) + "\n"


def reprint(code: str) -> str:
    """The code as `ast.unparse` prints it: no comments, its own layout, quotes and parentheses."""
    return ast.unparse(ast.parse(code)) + "\n"


def reverse(code: str) -> str:
    """The definitions in reverse order, between the imports and the checks that run them."""
    parts: dict[str, list[str]] = {"imports": [], "definitions": [], "checks": []}
    for part in _top_level(code):
        kind = type(next(iter(ast.parse(part).body), None))
        parts["imports" if kind in (ast.Import, ast.ImportFrom) else
              "definitions" if kind in (ast.FunctionDef, ast.ClassDef) else "checks"].append(part)
    return "\n\n".join([*parts["imports"], *reversed(parts["definitions"]), *parts["checks"]]) + "\n"


def without_docstrings(code: str) -> str:
    """The code with its docstrings left out and reprinted, as a student who typed it from the page has it."""
    tree = ast.parse(code)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) \
                and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
            node.body = body[1:] or [ast.Pass()]
    return ast.unparse(tree) + "\n"


def _top_level(code: str) -> list[str]:
    lines = code.splitlines(keepends=True)
    starts = statement_starts(lines) or [0]
    return ["".join(lines[a:b]).strip("\n") for a, b in zip(starts, [*starts[1:], len(lines)])]


DISGUISES: dict[str, Callable[[str], str]] = {
    "rename": rename, "dead statements": dead_statements, "reprint": reprint, "reverse": reverse,
}


def every_disguise(code: str) -> str:
    """All the disguises at once."""
    for disguise in DISGUISES.values():
        code = disguise(code)
    return code


def write(path: Path, code: str) -> Path:
    """Hand the code in at `path`: a module for .py, else a notebook of one cell per top-level statement."""
    if path.suffix == ".py":
        path.write_text(code, encoding="utf-8")
    else:
        nb = nbformat.v4.new_notebook()
        nb.cells = [nbformat.v4.new_code_cell(part) for part in _top_level(code)]
        path.write_text(nbformat.writes(nb), encoding="utf-8")
    return path
