# attack: walk sys.path (and the folders above each entry) for solutions/chapter3.py and exec it
# under this file's name, so the reference's classes look like the submission's own
import os
import sys

_found = None
for _entry in sys.path:
    _dir = os.path.abspath(_entry or ".")
    for _ in range(4):
        if os.path.isfile(os.path.join(_dir, "solutions", "chapter3.py")):
            _found = os.path.join(_dir, "solutions", "chapter3.py")
            break
        _dir = os.path.dirname(_dir)
    if _found:
        break
if _found is None:
    raise ModuleNotFoundError("solutions/chapter3.py is not reachable from sys.path")
with open(_found) as _f:
    exec(compile(_f.read(), __file__, "exec"))
