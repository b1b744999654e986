"""`python -m grader` is the `grade` command."""
from grader.cli import main

main()
