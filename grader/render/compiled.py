"""The templates' Python code as Jinja writes it, shipped beside them in compiled.json.

Jinja turns a template into Python code before it can render it: ~0.15 s for the feedback page's templates and
~0.07 s for the class view's, on the path of every batch (before its judges fork, and again as it publishes) and of
a notebook's first `%grade`. Compiling the code Jinja wrote takes ~0.02 s. `python -m grader.render.html` writes
compiled.json from the templates; the loader takes a template's code from it only where it was written from the same
source, by the same Jinja, for an environment with the same settings (`fingerprint`), and otherwise compiles the
template as Jinja always does: a stale file costs time, never a wrong page. tests/render/test_compiled.py fails until
the file is written again after a template changes.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, MutableMapping

import jinja2
from jinja2 import Environment, PackageLoader, Template

FILE = Path(__file__).with_name("compiled.json")


def fingerprint(environment: Environment, name: str, source: str) -> str:
    """What decides the code Jinja writes for a template: its source, Jinja's version, and the environment's
    settings that its lexer and code generator read."""
    autoescape = environment.autoescape(name) if callable(environment.autoescape) else environment.autoescape
    finalize = None if environment.finalize is None else repr(getattr(environment.finalize, "jinja_pass_arg", None))
    settings = (jinja2.__version__, name, autoescape, finalize, environment.trim_blocks,
                environment.lstrip_blocks, environment.keep_trailing_newline, environment.newline_sequence,
                environment.block_start_string, environment.block_end_string, environment.variable_start_string,
                environment.variable_end_string, environment.comment_start_string, environment.comment_end_string,
                environment.line_statement_prefix, environment.line_comment_prefix, environment.optimized,
                sorted(environment.extensions))
    return hashlib.sha256(f"{settings!r}\0{source}".encode()).hexdigest()


class Loader(PackageLoader):
    """grader.render's templates, each compiled from the code compiled.json holds for it where that code is current
    (`shipped`, given: that content in place of the file's)."""

    def __init__(self, shipped: dict[str, dict[str, str]] | None = None) -> None:
        super().__init__("grader.render", "templates")
        self._shipped = shipped

    def load(self, environment: Environment, name: str,
             globals: MutableMapping[str, Any] | None = None) -> Template:
        source, filename, uptodate = self.get_source(environment, name)
        entry = self.shipped().get(name)
        if entry is None or entry["fingerprint"] != fingerprint(environment, name, source):
            return super().load(environment, name, globals)
        code = compile(entry["code"], filename or name, "exec")
        return environment.template_class.from_code(environment, code, globals or {}, uptodate)

    def shipped(self) -> dict[str, dict[str, str]]:
        if self._shipped is None:
            try:
                self._shipped = json.loads(FILE.read_text(encoding="utf-8"))
            except (OSError, ValueError):  # missing or broken: every template compiles as it would without it
                self._shipped = {}
        return self._shipped


def written(environment: Environment) -> dict[str, dict[str, str]]:
    """compiled.json's content: each template's fingerprint and the code Jinja writes for it."""
    loader = environment.loader
    assert loader is not None
    entries = {}
    for name in sorted(loader.list_templates()):
        source, filename, _ = loader.get_source(environment, name)
        code: str = environment.compile(source, name, filename, raw=True)
        entries[name] = {"fingerprint": fingerprint(environment, name, source), "code": code}
    return entries


def text(environment: Environment) -> str:
    return json.dumps(written(environment), indent=1, ensure_ascii=False) + "\n"


def write(environment: Environment) -> None:
    FILE.write_text(text(environment), encoding="utf-8")
    print(f"wrote {FILE}")
