"""The exercises, one module each (see grader.exercise.discover); modules starting with _ are helpers."""
