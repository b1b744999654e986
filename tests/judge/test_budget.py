"""How a submission's budget is shared among its cells, on a first run and in a replay after a kill."""
from __future__ import annotations

from grader.judge import budget


def test_a_cell_gets_a_share_of_the_window_then_a_late_cells_second() -> None:
    assert budget.cell_share(60, 0) == 18  # 30% of the budget
    assert budget.cell_share(60, 30) == 6  # what is left of the first 60%
    assert budget.cell_share(60, 50) == budget.MIN_UNIT


def test_a_replay_never_gives_a_cell_that_finished_less_than_it_had() -> None:
    late = 50  # the window of 36 s is spent
    assert budget.replay_share(18.0, False, 60, late) == 18.0
    assert budget.replay_share(None, False, 60, late) == budget.MIN_UNIT  # first run: a late cell's share
    assert budget.replay_share(0.5, False, 60, 0) == 18  # never less than a cell would get now
    assert budget.replay_share(18.0, True, 60, 0) == budget.MIN_UNIT  # interrupted: the budget paid for it once
