"""The class views of a gradebook: the grades spreadsheet, every result as a JSON line, the overview page.

Each reads the gradebook's entries (the current result per student) and nothing else, so an instructor
can rewrite all three from the gradebook without grading again. The overview page is built like the
feedback page (grader.render.html), from its environment and partials: one file, inline CSS and SVG, no
script, nothing fetched, every sentence in every language, everything a student chose (a name, a file
name) autoescaped and cleaned.
"""
from __future__ import annotations

import json
import math
import statistics
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from grader.messages import catalogue
from grader.messages.catalogue import Msg
from grader.render import html, similar
from grader.render.mistakes import AffectedStudent, check_href, common_mistakes
from grader.outputs.names import page_name
from grader.outputs.safe_text import csv_text, json_text
from grader.results import CheckResult, Entry, ExerciseResult, LeftOut, LookAlike, RunResult, to_json
from grader.results import percent as score_percent

LEFT_OUT_STATUS = "left out"  # grades.csv's and results.jsonl's status of a hand-in that has no result
BINS = 10  # the histogram's bins, each ten points of percent wide; the last one holds 100
BAR_PX, GAP_PX, PLOT_PX = 44, 8, 140  # a bar's width, the space between bars, the tallest bar
LEFT_PX, TOP_PX, BOTTOM_PX = 44, 20, 44  # room for the y axis, the top bar's count, the bin labels and x axis


# -- the spreadsheet and the JSON lines ----------------------------------------------------------------
def grades_csv(entries: Sequence[Entry], left_out: Sequence[LeftOut] = ()) -> str:
    """One row per student: the score of each exercise, the total, the maximum, the status, the exercises
    whose score a person adjusted, and whether the LMS named the hand-in late; their LMS id beside their name
    where the class has ids (two students may share a name). Then a row per hand-in left out, keyed by its
    file, status `left out`: no student of the class silently lacks a row. Every cell goes through
    csv_text: `cat grades.csv` shows a student's file name and a spreadsheet displays it, under any
    separator; neither obeys it."""
    ids = exercise_ids(entries)
    with_ids = any(entry.lms_id for entry in entries)
    header = ("student", *(("lms_id",) if with_ids else ()), *ids, "total", "max_score", "status", "adjusted", "late")
    rows = [_grades_row(entry, ids, with_ids) for entry in entries]
    rows += [(item.path, *(("",) if with_ids else ()), *("" for _ in ids), "", "", LEFT_OUT_STATUS, "", "")
             for item in left_out if item.hand_in]
    return csv_text([header, *rows])


def _grades_row(entry: Entry, ids: Sequence[str], with_ids: bool) -> tuple[str, ...]:
    scores = {e.id: decimal(e.score) for e in entry.run.exercises} if entry.run else {}
    return (entry.student, *((entry.lms_id,) if with_ids else ()), *(scores.get(i, "") for i in ids),
            decimal(entry.score), decimal(entry.max_score), entry.status,
            "; ".join(map(adjusted_note, entry.run.adjusted if entry.run else ())), "yes" if entry.late else "no")


def adjusted_note(exercise: ExerciseResult) -> str:
    """An adjusted exercise as grades.csv lists it: its id, and the grader's own score then and now where a
    regrade changed it since the adjustment."""
    then = exercise.adjustment.own_score if exercise.adjustment else exercise.own_score
    if math.isclose(then, exercise.own_score, abs_tol=1e-9):
        return exercise.id
    return f"{exercise.id} (own score {decimal(then)} when adjusted, {decimal(exercise.own_score)} now)"


def results_jsonl(entries: Sequence[Entry], left_out: Sequence[LeftOut] = (),
                  json_of: Callable[[RunResult], dict[str, Any]] = to_json) -> str:
    """Every entry in full, one JSON object a line, for tools that want more than the spreadsheet; then a
    line per hand-in left out (status `left out`, its file and why). `json_of`: each run's JSON form, as to_json
    writes it (a gradebook has it already, grader.classes.gradebook.Gradebook.json_of)."""
    lines = [_result_line(entry, json_of) for entry in entries]
    lines += [{"status": LEFT_OUT_STATUS, "path": item.path,
               "problem": {"key": item.reason.key, "args": item.reason.args, "messages": problem_messages(item.reason)}}
              for item in left_out if item.hand_in]
    return "".join(json_text(line) + "\n" for line in lines)


def _result_line(entry: Entry, json_of: Callable[[RunResult], dict[str, Any]]) -> dict[str, Any]:
    return {
        "student": entry.student,
        **({"lms_id": entry.lms_id} if entry.lms_id else {}),
        "exercise_set": entry.exercise_set,
        "status": entry.status,
        "score": entry.score,
        "max_score": entry.max_score,
        "sha256": entry.sha256,
        "grader_version": entry.grader_version,
        "files": list(entry.files),
        "graded_at": entry.graded_at,
        "page": page_name(entry.label),
        "problem": {"key": entry.problem.key, "args": entry.problem.args,
                    "messages": problem_messages(entry.problem)} if entry.problem else None,
        "result": json_of(entry.run) if entry.run else None,
    }


def decimal(value: float) -> str:
    """A score as people write it: 10, 7.5."""
    return f"{value:.6f}".rstrip("0").rstrip(".")


def exercise_ids(entries: Sequence[Entry]) -> list[str]:
    """Every exercise graded in the class, in the order the runs list them."""
    ids = {e.id: None for entry in entries if entry.run for e in entry.run.exercises}
    return list(ids)


def problem_messages(problem: Msg) -> dict[str, str]:
    """Why a submission has no run, in every language. A gradebook can outlive the grader that wrote it
    (a merged shard, an older version), so a reason this catalogue lacks is still shown, by its key."""
    if catalogue.has(problem.key):
        return catalogue.every_lang(lambda lang: catalogue.text(problem.key, lang, **problem.args))
    args = json.dumps(problem.args, ensure_ascii=False)
    return catalogue.every_lang(lambda lang: catalogue.text("index.problem_unlisted", lang, why=problem.key,
                                                            args=args))


# -- what the overview page shows ----------------------------------------------------------------------
@dataclass(frozen=True)
class Summary:
    students: int
    graded: int
    full_marks: int
    ungradable: int
    errors: int
    mean: float | None  # percent, over the graded
    median: float | None
    exercise_sets: str
    versions: str


@dataclass(frozen=True)
class Bar:
    low: int  # percent
    high: int
    count: int
    x: float
    y: float
    height: float


@dataclass(frozen=True)
class Histogram:
    bars: tuple[Bar, ...]
    bar_width: float
    width: float
    height: float
    top: float  # where the plot starts and ends, in SVG units
    bottom: float
    left: float
    right: float
    tallest: int


@dataclass
class CheckRate:
    """How the class did on one check: the students it was not skipped for, and who passed."""

    exercise: str
    check: str
    title: str
    titles: dict[str, str]
    passed: int = 0
    attempted: int = 0
    failed: list[AffectedStudent] = field(default_factory=list)  # who, with a link to the check on their page

    @property
    def rate(self) -> float | None:
        return self.passed / self.attempted if self.attempted else None


@dataclass(frozen=True)
class RosterRow:
    entry: Entry
    href: str  # the student's page, or where the page says why there is none
    percent: float | None
    failure: tuple[ExerciseResult, CheckResult] | None


def index_html(entries: Sequence[Entry], lang: str, look_alike: LookAlike | None = None,
               left_out: Sequence[LeftOut] = ()) -> str:
    """The class overview, OUTDIR/index.html, opened in `lang` and switchable to every other language;
    with `look_alike` (grade similar), also the submissions that are unusually alike. What the run left out
    is listed with its reason: the hand-ins among the problems, any other file apart."""
    problems = [entry for entry in entries if entry.status != "graded" or entry.run is None]
    anchors = {id(entry): f"#problem-{n}" for n, entry in enumerate(problems, 1)}
    roster = [RosterRow(entry, page_name(entry.label) if entry.run else anchors[id(entry)], percent(entry),
                        first_failure(entry.run) if entry.run else None) for entry in entries]
    return html.ENV.get_template("index.html.j2").render(
        lang=lang, t=lambda key, **args: catalogue.text(key, lang, **args),
        summary=summarise(entries), histogram=histogram(entries), rates=check_rates(entries),
        mistakes=common_mistakes(entries), look_alike=look_alike, pair_page=similar.pair_page, share=similar.percent,
        problems=problems, roster=roster, problem_messages=problem_messages, pct=shown_percent,
        left_out=[item for item in left_out if item.hand_in],
        other_files=[item for item in left_out if not item.hand_in],
    )


def graded_runs(entries: Sequence[Entry]) -> list[RunResult]:
    return [entry.run for entry in entries if entry.status == "graded" and entry.run]


def percent(entry: Entry) -> float | None:
    """The score as percent of the maximum; a run worth nothing (every check skipped) lost nothing."""
    if entry.status != "graded" or entry.run is None:
        return None
    return score_percent(entry.score, entry.max_score)


def shown_percent(value: float | None) -> str:
    return "—" if value is None else f"{round(value, 1):g}%"


def summarise(entries: Sequence[Entry]) -> Summary:
    scores = [p for p in map(percent, entries) if p is not None]
    return Summary(
        students=len(entries),
        graded=len(scores),
        full_marks=sum(run.full_marks for run in graded_runs(entries)),
        ungradable=sum(entry.status == "ungradable" for entry in entries),
        errors=sum(entry.status == "error" for entry in entries),
        mean=statistics.fmean(scores) if scores else None,
        median=statistics.median(scores) if scores else None,
        exercise_sets=", ".join(dict.fromkeys(entry.exercise_set for entry in entries)),
        versions=", ".join(dict.fromkeys(entry.grader_version for entry in entries)),
    )


def score_bin(value: float) -> int:
    """0-10 is bin 0, ..., 90-100 (100 included) is bin 9; a bin's lower edge belongs to it, so 70 % is
    in 70-80, even when float arithmetic makes it 69.99999999999999."""
    return min(BINS - 1, math.floor(value / (100 / BINS) + 1e-9))


def histogram(entries: Sequence[Entry]) -> Histogram:
    counts = [0] * BINS
    for value in map(percent, entries):
        if value is not None:
            counts[score_bin(value)] += 1
    tallest = max(max(counts), 1)
    width = 100 // BINS
    bars = []
    for n, count in enumerate(counts):
        height = PLOT_PX * count / tallest
        bars.append(Bar(low=n * width, high=(n + 1) * width, count=count, x=LEFT_PX + GAP_PX + n * (BAR_PX + GAP_PX),
                        y=TOP_PX + PLOT_PX - height, height=height))
    right = LEFT_PX + GAP_PX + BINS * (BAR_PX + GAP_PX)
    return Histogram(bars=tuple(bars), bar_width=BAR_PX, width=right + GAP_PX, height=TOP_PX + PLOT_PX + BOTTOM_PX,
                     top=TOP_PX, bottom=TOP_PX + PLOT_PX, left=LEFT_PX, right=right, tallest=max(counts))


def check_rates(entries: Sequence[Entry]) -> list[CheckRate]:
    """Every check's pass rate, hardest first: what the class struggles with. A skipped check (no GPU)
    and a grader error are not the student's attempt, so they count as neither passed nor attempted;
    checks nobody attempted come last."""
    rates: dict[tuple[str, str], CheckRate] = {}
    check_order: dict[tuple[str, str], int] = {}
    for entry in entries:
        if entry.status != "graded" or entry.run is None:
            continue
        for exercise in entry.run.exercises:
            for n, result in enumerate(exercise.checks):
                key = (exercise.id, result.id)
                rate = rates.setdefault(key, CheckRate(exercise.id, result.id, result.title, result.titles))
                check_order.setdefault(key, n)
                if result.status in ("passed", "failed"):
                    rate.attempted += 1
                    rate.passed += result.status == "passed"
                if result.status == "failed":
                    rate.failed.append(AffectedStudent(entry.label, check_href(entry.label, exercise.id, result.id)))
    exercise_order = {exercise: n for n, exercise in enumerate(exercise_ids(entries))}
    return sorted(rates.values(), key=lambda r: (r.rate is None, r.rate or 0.0, exercise_order[r.exercise],
                                                 check_order[r.exercise, r.check]))


def first_failure(run: RunResult) -> tuple[ExerciseResult, CheckResult] | None:
    """Where a student's feedback starts being worth reading: the first check that did not pass (a grader
    error included, shown as ours), or None exactly when the run has full marks."""
    return next(((exercise, result) for exercise in run.exercises for result in exercise.checks
                 if result.status in ("failed", "error")), None)
