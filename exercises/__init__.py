"""The exercises, one module each (see grader.checks.exercise.discover); modules starting with _ are helpers."""
