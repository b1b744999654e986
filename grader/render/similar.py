"""Look-alike pairs for the instructor: a section of the class overview and a side-by-side page per pair.

The words are chosen not to accuse: two submissions are "unusually alike, worth a look", with the
score and the threshold it passed, and the page shows the passages they share beside each other so
the instructor judges. Code the class was given was never counted (grader.classes.similarity) and is not
highlighted. Like the other class pages: one file, inline CSS, no script, every sentence in every
language, every name and line of code autoescaped and cleaned.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from grader.messages import catalogue
from grader.render import html
from grader.outputs.names import page_name
from grader.results import LookAlike, Pair

FOLDER = "similar"


@dataclass(frozen=True)
class SharedLine:
    number: int
    text: str
    shared: bool


def pair_page(pair: Pair) -> str:
    """The pair's page inside the output folder."""
    return f"{FOLDER}/{Path(page_name(pair.a)).stem}--{Path(page_name(pair.b)).stem}.html"


def percent(value: float) -> str:
    return f"{round(100 * value)}%"


def side(code: str, shared: frozenset[int]) -> list[SharedLine]:
    return [SharedLine(n, text, n in shared) for n, text in enumerate(code.splitlines(), start=1)]


def pair_html(pair: Pair, codes: Mapping[str, str], threshold: float, lang: str) -> str:
    return html.ENV.get_template("similar_pair.html.j2").render(
        lang=lang, t=lambda key, **args: catalogue.text(key, lang, **args), pair=pair, pct=percent,
        threshold=threshold, left=side(codes[pair.a], pair.lines_a), right=side(codes[pair.b], pair.lines_b),
        page_of=lambda student: f"../{page_name(student)}",
    )


def terminal_lines(found: LookAlike, lang: str, shown: int = 10) -> Sequence[str]:
    """The most alike pairs, for the terminal: the same words as the page."""
    return [catalogue.text("similar.terminal_pair", lang, a=pair.a, b=pair.b, score=percent(pair.score),
                           threshold=percent(found.threshold)) for pair in found.pairs[:shown]]
