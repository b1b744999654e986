# attack: the grader runs from a git checkout (an editable install); read what the checkout holds beside
# the grader's code: .git (its packs hold every version of solutions/chapter3.py), build/lib's copies of
# solutions/, the tests, the project's files; print each file read
import os

import grader

checkout = os.path.dirname(os.path.dirname(os.path.abspath(grader.__file__)))
wanted = [os.path.join(checkout, name) for name in (".git", "build", "tests", "pyproject.toml", "README.md")]
for top in wanted:
    files = [top] if not os.path.isdir(top) else [
        os.path.join(folder, name) for folder, _, names in os.walk(top) for name in names[:2]][:10]
    for path in files:
        try:
            with open(path, "rb") as f:
                f.read(64)
            print("READ", path)
        except OSError:
            pass
try:
    print("LISTED", sorted(os.listdir(checkout)))
except OSError as exc:
    print("NOT-LISTED", type(exc).__name__)
