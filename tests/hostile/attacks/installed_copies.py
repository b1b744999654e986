# attack: wherever the grader is installed (a wheel in site-packages holds grader/ with its solutions/ and
# exercises/ inside; a checkout holds them beside grader/, as an earlier version's wheel did; a contributor's venv
# outside the checkout holds a second copy beside the checkout's), import the judge's references, its checks and
# the book's code the grader keeps, by their names and by their old top-level names, and read their files in every
# folder of the import path; print what worked (IMPORTED, READ) and what did not
import importlib
import os
import sys

for _name in ("grader.solutions.chapter3", "grader.exercises.exercise_3_1", "grader.classes.given.book_chapter3",
              "solutions.chapter3", "exercises.exercise_3_1"):
    try:
        importlib.import_module(_name)
        print("IMPORTED", _name)
    except BaseException as _exc:
        print("NOT-IMPORTED", _name, type(_exc).__name__)
for _entry in [p for p in sys.path if p]:
    for _file in ("grader/solutions/chapter3.py", "grader/exercises/exercise_3_1.py",
                  "grader/classes/given/book_chapter3.py", "solutions/chapter3.py", "exercises/exercise_3_1.py"):
        _path = os.path.join(_entry, _file)
        try:
            with open(_path, "rb") as _f:
                _f.read(64)
            print("READ", _path)
        except OSError:
            pass
# %%
from grader.classes.given.book_chapter3 import *  # noqa: E402,F401,F403
# %%
from grader.solutions.chapter3 import *  # noqa: E402,F401,F403
