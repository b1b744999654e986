"""Fixtures for the hostile-submission corpus: the `destructive` marker, and what must be true after
every attack (the session zygote has no child left; no process an attack started survives).

tests/hostile is a package (it has __init__.py), so this file is `hostile.conftest` and the root
tests/conftest.py stays importable as `conftest`.
"""
from __future__ import annotations

import sys
from typing import Iterator

import pytest

import processes

# Every process an attack starts ends as `sleep N` with one of these N (fork_bomb, orphan_setsid,
# orphan_double_fork, orphan_chain), or holds one on its command line (busy_processes): a command line
# holding one is the attack's.
MARKERS = (b"987652", b"987654", b"987655", b"987656", b"987657")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "destructive: an attack that, in an unconfined sandbox, could kill the test runner or the machine's "
        "processes; it runs in every suite run, since the sandbox confines it (deselect with -m 'not destructive')",
    )


def survivors(wait: float = 5.0) -> list[int]:
    return processes.survivors(MARKERS, wait)


# -- fixtures -----------------------------------------------------------------------------------------
@pytest.fixture(autouse=True)
def nothing_left(zygote_pid: int | None) -> Iterator[None]:
    """After every attack: no marked process anywhere, and the session zygote alive and childless."""
    if not sys.platform.startswith("linux"):
        pytest.skip("reads /proc")
    yield
    try:
        left = survivors()
        assert not left, f"processes started by the attack outlived grading: {left}"
        processes.assert_zygote_idle(zygote_pid)
    finally:
        processes.kill(processes.marked(MARKERS))
