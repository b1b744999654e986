"""grader: an autograder for the PyTorch exercises of Build a Large Language Model (From Scratch).

The public face is small. Grading goes through `Grader` alone, which takes every security step in
order (docs/design.md), so nothing here grades around it. Names are loaded on first use (PEP 562)
because `import torch` costs ~1.7 s: the command line starts the torch-loading zygote first and only
then imports the judge, so both load torch at the same time.

The exercises, their references and the student template are `grader.exercises`, `grader.solutions` and
`grader.student_template`: installed, they are folders of the package (pyproject's package-dir), so the wheel puts
nothing but `grader` at the top level. The repository keeps them at its top, beside grader/; where the package is
imported from a checkout (`python -m pytest` at its root, an editable install) a finder maps those three names to
the folders beside it (_Beside).
"""
from __future__ import annotations

import os
import sys
from importlib.machinery import ModuleSpec
from importlib.util import spec_from_file_location
from types import ModuleType
from typing import Any, Sequence

__version__ = "0.1.0"

__all__ = ["__version__", "Grader", "load_exercises", "to_json", "RunResult", "check"]

_LAZY = {
    "Grader": ("grader.judge.grader", "Grader"),
    "load_exercises": ("grader.judge.exercise", "discover"),
    "to_json": ("grader.results", "to_json"),
    "RunResult": ("grader.results", "RunResult"),
    # In Jupyter (grader.integrations.jupyter): `from grader import check` and `%load_ext grader`.
    "check": ("grader.integrations.jupyter", "check"),
    "load_ipython_extension": ("grader.integrations.jupyter", "load_ipython_extension"),
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'grader' has no attribute {name!r}")
    import importlib

    module, attr = _LAZY[name]
    return getattr(importlib.import_module(module), attr)


_HERE = os.path.dirname(os.path.abspath(__file__))
_TREE = os.path.dirname(_HERE)
_BESIDE = ("exercises", "solutions", "student_template")


class _Beside:
    """Finds grader.exercises, grader.solutions and grader.student_template in a checkout, where they lie beside
    the package's folder rather than in it: those three names and nothing else (adding the checkout's top folder
    to `__path__` would make its tests/, docs/ and build/ subpackages too). Registered only where the package's
    folder holds no exercises/ of its own and the folder above holds the project (its pyproject.toml): in an
    installed grader, Python's own path finder finds them inside the package."""

    @staticmethod
    def find_spec(fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        package, _, name = fullname.rpartition(".")
        folder = os.path.join(_TREE, name)
        init = os.path.join(folder, "__init__.py")
        if package != __name__ or name not in _BESIDE or not os.path.isfile(init):
            return None
        return spec_from_file_location(fullname, init, submodule_search_locations=[folder])


if not os.path.isdir(os.path.join(_HERE, "exercises")) and os.path.isfile(os.path.join(_TREE, "pyproject.toml")):
    sys.meta_path.append(_Beside())
