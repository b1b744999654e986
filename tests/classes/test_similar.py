"""Look-alike submissions (grader.classes.similarity, `grade similar`, `grade batch --similar`).

Contract: a copy disguised mechanically (every name changed, comments reworded, a dead statement after
every statement, reprinted, the definitions reordered, one cell per statement, notebook <-> script)
ranks first; code made only of what the class was given (the template, the book's listings and
one-line answers, with or without comments and docstrings, reformatted) is never reported, in a class
of any size; independent honest answers of the same exercises (tests/corpus/similar/honest) are not
flagged; an instructor's --boilerplate takes a passage out of the comparison; the report says "worth a
look" with the score and the threshold, and each pair has a side-by-side page marking the shared lines.
Bad input is one line and exit 2.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from conftest import CORPUS, ROOT, SEEDS, SOLUTION, TEMPLATE
from grader.classes import similarity
from render.test_page import parse

sys.path.insert(0, str(CORPUS / "similar"))
import disguises  # noqa: E402  (tests/corpus is data, not a package)

ALICE = (CORPUS / "look_alike" / "alice.py").read_text(encoding="utf-8")
BOB = (CORPUS / "look_alike" / "bob.py").read_text(encoding="utf-8")
TYPED = (CORPUS / "similar" / "typed_from_the_book.py").read_text(encoding="utf-8")
RENAMES = {"scaled_scores": "attention_table", "query_rows": "qs", "key_rows": "ks", "n_tokens": "length",
           "table": "grid", "causal_fill": "hide_future", "fill_value": "blank", "size": "side",
           "LoopAttention": "MyAttention", "width_in": "d_in", "width_out": "d_out", "to_q": "wq", "to_k": "wk",
           "to_v": "wv", "tokens": "x", "queries": "q", "keys_": "k", "values": "v", "weights": "w",
           "train_step": "one_step", "prediction": "out", "optimiser": "opt", "run_experiment": "main",
           "history": "losses", "batch": "inputs", "target": "wanted", "width": "dim"}


def disguise(code: str) -> str:
    """Alice's code as a notebook that copied it: every name changed, comments reworded, lines reflowed,
    the top-level blocks in other cells in another order."""
    for old, new in RENAMES.items():
        code = re.sub(rf"\b{old}\b", new, code)
    code = re.sub(r"#.*", "# my own notes here", code).replace(", ", " ,  ").replace(" = ", "=")
    blocks = re.split(r"\n(?=(?:def |class |import |from ))", code)
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# Homework 3")] + [nbformat.v4.new_code_cell(b) for b in reversed(blocks)]
    return nbformat.writes(nb)


def write_class(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "alice.py").write_text(ALICE, encoding="utf-8")
    (folder / "mallory.ipynb").write_text(disguise(ALICE), encoding="utf-8")
    (folder / "bob.py").write_text(BOB, encoding="utf-8")
    for name in ("carol", "dan"):  # the book's code, as many students hand it in
        (folder / f"{name}.py").write_text(SOLUTION.read_text(encoding="utf-8"), encoding="utf-8")
    for name in ("tom", "tess"):  # the template, untouched
        (folder / f"{name}.ipynb").write_bytes((TEMPLATE / "chapter3.ipynb").read_bytes())
    return folder


def codes(folder: Path) -> dict[str, str]:
    return {path.stem: similarity.code_of([path]) for path in sorted(folder.iterdir())}


def test_names_comments_and_whitespace_leave_the_tokens_as_they_were() -> None:
    plain = "def f(a, b):\n    # add\n    return a + b  # sum\n"
    changed = "def   g( x,y ):\n\n    # wholly other words\n    return x+y\n"
    assert [t for t, _ in similarity.tokens(plain)] == [t for t, _ in similarity.tokens(changed)]
    assert similarity.tokens("x = 'a'\n")[-1][0] == "S" and similarity.tokens("x = 1\n")[-1][0] == "1"


def test_a_cell_that_does_not_parse_spoils_no_other() -> None:
    code = f"{similarity.CELL_MARK}a.ipynb, cell 1\nf(1, \n{similarity.CELL_MARK}a.ipynb, cell 2\ny = 2\n"
    assert [t for t, line in similarity.tokens(code) if line == 4] == ["N", "=", "2"]


def test_the_disguised_copy_ranks_first_and_the_given_code_does_not(tmp_path: Path) -> None:
    found = similarity.look_alikes(codes(write_class(tmp_path / "class")), similarity.given())
    assert found, "the copy was not found"
    first = found[0]
    assert (first.a, first.b) == ("alice", "mallory") and first.score >= 0.8  # cell breaks cut a few k-grams
    for pair in found:
        assert not {pair.a, pair.b} & {"tom", "tess", "carol", "dan"}, pair
    # the shared lines are Alice's code, not the lines under the cell marks
    alice_lines = ALICE.splitlines()
    marked = [alice_lines[n - 2] for n in sorted(first.lines_a)]  # code_of puts one mark line first
    assert any("torch.dot" in line for line in marked) and not any(line.startswith("#") for line in marked)


def test_without_the_given_code_the_book_students_would_look_alike(tmp_path: Path) -> None:
    """What the boilerplate is for: the book's code, handed in twice, is a perfect match otherwise."""
    found = similarity.look_alikes(codes(write_class(tmp_path / "class")))
    assert any({pair.a, pair.b} == {"carol", "dan"} for pair in found)


def test_boilerplate_takes_a_passage_out(tmp_path: Path) -> None:
    given = tmp_path / "handout.py"
    given.write_text(ALICE, encoding="utf-8")
    found = similarity.look_alikes(codes(write_class(tmp_path / "class")), similarity.given([given]))
    assert not any({pair.a, pair.b} == {"alice", "mallory"} for pair in found)


def test_a_passage_most_of_a_large_class_shares_is_no_evidence() -> None:
    """The cap on common fingerprints: 40 students who all pasted one tutorial are not 780 pairs."""
    tutorial = BOB
    class_ = {f"s{n:02d}": tutorial + f"\nanswer_{n} = {n}\n" for n in range(40)}
    assert similarity.look_alikes(class_) == []


def hand_in(folder: Path, submissions: dict[str, Path | tuple[str, str]]) -> dict[str, str]:
    """The code of each student as `grade batch` keeps it, from {student: a file to copy, or (suffix, the
    python source to hand in as a module or as a notebook of one cell per statement)}."""
    folder.mkdir(parents=True, exist_ok=True)
    handed = {}
    for student, what in submissions.items():
        if isinstance(what, Path):
            handed[student] = Path(shutil.copy(what, folder / f"{student}{what.suffix}"))
        else:
            handed[student] = disguises.write(folder / f"{student}{what[0]}", what[1])
    return {student: similarity.code_of([path]) for student, path in handed.items()}


def honest_class() -> dict[str, str]:
    """Thirteen students who each wrote chapter 3 on their own (tests/corpus/similar/honest): from the
    book's listings typed with a change or two to einsum, loops, fused projections and SDPA."""
    return {path.stem: similarity.code_of([path]) for path in sorted(disguises.HONEST.iterdir())}


def test_every_mechanical_disguise_of_a_copy_ranks_first(tmp_path: Path) -> None:
    """Renamed, a dead statement after every statement, reprinted, the definitions reordered, or all of
    it, handed in as a script or as a notebook of one cell per statement: the copy and its original are
    the most alike pair of the class, whether the original is mostly the book's code (Ana, a script) or
    a notebook of her own (Eli). benchmarks/similar.py does the same for every honest student."""
    missed, honest = {}, honest_class()
    for original in ("ana.py", "eli.ipynb"):
        code = disguises.source(disguises.HONEST / original)
        for name, disguise in [*disguises.DISGUISES.items(), ("all of them", disguises.every_disguise)]:
            for suffix in (".py", ".ipynb"):
                class_ = {**honest, **hand_in(tmp_path / name / suffix, {"copy": (suffix, disguise(code))})}
                found = similarity.look_alikes(class_, similarity.given())
                if not found or {found[0].a, found[0].b} != {Path(original).stem, "copy"}:
                    missed[f"{original}, {name}, as {suffix}"] = [(p.a, p.b, round(p.score, 2)) for p in found[:2]]
    assert not missed, missed


@pytest.mark.parametrize("size", [2, 30])
def test_code_made_only_of_what_the_class_was_given_is_never_reported(tmp_path: Path, size: int) -> None:
    """The template with the book's listings and one-line answers typed in, with its comments and
    docstrings and without them, reprinted: no pair, in a class of two (under the common-passage cap's
    minimum) as in a class of thirty whose others hand in the template, the reference or a seed notebook,
    as they are or reprinted without docstrings."""
    class_: dict[str, Path | tuple[str, str]] = {
        "typed": (".py", TYPED), "bare": (".ipynb", disguises.without_docstrings(TYPED))}
    files = [TEMPLATE / "chapter3.ipynb", TEMPLATE / "chapter3.py", SOLUTION,
             SEEDS / "ch03-exercise-solutions.ipynb", SEEDS / "ch03-3.6-multihead-attention.ipynb"]
    reprinted = [disguises.without_docstrings(path.read_text(encoding="utf-8")) for path in files[1:3]]
    for n in range(size - len(class_)):
        class_[f"s{n:02d}"] = files[n] if n < len(files) else (".py" if n % 2 else ".ipynb", reprinted[n % 2])
    found = similarity.look_alikes(hand_in(tmp_path, class_), similarity.given())
    assert found == [], [(p.a, p.b, round(p.score, 2)) for p in found]


def test_independent_answers_of_the_same_exercises_are_not_flagged() -> None:
    """The thirteen honest students all implement the same listings, most of them as the book does:
    that is no evidence, not one of their 78 pairs is reported."""
    found = similarity.look_alikes(honest_class(), similarity.given())
    assert found == [], [(p.a, p.b, round(p.score, 2)) for p in found]


def grade_command(*args: object) -> subprocess.CompletedProcess[str]:
    """`grade` as an instructor runs it, from a folder of theirs (`python -m grader` leaves its own
    working directory off the import path)."""
    return subprocess.run([sys.executable, "-m", "grader", *map(str, args)], capture_output=True, text=True,
                          timeout=600, cwd=ROOT / "tests", env={**os.environ, "LANG": "en_US.UTF-8"})


@pytest.fixture(scope="module")
def compared(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    root = tmp_path_factory.mktemp("similar")
    done = grade_command("batch", write_class(root / "class"), "-e", "3.1", "-o", root / "out", "-j", 2,
                         "--timeout", 20, "--similar")
    return root / "out", done


def test_batch_similar_lists_the_pair_without_accusing(compared) -> None:
    outdir, done = compared
    assert done.returncode == 0, done.stderr
    assert "unusually alike, worth a look: alice · mallory" in done.stdout and "(threshold 50%)" in done.stdout
    dom = parse((outdir / "index.html").read_text(encoding="utf-8"))
    section = dom.find("section", id="similar")
    rows = section.find("table").find("tbody").find_all("tr")
    assert (rows[0].attrs["data-a"], rows[0].attrs["data-b"]) == ("alice", "mallory")
    assert all(not {r.attrs["data-a"], r.attrs["data-b"]} & {"tom", "tess", "carol", "dan"} for r in rows)
    words = section.text()
    assert "worth a look" in words and "50%" in words and "not a finding of copying" in words
    assert "cop" not in rows[0].text().lower()


def test_each_pair_has_a_side_by_side_page(compared) -> None:
    outdir, _ = compared
    dom = parse((outdir / "index.html").read_text(encoding="utf-8"))
    link = dom.find("section", id="similar").find("a").attrs["href"]
    page = parse((outdir / link).read_text(encoding="utf-8"))
    sides = page.find_all("pre")
    assert len(sides) == 2
    left, right = (side.find_all("mark") for side in sides)
    assert any("torch.dot" in mark.text() for mark in left) and any("torch.dot" in mark.text() for mark in right)
    assert page.find("p", cls="score").attrs["data-threshold"] == "0.5000"
    for anchor in page.find_all("a"):
        assert (outdir / "similar" / anchor.attrs["href"]).resolve().is_file()


def test_similar_runs_again_on_the_gradebook_alone(compared, tmp_path: Path) -> None:
    """After the batch, the submissions may be gone (a merged class): the gradebook kept their code."""
    outdir, _ = compared
    given = tmp_path / "handout.py"
    given.write_text(ALICE, encoding="utf-8")
    again = grade_command("similar", outdir, "--boilerplate", given)
    assert again.returncode == 0, again.stderr
    assert "alice · mallory" not in again.stdout and "pairs of 7 submissions" in again.stdout


@pytest.mark.parametrize("args", [("similar", "/nonexistent/out"),
                                  ("similar", ROOT, "--boilerplate", "/nonexistent/handout.py")])
def test_what_cannot_be_compared_is_one_line_and_exit_2(args: tuple[object, ...]) -> None:
    done = grade_command(*args)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
