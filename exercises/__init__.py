"""The exercises, one module each (see grader.judge.exercise.discover); modules starting with _ are helpers."""
