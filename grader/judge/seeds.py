"""Seeds: one secret per run, from which every hidden input and the sandbox's own RNG are derived.

The run's seed is printed and recorded so that `--seed` reproduces a run, and it never enters the
child. What the child is seeded with is derived from it one way, as every check's generator is, so
reading `torch.initial_seed()` in the sandbox tells a submission nothing about the inputs the judge
will send. A fresh seed has 63 bits: too many to search from a derived one.
"""
from __future__ import annotations

import hashlib
import secrets

BITS = 63  # what SQLite's INTEGER and every JSON reader keep exactly


def fresh() -> int:
    return secrets.randbits(BITS)


def derive(seed: int, *labels: str) -> int:
    """A seed for one use of the run (`"sandbox"`, an exercise and a check, a student), unrelated to
    the others except through `seed`."""
    digest = hashlib.sha256("/".join([str(seed), *labels]).encode()).digest()
    return int.from_bytes(digest[:8], "big") & (2**BITS - 1)
