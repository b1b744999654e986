"""Renderers: each reads a grader.results.RunResult and nothing else."""
