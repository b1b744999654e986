"""The templates' code shipped in grader/render/compiled.json (grader.render.compiled): current for every template,
taken where it was written from the template as it is, and never where the template, Jinja or the environment's
settings differ from what it was written from."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from jinja2 import Environment

from grader.render import compiled, html

STYLE = "_style.css.j2"  # a template that renders without a context


def environment(shipped: dict[str, dict[str, str]] | None, **settings: object) -> Environment:
    """The page's environment (its settings, globals and filters) with a loader of its own holding `shipped` as
    compiled.json's content (None: read from the file), and a cache of its own."""
    return html.ENV.overlay(loader=compiled.Loader(shipped), **settings)


def written_as(env: Environment, name: str, source: str) -> str:
    """The code Jinja writes for `source`, as if it were the template `name`."""
    return env.compile(source, name, raw=True)


def test_the_shipped_code_is_current() -> None:
    assert compiled.FILE.read_text(encoding="utf-8") == compiled.text(html.ENV), (
        "a template (or Jinja, or the page's environment) changed since grader/render/compiled.json was written: "
        "run python -m grader.render.html")


def test_every_template_is_shipped() -> None:
    shipped = json.loads(compiled.FILE.read_text(encoding="utf-8"))
    assert set(shipped) == set(html.ENV.list_templates()) and set(html.PAGE) <= set(shipped)


def test_a_current_entry_is_the_code_that_renders() -> None:
    """Proved with an entry whose code renders a word: where its fingerprint is the template's, that word is what
    the template renders."""
    source, _, _ = html.ENV.loader.get_source(html.ENV, STYLE)
    env = environment({STYLE: {"fingerprint": compiled.fingerprint(html.ENV, STYLE, source),
                                  "code": written_as(html.ENV, STYLE, "shipped")}})
    assert env.get_template(STYLE).render() == "shipped"


def test_a_template_changed_since_is_compiled_from_its_source() -> None:
    env = environment({STYLE: {"fingerprint": "0" * 64, "code": written_as(html.ENV, STYLE, "shipped")}})
    assert env.get_template(STYLE).render().startswith(":root {")


def test_other_settings_compile_the_templates_themselves() -> None:
    """The fingerprint holds the settings that change the code Jinja writes, trim_blocks among them."""
    source, _, _ = html.ENV.loader.get_source(html.ENV, STYLE)
    shipped = {STYLE: {"fingerprint": compiled.fingerprint(html.ENV, STYLE, source),
                          "code": written_as(html.ENV, STYLE, "shipped")}}
    assert environment(shipped).get_template(STYLE).render() == "shipped"
    assert environment(shipped, trim_blocks=False).get_template(STYLE).render().startswith(":root {")


@pytest.mark.parametrize("content", [None, "{broken"], ids=["missing", "broken"])
def test_without_a_readable_file_every_template_compiles(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         content: str | None) -> None:
    shipped = tmp_path / "compiled.json"
    if content is not None:
        shipped.write_text(content, encoding="utf-8")
    monkeypatch.setattr(compiled, "FILE", shipped)
    env = environment(None)
    assert env.get_template(STYLE).render().startswith(":root {")
