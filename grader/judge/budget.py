"""How a submission's time budget (`--timeout`) is shared between running its cells and checking them.

A learner's script trains a model for thousands of steps before it defines what is graded after it,
and a notebook may keep a long loop in one cell. So each cell (or statement of a .py file) has a share
of the budget: past it, it is interrupted as Jupyter's Stop button does it and the next one runs.
Cells run within the first LOADING of the budget, each for at most UNIT of it; once that window is
spent, each later one still gets MIN_UNIT seconds. The checks keep the rest: a training loop never
eats the time they need. Code that does not stop when interrupted is killed GRACE later and replayed
without it. All scale with --timeout; docs/students.md and the feedback page state them.
"""
from __future__ import annotations

# LOADING and UNIT are the shares the feedback page states too: they live with the result model.
from grader.results.shares import LOADING, UNIT

MIN_UNIT = 1.0  # seconds a cell gets once the window is spent (and an interrupted cell when replayed)
GRACE = 2.0  # seconds an interrupted cell has to stop before it is killed (or a tenth of its share)


def cell_share(budget: float, elapsed: float) -> float:
    """Seconds the next cell may run, `elapsed` seconds into the budget."""
    return min(budget * UNIT, max(budget * LOADING - elapsed, MIN_UNIT))


def replay_share(first: float | None, interrupted: bool, budget: float, elapsed: float) -> float:
    """Seconds a cell may run when the cells are replayed in a fresh child (after a kill). A cell that ran to
    its end the first time (`first`: the share it had then) keeps that share, however late the replay: what
    it used then it may need again on a machine that has become slow, and a cell lost in a replay loses every
    answer after it. A cell interrupted before runs again only as long as any late cell: what it built
    before the long part is what later cells need, and the budget pays for it once."""
    if interrupted:
        return MIN_UNIT
    return max(first or 0.0, cell_share(budget, elapsed))


def kill_after(share: float) -> float:
    """When a cell that was interrupted but did not stop is killed."""
    return share + max(GRACE, share / 10)
