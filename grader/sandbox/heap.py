"""A process's start-up heap, walked by no collection once it is loaded.

`import torch` leaves ~170,000 objects that live as long as the process, and Python's cyclic collector walks all
of them over and over while they are made (~0.13 s, ~9 % of the import) and again at each full collection after
(~0.1 s each: one file's grade met one as it wrote its page). A process of ours that loads torch (a command that
grades, a batch's parent and workers, the zygote) turns the collector off while it loads (`loading`) and, once
loaded (`loaded`), freezes what it holds, which no collection walks again, and turns the collector back on for
what grading allocates. A process that is not ours (a Jupyter kernel grading with `%grade`) never calls
`loading`, and `loaded` leaves its collector as it was.
"""
from __future__ import annotations

import gc

_loading = False


def loading() -> None:
    """The collector off until `loaded`: call it before anything big is imported."""
    global _loading
    if gc.isenabled():
        gc.disable()
        _loading = True


def loaded() -> None:
    """What this process holds now is never collected: the collector is back on, for the objects made from here
    on. Does nothing unless `loading` turned the collector off."""
    global _loading
    if _loading:
        gc.freeze()
        gc.enable()
        _loading = False
