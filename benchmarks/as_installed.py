"""The grader as `pip install` leaves it: every module's bytecode compiled.

pip compiles a package's modules as it installs it, and torch's were compiled so: a bare `import torch` reads
bytecode. A checkout installed in editable mode has none where PYTHONDONTWRITEBYTECODE is set (as on this
project's machines), and each start of the grader then compiles its ~130 modules again from source, ~0.15 s of
`grade 3.1`, in the judge and in its zygote, that no installed grader pays. Each benchmark compiles them first,
with the interpreter whose grader it times, so that it times the grader its users install.
"""
from __future__ import annotations

import subprocess

# The import names of the grader's folders: the package, and those its distribution maps from elsewhere in a
# checkout (pyproject.toml's package-dir).
COMPILE = """
import compileall, importlib.util
for name in ("grader", "grader.exercises", "grader.solutions", "grader.student_template"):
    spec = importlib.util.find_spec(name)
    for folder in (spec.submodule_search_locations or []) if spec else []:
        compileall.compile_dir(folder, quiet=1)
"""


def compile_grader(python: str) -> None:
    """Compile the bytecode of the grader that `python` imports (a no-op where it is up to date)."""
    subprocess.run([python, "-c", COMPILE], check=True)
