"""Seeds: one secret per run, from which every hidden input and the sandbox's own RNG are derived.

The run's seed is printed and recorded so that `--seed` reproduces a run, and it never enters the
child. What the child is seeded with is derived from it one way, as every check's generator is, so
reading `torch.initial_seed()` in the sandbox tells a submission nothing about the inputs the judge
will send. A fresh seed has 63 bits: too many to search from a derived one.
"""
from __future__ import annotations

import hashlib
import secrets
from typing import Sequence

BITS = 63  # what SQLite's INTEGER and every JSON reader keep exactly


def fresh() -> int:
    return secrets.randbits(BITS)


def derive(seed: int, *labels: str) -> int:
    """A seed for one use of the run (`"sandbox"`, an exercise and a check, a student), unrelated to
    the others except through `seed`."""
    digest = hashlib.sha256("/".join([str(seed), *labels]).encode()).digest()
    return int.from_bytes(digest[:8], "big") & (2**BITS - 1)


def shareable(protections: Sequence[str]) -> bool:
    """Whether students of one batch may be graded on one draw of hidden inputs: where no sandbox can leave
    anything for a later or concurrent one (docs/security.md, "One draw for a class"). Landlock lets it write
    nothing but its own scratch folder, which goes with it; seccomp refuses connect() and System V IPC; a PID
    namespace, a uid of its own or Landlock's scoping (ABI 6) keeps its signals from a classmate's sandbox."""
    landlock = [int(p.removeprefix("landlock-abi")) for p in protections if p.startswith("landlock-abi")]
    if not landlock or "seccomp" not in protections:
        return False
    return "pid-namespace" in protections or "unprivileged-user" in protections or max(landlock) >= 6
