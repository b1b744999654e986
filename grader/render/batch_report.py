"""What `grade batch` tells the instructor in the terminal: a progress line while it runs (only on a
terminal: a log or a CI job gets no carriage returns) and a summary table at the end."""
from __future__ import annotations

import time
from typing import TextIO

from grader.messages import catalogue
from grader.render.terminal import ljust, width
from grader.outputs.safe_text import one_line

BAR = 24


class Progress:
    def __init__(self, stream: TextIO, enabled: bool) -> None:
        self.stream, self.wanted = stream, enabled
        self.total = self.done = 0
        self.enabled = False
        self.started = time.monotonic()

    def start(self, total: int) -> None:
        self.total, self.enabled = total, self.wanted and total > 0
        self.started = time.monotonic()

    def step(self) -> None:
        self.done += 1
        if not self.enabled:
            return
        elapsed = max(time.monotonic() - self.started, 1e-6)
        rate = self.done / elapsed
        eta = (self.total - self.done) / rate
        filled = BAR * self.done // self.total
        self.stream.write(f"\r{self.done:>{len(str(self.total))}}/{self.total} "
                          f"[{'#' * filled}{'.' * (BAR - filled)}] {rate:5.1f}/s  ETA {eta:4.0f} s ")
        self.stream.flush()

    def finish(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()


def summary(counts: dict[str, float], index: str, lang: str) -> str:
    """The table printed when a batch ends: each count on its own labelled line, then where to look."""
    rows = [(catalogue.text(f"batch.count.{name}", lang), value) for name, value in counts.items()]
    columns = max(width(label) for label, _ in rows)
    lines = [f"{ljust(label, columns)}  {value:g}" for label, value in rows]
    lines.append(catalogue.text("batch.index", lang, path=one_line(index)))
    return "\n".join(lines)

