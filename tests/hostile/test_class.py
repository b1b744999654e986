"""Round 4 of the hostile corpus, against a class (issue 39, section 2): one hand-in cannot stall, stop or
split its class. A file that does not parse costs the judge and the batch's parent time linear in its size;
a name that is not UTF-8 and a message holding a lone surrogate are carried and shown, escaped; a hand-in
named like the library its classmates import stays one student. One batch grades all of them beside an
honest classmate (attacks/class_*.py), through the real command.
"""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from conftest import SOLUTION
from grader.integrations import kernel_judge
from grader.load.submission import Cell, load, neutralise
from helpers import attack

ANSWERS = SOLUTION.read_text(encoding="utf-8")
ROWS = 6_500  # the unparsable table's length: a minute per grade before, and as long again in the parent
GBK_NAME = "作业".encode("gbk") + b".py"  # as a Chinese Windows zip writes it, unpacked by `unzip` on Linux
LOADED_S = 5.0  # a few tenths of a second here; the quadratic splitter took minutes at this length
BATCH_S = 120.0  # the class below grades in seconds here; the parent alone took 10+ minutes before


def unparsable() -> str:
    return attack("class_unparsable") + "".join(f"({i}, {i + 1}),  # pair {i}\n" for i in range(ROWS))


def test_an_unparsable_file_loads_in_time_linear_in_its_length(tmp_path: Path) -> None:
    path = tmp_path / "pairs.py"
    path.write_text(unparsable(), encoding="utf-8")
    started = time.monotonic()
    submission = load(path)
    assert time.monotonic() - started < LOADED_S
    # `import torch`, then the table: its bracket never closes, so it runs to the end, failing alone
    assert [cell.first_line for cell in submission.cells] == [1, 9]


def test_a_notebook_cell_with_magics_neutralises_in_time_linear_in_its_length() -> None:
    """A magic after a bracket left open for thousands of lines: the line-by-line path, once per line."""
    source = "%matplotlib inline\npairs = (\n" + "".join(f"  {i},\n" for i in range(ROWS)) + ")\n%time train()\n"
    started = time.monotonic()
    cell = neutralise(Cell(1, source, "<cell 1>"))
    assert time.monotonic() - started < LOADED_S
    assert cell.skipped_magics == ("%matplotlib inline", "%time train()")
    assert cell.source.splitlines()[-1] == "pass"


# -- one batch: an honest student beside each attack ------------------------------------------------------
def grade_command(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "grader", *map(str, args)], capture_output=True, text=True,
                          timeout=900, env={**os.environ, "LANG": "en_US.UTF-8"})


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str], float]:
    root = tmp_path_factory.mktemp("class")
    folder = root / "submissions"
    folder.mkdir()
    (folder / "ann.py").write_text(ANSWERS, encoding="utf-8")
    (folder / "zz_pairs.py").write_text(unparsable(), encoding="utf-8")
    (folder / "mallory.py").write_text(attack("class_surrogate") + ANSWERS, encoding="utf-8")
    (folder / "torch.py").write_text(attack("class_torch"), encoding="utf-8")
    with open(os.fsencode(folder) + b"/" + GBK_NAME, "wb") as f:
        f.write((attack("class_gbk_name") + ANSWERS).encode())
    started = time.monotonic()
    done = grade_command("batch", folder, "-e", "3.1", "-o", root / "out", "-j", 2, "--timeout", 10)
    return root / "out", done, time.monotonic() - started


def rows(out: Path) -> dict[str, dict[str, Any]]:
    lines = (out / "results.jsonl").read_text(encoding="utf-8").splitlines()
    return {row["student"]: row for row in map(json.loads, lines)}


def full(row: dict[str, Any]) -> bool:
    return row["status"] == "graded" and row["result"]["score"] == row["result"]["max_score"] == 10


def test_the_class_is_graded_in_time_and_the_batch_succeeds(graded) -> None:
    out, done, seconds = graded
    assert done.returncode == 0, (done.stdout, done.stderr)
    assert seconds < BATCH_S
    assert full(rows(out)["ann"])


def test_a_lone_surrogate_costs_only_its_own_cell(graded) -> None:
    out, done, _ = graded
    row = rows(out)["mallory"]
    assert full(row), row
    assert "internal error" not in done.stderr


def test_a_name_that_is_not_utf8_is_graded_and_shown_escaped(graded) -> None:
    out, done, _ = graded
    escaped = GBK_NAME[:-3].decode("utf-8", "backslashreplace")
    assert full(rows(out)[escaped]), sorted(rows(out))
    assert escaped in (out / "grades.csv").read_text(encoding="utf-8")


def test_a_hand_in_named_torch_stays_one_student(graded) -> None:
    out, _, _ = graded
    students = rows(out)
    assert set(students) >= {"ann", "mallory", "torch", "zz_pairs"}
    assert students["torch"]["files"] == ["torch.py"]
    texts = [p.read_text(encoding="utf-8") for p in (out / "pages").iterdir()]
    assert not any("STOLEN" in text and "mallory" in text for text in texts)


# -- the Jupyter judge --------------------------------------------------------------------------------------
def test_the_kernel_judge_answers_a_lone_surrogate(monkeypatch: pytest.MonkeyPatch) -> None:
    """Its replies go to a strict UTF-8 pipe, as the worker's answers do."""
    monkeypatch.setattr(kernel_judge, "answer", lambda request, grader: {"message": "bad token \ud800"})
    pipe = io.BytesIO()
    replies = io.TextIOWrapper(pipe, encoding="utf-8", write_through=True)
    kernel_judge.serve(io.StringIO('{"spec": "3.1"}\n'), replies, grader=None)  # type: ignore[arg-type]
    assert json.loads(pipe.getvalue()) == {"message": "bad token \ud800"}
