"""What `grade batch` prints: a progress line only on a terminal, and the summary table."""
from __future__ import annotations

import io

from grader.render.batch_report import Progress, summary


def test_progress_shows_count_rate_and_eta_on_a_terminal() -> None:
    stream = io.StringIO()
    progress = Progress(stream, enabled=True)
    progress.start(4)
    for _ in range(2):
        progress.step()
    progress.finish()
    last = stream.getvalue().split("\r")[-1]
    assert last.startswith("2/4 [") and "/s" in last and "ETA" in last
    assert last.count("#") == 12 and last.endswith("\n")


def test_progress_is_silent_off_a_terminal() -> None:
    stream = io.StringIO()
    progress = Progress(stream, enabled=False)
    progress.start(4)
    progress.step()
    progress.finish()
    assert stream.getvalue() == ""


def test_summary_aligns_labels_in_both_languages() -> None:
    counts = {"students": 20, "graded": 18, "ungradable": 2, "rate": 9.5}
    english = summary(counts, "out/index.html", "en").splitlines()
    assert english[0].split() == ["students", "20"] and english[-1] == "class overview: out/index.html"
    assert len({line.rindex(" ") for line in english[:-1]}) == 1  # the numbers start in one column
    chinese = summary(counts, "out/index.html", "zh").splitlines()
    assert chinese[0].startswith("学生") and chinese[0].endswith("20")
