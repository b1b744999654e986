"""Where the submission's own text defines a class, for what a check cannot measure from outside.

Read in the judge, from the cells it loaded and the files handed in beside them (never from the scratch
folder the child writes in): the text is what the student handed in, which no code of theirs rewrites at run
time. Nothing here runs anything; a text that does not parse defines nothing.
"""
from __future__ import annotations

import ast

from grader.load.submission import Submission

MAX_TEXT = 1 << 20  # a file beside the submission read for its classes: larger ones are not source code


def class_definitions(submission: Submission, name: str) -> list[ast.ClassDef]:
    """Every top-level `class <name>` in the submission's text: the modules handed in beside it first (they
    are imported before use), then its cells in order, so the last one is the one that ran last."""
    texts = [_read(path) for path in submission.support if path.suffix == ".py"]
    texts += [cell.source for cell in submission.cells]
    found = []
    for text in texts:
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        found += [node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == name]
    return found


def _read(path: object) -> str:
    try:
        with open(str(path), "rb") as f:
            return f.read(MAX_TEXT).decode("utf-8", errors="replace")
    except OSError:
        return ""
