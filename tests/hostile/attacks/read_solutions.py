# attack: find grader.solutions with importlib and exec its text under this file's name, so the reference's
# classes look like the submission's own
import importlib.util
import os

_spec = importlib.util.find_spec("grader.solutions")
if _spec is None:
    raise ModuleNotFoundError("the solutions package is not visible")
_path = os.path.join(_spec.submodule_search_locations[0], "chapter3.py")
with open(_path) as _f:
    exec(compile(_f.read(), __file__, "exec"))
