"""`python -m grader` is the `grade` command.

`python -m` puts the working directory first on the import path; a course folder there holding an
`exercises/` or `solutions/` folder must not take the place of the grader's own packages."""
import os
import sys

sys.path[:] = [p for p in sys.path if p not in ("", os.getcwd())]

from grader.cli import main  # noqa: E402

main()
