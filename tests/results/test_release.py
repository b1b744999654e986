"""Feedback released when the course says: `--before-release score|verdicts|everything`, `grade release`, and
Gradescope's `visibility`, through the real commands, and the redaction every output reads (`withheld`) on a
result with every field filled."""
from __future__ import annotations

import dataclasses
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from markupsafe import escape

from conftest import SOLUTION, mutant, mutations
from grader.classes import release
from grader.classes.gradebook import FILENAME, Gradebook
from grader.outputs.names import page_name
from grader.integrations import ci
from grader.judge.launcher import ZygoteLauncher
from grader.messages import catalogue
from grader.render import gradescope, html
from grader.results import (Adjustment, CellRecord, CheckResult, ExerciseResult, RunResult, SubmissionInfo,
                            from_json, to_json)
from grader.results.release import POLICIES, for_students, withheld
from classes.test_batch import grade_command, write
from integrations.test_ci import course, grade_ci, set_config
from render.test_gradescope import _dirs, _gradescope, valid

NOTE = catalogue.every_lang(lambda lang: catalogue.text("release.withheld", lang))
ALL_CHECKS = catalogue.text("release.all_checks", "en")
# What a student's own code put on the full page, and that the policies below withhold.
PRINTED, RAISED = "CARL-PRINTED-LINE", "CARL-CELL-ERROR"
EXCERPT = "keys = x @ self.W_key"  # bob's line that raised, quoted under the failed check


# -- withheld(), on a result with every field filled -----------------------------------------------------------


def _check(cid: str, status: str, score: float, max_score: float) -> CheckResult:
    return CheckResult(
        id=cid, title=f"KEPT-title-{cid}", status=status, score=score, max_score=max_score,  # type: ignore[arg-type]
        message=f"SECRET-message-{cid}", message_key=f"SECRET.key.{cid}",
        evidence={"object": {"name": "SECRET-evidence", "cell": 1}, "got": [1.0, 2.0]},
        messages={"en": f"SECRET-message-{cid}", "zh": f"SECRET-zh-{cid}"},
        titles={"en": f"KEPT-title-{cid}", "zh": f"KEPT-标题-{cid}"}, duration_s=0.25)


def full_run() -> RunResult:
    """Every field of the model set to something other than its default: a field the model gains later
    fails `test_the_fixture_fills_every_field`, so whoever adds it decides whether students see it early."""
    cell = CellRecord(cell=2, status="raised", skipped_magics=("%SECRET-magic",), source="SECRET-source = 1\n",
                      first_line=3, file="SECRET-file.py",
                      error={"type": "ValueError", "message": "SECRET-cell-error",
                             "frames": [{"file": "SECRET-file.py", "line": 3, "function": "f", "source": "SECRET-src"}]})
    exercises = (
        ExerciseResult(id="3.1", title="KEPT-ex", statement="KEPT-statement",
                       checks=(_check("a", "passed", 2, 2), _check("b", "failed", 0, 3), _check("c", "skipped", 0, 0)),
                       titles={"en": "KEPT-ex", "zh": "KEPT-练习"},
                       statements={"en": "KEPT-statement", "zh": "KEPT-题"},
                       adjustment=Adjustment(points=4, by="KEPT-by", why="KEPT-why", at="2025-01-01T00:00:00",
                                             own_score=2)),
        ExerciseResult(id="mask", title="KEPT-mask", statement="KEPT-statement",
                       checks=(_check("d", "error", 0, 1), _check("e", "failed", 0, 1)),
                       titles={"en": "KEPT-mask", "zh": "KEPT-掩码"},
                       statements={"en": "KEPT-statement", "zh": "KEPT-题"}),
        ExerciseResult(id="device", title="KEPT-device", statement="KEPT-statement",
                       checks=(_check("f", "skipped", 0, 0),), titles={"en": "KEPT-device", "zh": "KEPT-设备"},
                       statements={"en": "KEPT-statement", "zh": "KEPT-题"}),
    )
    submission = SubmissionInfo(path="KEPT-ann.py", sha256="0" * 64, kind="py", files=("KEPT-ann.py", "KEPT-b.py"),
                                left_out={"count": 1, "names": ["SECRET-left-out"], "max_files": 1, "max_mib": 1},
                                header="SECRET-header")
    return RunResult(grader_version="9.9", seed=7, lang="en", started_at="2025-01-01T00:00:00+00:00", duration_s=1.5,
                     submission=submission, cells=(cell,), exercises=exercises, protections=("KEPT-protection",),
                     output_tail="SECRET-output", cell_counts={"ok": 3, "raised": 2}, budget_s=60, cells_s=0.5,
                     self_check=True)


def test_the_fixture_fills_every_field() -> None:
    run = full_run()
    objects = [run, run.submission, *run.cells, run.exercises[0], *(c for e in run.exercises for c in e.checks)]
    for obj in objects:
        for spec in dataclasses.fields(obj):
            default = spec.default_factory() if spec.default_factory is not dataclasses.MISSING else spec.default
            if default is not dataclasses.MISSING:
                assert getattr(obj, spec.name) != default, f"{type(obj).__name__}.{spec.name} left at its default"


@pytest.mark.parametrize("policy", ["score", "verdicts"])
def test_withheld_keeps_no_secret_in_any_output(policy: str) -> None:
    run = full_run()
    seen = withheld(run, policy)  # type: ignore[arg-type]
    as_json = json.dumps(to_json(seen), ensure_ascii=False)
    assert "SECRET" in json.dumps(to_json(run), ensure_ascii=False)  # the fixture holds them
    assert "SECRET" not in as_json
    assert "SECRET" not in html.render(seen)
    shown = for_students(run, policy)  # type: ignore[arg-type]
    visible = [t for t in gradescope.results(shown, "en")["tests"] if t["visibility"] == "visible"]
    assert visible and "SECRET" not in json.dumps(visible, ensure_ascii=False)
    assert "SECRET" not in gradescope.results(shown, "en")["output"]
    # what grading was, and the points, stay
    assert (seen.score, seen.max_score) == (run.score, run.max_score) == (4 + 0 + 0, 5 + 2 + 0)
    assert [e.adjustment for e in seen.exercises] == [e.adjustment for e in run.exercises]
    assert (seen.seed, seen.grader_version, seen.protections, seen.submission.files, seen.self_check) == \
        (run.seed, run.grader_version, run.protections, run.submission.files, run.self_check)
    assert (seen.cells, seen.output_tail, seen.cell_counts, seen.submission.left_out, seen.submission.header) == \
        ((), "", {}, {}, "")


def test_verdicts_keep_each_checks_title_status_and_points() -> None:
    run = full_run()
    seen = withheld(run, "verdicts")
    for exercise, shown in zip(run.exercises, seen.exercises):
        assert [(c.id, c.titles, c.status, c.score, c.max_score) for c in exercise.checks] == \
            [(c.id, c.titles, c.status, c.score, c.max_score) for c in shown.checks]
        assert all(c.messages == NOTE and c.message == NOTE["en"] and c.evidence == {} and
                   c.message_key == "release.withheld" for c in shown.checks)


def test_score_collapses_each_exercise_into_its_points() -> None:
    seen = withheld(full_run(), "score")
    assert [[(c.title, c.status, c.score, c.max_score) for c in e.checks] for e in seen.exercises] == [
        [(ALL_CHECKS, "failed", 2, 5)],  # a failure beside a pass and a skip
        [(ALL_CHECKS, "error", 0, 2)],  # a grader fault first: it is ours, to regrade
        [(ALL_CHECKS, "skipped", 0, 0)],
    ]
    assert seen.exercises[0].score == 4  # the adjusted score carries over
    assert "KEPT-title" not in json.dumps(to_json(seen), ensure_ascii=False)



def _summary_cells(page: str) -> list[str]:
    """The English text of the page's summary column of checks (the second cell of each exercise's row)."""
    table = page.split('<table class="summary">', 1)[1].split("</table>", 1)[0]
    rows = re.findall(r"<tr><th scope=\"row\">.*?</th>\s*<td>(.*?)</td>", table, re.S)
    return [" ".join(re.findall(r'<span lang="en">(.*?)</span>', row)) for row in rows]


def test_a_collapsed_exercise_counts_no_checks_on_the_page() -> None:
    """Under `score` the summary says the details come later; it does not count the one collapsed check, which
    read "0 of 1 checks passed" to a student with 4 points of 5. Under `verdicts` each check still counts."""
    assert _summary_cells(html.render(withheld(full_run(), "score"))) == [NOTE["en"]] * 3
    assert _summary_cells(html.render(withheld(full_run(), "verdicts"))) == [
        "2 of 3 checks passed", "0 of 2 checks passed", "1 of 1 checks passed"]


def test_a_page_rendered_again_from_the_gradebook_says_what_the_first_said() -> None:
    """`grade export` and `grade release` render pages from the JSON the gradebook keeps (times in ms): a run
    that took 0.15004 s once read "0.2 s" on its first page and "0.1 s" on every later one."""
    run = dataclasses.replace(full_run(), duration_s=0.15004, cells_s=0.05004)
    again = from_json(json.loads(json.dumps(to_json(run))))
    assert again == run
    assert html.render(again) == html.render(run)

def test_everything_is_the_run_itself_and_a_policy_is_checked() -> None:
    run = full_run()
    assert withheld(run, "everything") is run
    with pytest.raises(ValueError):
        withheld(run, "some")  # type: ignore[arg-type]
    assert POLICIES == ("score", "verdicts", "everything")


# -- the gradebook's setting ------------------------------------------------------------------------------------


def test_merge_keeps_the_policy_that_shows_least(tmp_path: Path) -> None:
    shards = [tmp_path / name / FILENAME for name in ("a", "b", "c")]
    for path, policy, released in zip(shards, ("verdicts", "score", None), (True, False, False)):
        path.parent.mkdir()
        with Gradebook(path) as book:
            release.choose(book, policy)  # type: ignore[arg-type]
            if released:
                release.release(book)
    with Gradebook(tmp_path / FILENAME) as book:
        release.adopt(book, shards)
        assert release.read(book) == release.Release("score", released=False, stored=True)
        assert release.read(book).shown == "score"
    with Gradebook(tmp_path / "fresh.sqlite") as book:
        release.adopt(book, [shards[0], shards[2]])
        assert release.read(book).shown == "everything"  # the only shard with a policy was released


# -- grade batch, grade release, grade export ---------------------------------------------------------------


def make_class(folder: Path) -> None:
    """ann full marks; bob fails two checks of 3.1 (a message, evidence and an excerpt of his code); carl's
    answers are right, but his code prints and one statement raises."""
    write(folder / "ann.py", SOLUTION.read_text(encoding="utf-8"))
    write(folder / "bob.py", mutant(mutations.SA_BUGS, "missing_transpose"))
    write(folder / "carl.py", SOLUTION.read_text(encoding="utf-8")
          + f"\nprint({PRINTED!r})\nraise ValueError({RAISED!r})\n")


def page(outdir: Path, student: str) -> str:
    return (outdir / page_name(student)).read_text(encoding="utf-8")


def full_runs(outdir: Path) -> dict[str, RunResult]:
    with Gradebook(outdir / FILENAME) as book:
        return {e.student: e.run for e in book.latest() if e.run is not None}


def secrets_of(run: RunResult) -> list[str]:
    """What the full page says about bob's failed checks, in both languages, as the page escapes it."""
    return [str(escape(text)) for e in run.exercises for c in e.checks if c.status == "failed"
            for text in c.messages.values()]


def gradescope_export(outdir: Path) -> dict[str, dict[str, Any]]:
    proc = grade_command("export", outdir, "--format", "gradescope")
    assert proc.returncode == 0, proc.stderr
    return {path.stem: valid(json.loads(path.read_text(encoding="utf-8"))) for path in (outdir / "gradescope").iterdir()}


def test_pages_before_release_hold_what_the_policy_shows_and_release_writes_them_in_full(tmp_path: Path) -> None:
    make_class(tmp_path / "class")
    outdir = tmp_path / "out"
    proc = grade_command("batch", tmp_path / "class", "-e", "3.1", "-o", outdir, "-j", "3",
                         "--before-release", "verdicts")
    assert proc.returncode == 0, proc.stderr
    assert catalogue.text("release.kept", "en", policy="verdicts", path=outdir) in proc.stdout
    runs = full_runs(outdir)
    bob, carl = runs["bob"], runs["carl"]
    hidden = secrets_of(bob)
    assert len(hidden) == 4  # two failed checks, two languages

    # verdicts: the score, each check's title and status, nothing of why
    shown = page(outdir, "bob")
    assert "Score: 0 / 10" in shown and NOTE["en"] in shown  # 3 / 10 before issue 49 and NOTE["zh"] in shown
    assert all(str(escape(c.titles["en"])) in shown for c in bob.exercises[0].checks)
    assert not [text for text in hidden if text in shown]
    assert EXCERPT not in shown and "mat1 and mat2" not in shown
    assert PRINTED not in page(outdir, "carl") and RAISED not in page(outdir, "carl")
    data = gradescope_export(outdir)
    assert {t["visibility"] for t in data["bob"]["tests"] if "(details)" not in t["name"]} == {"visible"}
    assert not [t for t in data["bob"]["tests"] if t["visibility"] == "visible" and t["output"] != NOTE["en"]]
    assert len([t for t in data["bob"]["tests"] if t["visibility"] == "after_published"]) == 3
    assert "mat1 and mat2" in json.dumps([t for t in data["bob"]["tests"] if t["visibility"] == "after_published"])
    carl_sees = json.dumps([data["carl"]["output"], *(t for t in data["carl"]["tests"] if t["visibility"] == "visible")])
    assert data["bob"]["score"] == 0 and PRINTED not in carl_sees and RAISED not in carl_sees
    other = tmp_path / "exported"
    assert grade_command("export", outdir, "--format", "html", "-o", other).returncode == 0
    assert not [text for text in hidden if text in page(other, "bob")]
    # a late hand-in, graded by a run not given the option: the stored policy holds for the worker's page
    shutil.copy(tmp_path / "class" / "bob.py", tmp_path / "class" / "dan.py")
    proc = grade_command("batch", tmp_path / "class", "-e", "3.1", "-o", outdir)
    assert proc.returncode == 0 and re.search(r"graded now\s+1\n", proc.stdout), proc.stdout
    dan = secrets_of(full_runs(outdir)["dan"])
    assert len(dan) == 4 and "Score: 0 / 10" in page(outdir, "dan")
    assert not [text for text in dan if text in page(outdir, "dan")] and EXCERPT not in page(outdir, "dan")
    index = (outdir / "index.html").read_text(encoding="utf-8")

    # score, set by a run that grades nothing: every page written again, only the points left
    proc = grade_command("batch", tmp_path / "class", "-e", "3.1", "-o", outdir, "--before-release", "score")
    assert proc.returncode == 0, proc.stderr
    shown = page(outdir, "bob")
    assert "Score: 0 / 10" in shown and "0 / 10 points" in shown and ALL_CHECKS in shown
    assert not [c.titles["en"] for c in bob.exercises[0].checks if str(escape(c.titles["en"])) in shown]
    assert not [text for text in hidden if text in shown]
    tests = gradescope_export(outdir)["bob"]["tests"]
    assert [(t["visibility"], t["score"], t["max_score"]) for t in tests if t["visibility"] == "visible"] == \
        [("visible", 0, 10)]
    assert len([t for t in tests if t["visibility"] == "after_published" and "score" not in t]) == 3

    # release: every page in full, from the gradebook; the instructor's index was whole all along
    proc = grade_command("release", outdir)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == catalogue.text("release.done", "en", count=4, path=outdir / "pages")
    shown = page(outdir, "bob")
    assert shown == html.render(bob)
    assert all(text in shown for text in hidden) and EXCERPT in shown
    assert page(outdir, "carl") == html.render(carl)
    assert PRINTED in page(outdir, "carl") and RAISED in page(outdir, "carl")
    assert (outdir / "index.html").read_text(encoding="utf-8") == index
    data = gradescope_export(outdir)
    assert {t["visibility"] for d in data.values() for t in d["tests"]} == {"visible"}
    assert data["bob"] == valid(gradescope.results(bob, "en"))
    assert grade_command("export", outdir, "--format", "html", "-o", other).returncode == 0
    assert page(other, "bob") == html.render(bob)
    # a later run keeps it released, whatever it is given
    proc = grade_command("batch", tmp_path / "class", "-e", "3.1", "-o", outdir, "--before-release", "score")
    assert proc.returncode == 0 and "grade release" not in proc.stdout
    assert page(outdir, "bob") == html.render(bob)


def test_everything_is_the_page_as_it_always_was(tmp_path: Path) -> None:
    make_class(tmp_path / "class")
    (tmp_path / "class" / "ann.py").unlink()
    outdir = tmp_path / "out"
    proc = grade_command("batch", tmp_path / "class", "-e", "3.1", "-o", outdir, "-j", "2")
    assert proc.returncode == 0, proc.stderr
    runs = full_runs(outdir)
    assert page(outdir, "bob") == html.render(runs["bob"]) and page(outdir, "carl") == html.render(runs["carl"])
    assert all(text in page(outdir, "bob") for text in secrets_of(runs["bob"]))
    with Gradebook(outdir / FILENAME) as book:
        assert release.read(book) == release.Release()  # nothing stored: a gradebook as before
    data = gradescope_export(outdir)
    assert data["bob"] == valid(gradescope.results(runs["bob"], "en"))
    assert {t["visibility"] for t in data["bob"]["tests"]} == {"visible"}


def test_release_without_a_gradebook_is_one_line_and_exit_2(tmp_path: Path) -> None:
    proc = grade_command("release", tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip() == "grade: " + catalogue.text("batch.no_gradebook", "en", path=tmp_path)


# -- grade gradescope and grade ci ---------------------------------------------------------------------------


@pytest.mark.parametrize("policy", POLICIES)
def test_gradescope_maps_the_policy_onto_visibility(tmp_path: Path, launcher: ZygoteLauncher, policy: str) -> None:
    submission, results_dir = _dirs(tmp_path)
    (submission / "chapter3.py").write_text(mutant(mutations.SA_BUGS, "missing_transpose"), encoding="utf-8")
    _, data = _gradescope(launcher, submission, results_dir, "-e", "3.1", "--lang", "en", "--before-release", policy)
    visible = [t for t in data["tests"] if t["visibility"] == "visible"]
    later = [t for t in data["tests"] if t["visibility"] == "after_published"]
    # 3 / 10 before 3.1's given classes earned nothing (issue 49)
    assert data["score"] == sum(t["score"] for t in visible) == 0 and data["output"].startswith("Total: 0 / 10")
    if policy == "everything":
        assert len(visible) == 3 and not later and "mat1 and mat2" in json.dumps(visible)
        return
    assert {t["output"] for t in visible} == {NOTE["en"]}
    assert [t["name"] for t in visible] == ([f"3.1 · {ALL_CHECKS}"] if policy == "score" else
                                            [t["name"].removesuffix(" (details)") for t in later])
    assert len(later) == 3 and all("score" not in t and "max_score" not in t for t in later)
    assert "mat1 and mat2" in json.dumps(later)


def test_ci_config_before_release_withholds_every_output(tmp_path: Path, launcher: ZygoteLauncher) -> None:
    repo = course(tmp_path, {"chapter3/answers.py": mutant(mutations.SA_BUGS, "missing_transpose")})
    set_config(repo, exercises='["3.1"]', before_release='"verdicts"')
    result = grade_ci(repo, "--junit", tmp_path / "junit.xml", launcher=launcher)
    assert result.code == 1, result.stderr
    page_text = (repo / "grader-pages" / "answers.html").read_text(encoding="utf-8")
    outputs = [result.stdout, result.summary, (tmp_path / "junit.xml").read_text(encoding="utf-8"), page_text]
    assert not [i for i, text in enumerate(outputs) if "mat1 and mat2" in text or "without .T" in text]
    assert NOTE["en"] in page_text and "0 / 10" in page_text  # 3 / 10 before issue 49


def test_ci_config_refuses_an_unknown_policy(tmp_path: Path) -> None:
    config = tmp_path / "grader.toml"
    config.write_text('files = ["*.py"]\nbefore_release = "later"\n', encoding="utf-8")
    with pytest.raises(ci.ConfigError) as raised:
        ci.load_config(config)
    assert raised.value.key == "ci.config.bad_before_release"
    config.write_text('files = ["*.py"]\nbefore_release = "score"\n', encoding="utf-8")
    assert ci.load_config(config).before_release == "score"
