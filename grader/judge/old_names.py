"""The names the grader's checks and references went by before they moved into its package: `exercises` and
`solutions`, now grader.exercises and grader.solutions. An instructor's exercise folder written against them
(`from solutions import chapter3`, `from exercises._attention import ...`, as docs/authoring.md once showed) keeps
loading: while it loads, and only then, each old name is the grader's package, so nothing outside the grader gets
a top-level package of so generic a name.

An old name is aliased only where nothing else answers to it: a package of that name on the import path (another
project's, or the instructor's folder's own module) wins, as it would without the grader. Each module of the
package is aliased as well, so `from solutions.chapter3 import X` binds the very class grader.solutions.chapter3
holds, not a second copy loaded under the old name."""
from __future__ import annotations

import importlib
import importlib.util
import pkgutil
import sys

OLD = ("exercises", "solutions")


def alias() -> list[str]:
    """Make each old name an alias of the grader's package, and each of its modules too, where nothing else
    answers to it; the aliases made, for `drop` once the folder has loaded."""
    added: list[str] = []
    for old in OLD:
        if old in sys.modules or importlib.util.find_spec(old) is not None:
            continue
        new = f"grader.{old}"
        package = importlib.import_module(new)
        for name in [new, *(f"{new}.{info.name}" for info in pkgutil.iter_modules(package.__path__))]:
            added.append(old + name[len(new):])
            sys.modules[added[-1]] = importlib.import_module(name)
    return added


def drop(aliases: list[str]) -> None:
    for name in aliases:
        sys.modules.pop(name, None)
