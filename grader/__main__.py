"""`python -m grader` is the `grade` command.

`python -m` puts the working directory first on the import path; what a course folder there holds (a
`torch.py`, or an `exercises/` folder that an instructor's file written for the old top-level names would import
instead of the grader's: grader.judge.old_names) must not take the place of what the grader imports."""
import os
import sys

sys.path[:] = [p for p in sys.path if p not in ("", os.getcwd())]

from grader.cli import main  # noqa: E402

main()
