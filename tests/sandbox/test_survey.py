"""The zygote surveys once which folders around the paths a child reads only root may enter (grader.sandbox.
isolation.survey), and each child of a root-run grader works out from it, after its own mounts, whether a uid of
its own can read Python: every closed folder above a path must be one its mount namespace opened (expose)."""
from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Iterator

import pytest

from grader.sandbox import isolation


@pytest.fixture
def tree() -> Iterator[Path]:
    """A folder anyone may enter (pytest's own are root's alone), holding one only its owner may enter."""
    root = Path(tempfile.mkdtemp(prefix="grader-survey-"))
    try:
        root.chmod(0o755)
        for name, mode in (("closed", 0o700), ("closed/lib", 0o755), ("open", 0o755)):
            (root / name).mkdir()
            (root / name).chmod(mode)
        (root / "open" / "secret").write_text("", encoding="utf-8")
        (root / "open" / "secret").chmod(0o600)
        yield root
    finally:
        shutil.rmtree(root)


def test_a_path_under_a_closed_folder_is_reachable_once_that_folder_is_opened(tree: Path) -> None:
    lib, other = str(tree / "closed" / "lib"), str(tree / "open")
    found = isolation.survey((lib, other))
    assert found.closed == {lib: str(tree / "closed"), other: None}
    assert not found.reachable()
    assert not found.reachable(frozenset({str(tree / "open")}))
    assert found.reachable(frozenset({str(tree / "closed")}))


def test_a_path_others_may_not_read_is_never_reachable(tree: Path) -> None:
    found = isolation.survey((str(tree / "open" / "secret"),))
    assert found.closed == {str(tree / "open" / "secret"): None}
    assert not found.reachable()
