"""Gradescope shows an adjustment where it applies (issue 50, point 9), through the real commands: a class
graded with `grade batch`, one exercise's score set with `grade adjust`, and `grade export --format gradescope`
under each release policy, in both languages.

The adjusted exercise is one test holding its points (the adjusted score out of its usual `max_score`, never
"3.5/0" on an extra test), its output says who adjusted it, when, why and what the grader gave, and the
top-level `score` is still the sum of the tests.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from conftest import mutant, mutations
from grader.messages import catalogue
from grader.results.release import ALL_CHECKS, POLICIES
from classes.test_batch import grade_command, grade_command_in_process, jsonl, write
from render.test_gradescope import valid

BY = "Dr. Lin"
WHY = "the transpose is explained in a comment"
POINTS = 3.5


@pytest.fixture(scope="module")
def adjusted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """bob (3.1 with its transpose missing: 0 of 10) graded on 3.1 and 3.2, his 3.1 adjusted to 3.5."""
    root = tmp_path_factory.mktemp("adjusted")
    write(root / "in" / "bob.py", mutant(mutations.SA_BUGS, "missing_transpose"))
    done = grade_command("batch", root / "in", "-e", "3.1,3.2", "-o", root / "out", "-j", 1, "--timeout", 30)
    assert done.returncode == 0, done.stdout + done.stderr
    done = grade_command_in_process("adjust", root / "out", "bob", "3.1", POINTS, "--by", BY, "--why", WHY, cwd=root)
    assert done.returncode == 0, done.stderr
    return root


def export(root: Path, lang: str) -> dict[str, Any]:
    out = root / f"gs-{lang}"
    done = grade_command_in_process("export", root / "out", "--format", "gradescope", "-o", out, "--lang", lang,
                                    cwd=root)
    assert done.returncode == 0, done.stderr
    return valid(json.loads((out / "bob.json").read_text(encoding="utf-8")))


@pytest.mark.parametrize("policy", POLICIES)
def test_the_adjusted_exercise_is_its_own_test(adjusted: Path, tmp_path: Path, policy: str) -> None:
    root = tmp_path / "class"
    shutil.copytree(adjusted, root)
    if policy != "everything":  # stored by a run that grades nothing, as a course sets it
        done = grade_command("batch", root / "in", "-e", "3.1,3.2", "-o", root / "out", "--before-release", policy)
        assert done.returncode == 0, done.stdout + done.stderr
    result = jsonl(root / "out")["bob"]["result"]
    ex31, ex32 = (next(e for e in result["exercises"] if e["id"] == ex) for ex in ("3.1", "3.2"))
    own = sum(c["score"] for c in ex31["checks"])
    max31 = sum(c["max_score"] for c in ex31["checks"])
    assert (own, max31, ex31["adjustment"]["points"]) == (0, 10, POINTS)
    date = ex31["adjustment"]["at"][:10]
    failed = [c for c in ex31["checks"] if c["status"] == "failed"]
    assert failed
    for lang in catalogue.LANGS:
        data = export(root, lang)
        visible = [t for t in data["tests"] if t["visibility"] == "visible"]
        assert not [t for t in data["tests"] if t.get("max_score") == 0 and t.get("score", 0) != 0]  # no "3.5/0"
        [test] = [t for t in visible if "3.1" in t["tags"]]  # one test holds the exercise's points
        assert (test["score"], test["max_score"]) == (POINTS, max31)
        assert test["name"] == catalogue.text("gradescope.test_name", lang, exercise="3.1",
                                              title=ex31["titles"][lang]) + " · " + catalogue.text("adjust.mark", lang)
        output = test["output"]
        assert output.startswith(catalogue.text("adjust.by", lang, by=BY, date=date, why=WHY) + "\n"
                                 + catalogue.text("adjust.own", lang, own=own, max=max31) + "\n")
        assert test["output_format"] == "text" and test["number"] == "3.1"
        # the total is still the sum of the tests, and the other exercise keeps its tests
        assert data["score"] == pytest.approx(sum(t.get("score", 0) for t in data["tests"]))
        assert data["score"] == pytest.approx(POINTS + ex32["score"])
        others = [t for t in visible if "3.2" in t["tags"]]
        assert [(t["score"], t["max_score"]) for t in others] == (
            [(ex32["score"], sum(c["max_score"] for c in ex32["checks"]))] if policy == "score"
            else [(c["score"], c["max_score"]) for c in ex32["checks"]])
        # what the grader judged, as much as the policy shows
        shown_titles = [c["titles"][lang] for c in ex31["checks"]]
        said = [c["messages"][lang] for c in failed]
        if policy == "score":
            assert catalogue.text(ALL_CHECKS, lang) in output
            assert not [title for title in shown_titles if title in output]
        else:
            assert all(title in output for title in shown_titles)
        if policy == "everything":
            assert all(message in output for message in said)
            assert not [t for t in data["tests"] if t["visibility"] != "visible"]
        else:
            assert catalogue.text("release.withheld", lang) in output
            assert not [message for message in said if message in json.dumps(visible, ensure_ascii=False)]
            later = [t for t in data["tests"] if t["visibility"] == "after_published" and "3.1" in t["tags"]]
            assert len(later) == len(ex31["checks"]) and all("score" not in t for t in later)
