"""The judge's secrets on disk, which no child may read: the references, the checks, an instructor's
exercise folders as they load, and in a checkout everything of it but the grader's code (its tests, its
history in .git, a build's copies of solutions/). The sandbox hides each of them from every child."""
from __future__ import annotations

import sys
from pathlib import Path

# Instructors' exercise folders loaded in this process, each once (resolved), and kept for the process's life:
# what a folder held (its checks, its references) stays in this process once loaded (its modules stay
# imported), and a batch's judges, forked from the parent that loaded the folders, grade with those
# exercises without loading them again, so every later child of this process is kept from them too.
_HIDDEN: list[str] = []


def hide(path: str) -> None:
    """Add a folder to the judge's secrets (an instructor's exercises and their references)."""
    if path not in _HIDDEN:
        _HIDDEN.append(path)


def hidden_paths() -> list[str]:
    """The judge's secrets on disk, which no child may read: references, checks, a checkout's other files."""
    import exercises
    import solutions

    tree = Path(solutions.__path__[0]).parent
    return list(dict.fromkeys([*solutions.__path__, *exercises.__path__, *_HIDDEN, *_checkout(tree)]))


def _checkout(tree: Path) -> list[str]:
    """Where the grader is imported from its source tree (an editable install: the folder holds the project's
    pyproject.toml, which no site-packages does), every entry of that tree but the `grader` package the zygote
    runs and the folders Python itself lies in (a virtualenv inside the checkout): its history (.git packs
    every version of solutions/), a build's copies (build/lib/solutions), its tests and anything else the
    checkout holds are the grader's, not the child's."""
    if not (tree / "pyproject.toml").is_file():
        return []
    pythons = [Path(p).resolve() for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.executable)]
    holding_python = {folder for p in pythons for folder in (p, *p.parents)}
    try:
        entries = sorted(tree.iterdir())
    except OSError:
        return []
    return [str(entry) for entry in entries if entry.name != "grader" and entry.resolve() not in holding_python]
