"""Renderers: each reads the result model (grader.results: a run or why there is none, a class's entries,
look-alike pairs) and the message catalogue (grader.messages), and imports no other part of the grader (the
package's `__version__` aside), so no renderer knows how a result was graded, kept or compared: it is given
what it shows.

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
