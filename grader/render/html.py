"""The self-contained feedback page (inline CSS, no network), from a Jinja2 template with autoescape on."""
from __future__ import annotations

from jinja2 import Environment, PackageLoader, select_autoescape

from grader import catalogue
from grader.render.text import cell_problem, clean
from grader.results import RunResult

_ENV = Environment(
    loader=PackageLoader("grader.render", "templates"),
    autoescape=select_autoescape(default=True, default_for_string=True),
    trim_blocks=True,
    lstrip_blocks=True,
)
_ENV.filters["clean"] = clean


def render(run: RunResult) -> str:
    lang = run.lang

    def t(key: str, **args: object) -> str:
        return catalogue.text(key, lang, **args)

    problems = [cell_problem(r.cell, r.status, r.error, lang) for r in run.cells if r.status != "ok"]
    return _ENV.get_template("feedback.html.j2").render(run=run, t=t, cell_problems=problems)
