"""grader: an autograder for the PyTorch exercises of Build a Large Language Model (From Scratch).

The public face is small. Grading goes through `Grader` alone, which takes every security step in
order (docs/design.md), so nothing here grades around it. Names are loaded on first use (PEP 562)
because `import torch` costs ~1.7 s: the command line starts the torch-loading zygote first and only
then imports the judge, so both load torch at the same time.
"""
from __future__ import annotations

from typing import Any

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
