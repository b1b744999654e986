"""The `grade` commands that have a module of their own; grader.cli is the group and the exit-code edge."""
