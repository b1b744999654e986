"""Where the grader meets other tools: a course repository's CI configuration and Jupyter."""
