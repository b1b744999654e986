"""Renderers: each reads the result model (grader.results) and nothing else.

Loading the package registers how a run displays in IPython (grader.results.model.DISPLAY): the inline
feedback in a notebook, the terminal summary in a terminal IPython.
"""
from __future__ import annotations

from grader.results.model import DISPLAY, RunResult


def _inline(run: RunResult) -> str:
    from grader.render.html import fragment

    return fragment(run)


def _summary(run: RunResult) -> str:
    from grader.render.terminal import render

    return render(run, None, color=False)


DISPLAY.update({"text/html": _inline, "text/plain": _summary})
