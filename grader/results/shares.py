"""How a submission's time budget (`--timeout`, RunResult.budget_s) is shared between running its cells and
checking them: the rule the judge enforces (grader.judge.budget) and the feedback page states, kept with the
result model so that a renderer states it without reading the judge."""
from __future__ import annotations

LOADING = 0.6  # of the budget: the window in which the cells run
UNIT = 0.3  # of the budget: the most one cell may run before it is interrupted


def summary(budget: float) -> dict[str, float]:
    """The shares of a budget, for the page: the window for the cells, a cell's most, the checks' reserve."""
    return {"cells": budget * LOADING, "cell": budget * UNIT, "checks": budget * (1 - LOADING)}
