"""The self-contained feedback page: one file, inline CSS and SVG, no script, no network.

Every sentence is on the page in every catalogue language, each in an element with its `lang`, and
two radio inputs with CSS pick the one shown, so the switch works with JavaScript off. Jinja2
autoescapes, and every value printed also passes through `clean` (the environment's finalize), so
nothing the submission printed or raised reaches the page as markup or terminal control.
"""
from __future__ import annotations

import math
import secrets
from typing import Any, Sequence

from jinja2 import Environment, select_autoescape
from markupsafe import Markup

from grader.messages import catalogue
from grader.messages.catalogue import Msg
from grader.render import compiled, figures, source
from grader.outputs.safe_text import clean
from grader.render.text import left_out, odd_header, problem_cells, problem_line, self_check
from grader.results import RunResult, frames_of, shares, where
from grader.results.release import WITHHELD, collapsed

KIND_MARKS = {"differs": "≠", "extra": "+", "missing": "−"}


# The templates a feedback page is made of. Loading them (grader.render.compiled) is ~0.02 s: `prepare` does it while
# the submission runs, and a batch's parent before it forks its judges, which inherit them.
PAGE = ("feedback.html.j2", "_parts.html.j2", "_style.css.j2", "_palette.css.j2", "_components.css.j2")


def prepare() -> None:
    """Compile the page's templates (the environment keeps them), so that the first page renders at once."""
    for name in PAGE:
        ENV.get_template(name)


def render(run: RunResult) -> str:
    """The whole page, every language on it."""
    return ENV.get_template("feedback.html.j2").render(**_context(run, catalogue.LANGS))


def fragment(run: RunResult) -> str:
    """The result under a notebook cell (grader.integrations.jupyter): the run's language only, its anchors its own,
    since a notebook may show several results on one page, and first the self-check banner when the
    kernel's own judge graded it."""
    return ENV.get_template("inline.html.j2").render(
        **_context(run, (run.lang,)), anchor=f"grade-{secrets.token_hex(4)}-", self_check=self_check(run, run.lang))


def _context(run: RunResult, langs: Sequence[str]) -> dict[str, Any]:
    lang = run.lang

    def t(key: str, **args: object) -> str:
        return catalogue.text(key, lang, **args)

    def quote(evidence: dict[str, Any]) -> source.Excerpt | None:
        return source.for_check(run.cells, evidence)

    def place(cell: int, line: int | None = None) -> Msg:
        return where(next((c for c in run.cells if c.cell == cell), None), cell, line)

    records, chain = problem_cells(run)
    problems = [
        (record, catalogue.every_lang(lambda each: problem_line(record, chain, each)), source.for_cell(record))
        for record in records
    ]
    notes = catalogue.every_lang(lambda each: left_out(run, each))
    header = catalogue.every_lang(lambda each: odd_header(run, each))
    return {"run": run, "t": t, "quote": quote, "place": place, "cell_problems": problems, "left_out": notes,
            "odd_header": header,
            "langs": langs, **figure_places(run)}


def figure_places(run: RunResult) -> dict[str, Any]:
    """Where each check's pictures are drawn (once a page: figures.place_figures), and the check titles a
    pointer to another check's picture names."""
    checks = [(e.id, c.id, c.status, c.evidence) for e in run.exercises for c in e.checks]
    titles = {(e.id, c.id): catalogue.every_lang(lambda each: catalogue.pick(c.titles or {"en": c.title}, each))
              for e in run.exercises for c in e.checks}
    return {"figures_placed": figures.place_figures(checks), "check_titles": titles}


def number(value: float | None) -> str:
    if value is None:
        return "—"
    return "NaN" if math.isnan(value) else f"{value:.6g}"


def gap(value: float | None) -> str:
    if value is None:
        return "—"
    return "∞" if math.isinf(value) else f"{value:.3g}"


def shape(value: list[int] | None) -> str:
    return "—" if value is None else "(" + ", ".join(map(str, value)) + ")"


def count(value: int) -> str:
    return f"{value:,}"


def signed(value: int) -> str:
    return f"{value:+,}"


def staircase(size: int) -> str:
    """The border between what row i may see (j <= i) and the future, as an SVG path."""
    c = figures.CELL
    steps = "".join(f" V{(i + 2) * c} H{(i + 3) * c}" for i in range(size - 1))
    return f"M{2 * c},{c}{steps} V{(size + 1) * c}"


def square_glyph(kind: str, x: float, y: float, r: float) -> Markup:
    """What one square of the visibility matrix holds, centred on (x, y), r the half-size of the sign."""
    if kind in ("seen", "blind"):
        return Markup(f'<circle class="glyph" cx="{x}" cy="{y}" r="{r}"/>')
    if kind == "leak":
        return Markup(f'<path class="glyph" d="M{x - r} {y - r}L{x + r} {y + r}M{x + r} {y - r}L{x - r} {y + r}"/>')
    return Markup("")


def matrix_squares(grid: figures.Grid) -> Markup:
    """The visibility matrix's axes and squares, as SVG. Written here, not by the template: a matrix is ~90
    elements, which the template took a third of a mask page's time to write. Numbers and our own kinds only."""
    c = figures.CELL
    parts = [f'<text class="axis" x="{(j + 1.5) * c}" y="{0.65 * c}" text-anchor="middle">{j}</text>\n'
             for j in range(grid.size)]
    parts += [f'<text class="axis" x="{0.5 * c}" y="{(i + 1.65) * c}" text-anchor="middle">{i}</text>\n'
              for i in range(grid.size)]
    parts += [f'<g class="{square.kind}"><rect x="{(square.column + 1) * c}" y="{(square.row + 1) * c}" width="{c}" '
              f'height="{c}"/>\n{square_glyph(square.kind, (square.column + 1.5) * c, (square.row + 1.5) * c, c * 0.2)}'
              '</g>\n' for square in grid.squares]
    return Markup("".join(parts)[:-1])


def protection(name: str) -> dict[str, str]:
    """A protection of the sandbox (RunResult.protections) in plain words, in every language; a name the
    catalogue does not describe (a newer grader's) as it is."""
    key = "page.protection." + ("landlock" if name.startswith("landlock") else name)
    if not catalogue.has(key):
        return {lang: name for lang in catalogue.LANGS}
    return catalogue.every_lang(lambda lang: catalogue.text(key, lang))


def protections(names: Sequence[str]) -> list[dict[str, str]]:
    """The protections described, each description once (two memory caps read alike), in the run's order."""
    seen: list[dict[str, str]] = []
    for name in names:
        described = protection(name)
        if described not in seen:
            seen.append(described)
    return seen


def _finalize(value: Any) -> Any:
    """Markup is the page's own (a macro's output); any other text may come from the submission."""
    return clean(value) if isinstance(value, str) and not isinstance(value, Markup) else value


ENV = Environment(
    loader=compiled.Loader(),  # the templates, from the code compiled.json ships for them where it is current
    autoescape=select_autoescape(default=True, default_for_string=True),
    trim_blocks=True,
    lstrip_blocks=True,
    finalize=_finalize,
)
ENV.globals.update(
    langs=catalogue.LANGS, anchor="", kind_marks=KIND_MARKS,
    bar_px=figures.BREAKDOWN_BAR,
    t_in=lambda lang, key, **args: catalogue.text(key, lang, **args),
    both=lambda key, **args: catalogue.every_lang(lambda lang: catalogue.text(key, lang, **args)),
    frames_of=frames_of, book_reference=source.book_reference,
    time_shares=shares.summary, collapsed=collapsed, withheld=WITHHELD,
    protections=protections, number=number, gap=gap, shape=shape, count=count, signed=signed, staircase=staircase,
    matrix_squares=matrix_squares, square_glyph=square_glyph,
)


if __name__ == "__main__":  # python -m grader.render.html: write compiled.json from the templates as they are now
    compiled.write(ENV)
