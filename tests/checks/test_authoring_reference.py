"""docs/authoring.md's last section is what `grader.checks` offers, and the door's drawing of its exceptions is
the classes' own tree. docs/authoring.py writes the section from the module, as docs/cli.py writes the
command reference; here it is rendered again in memory, so a name that joins or leaves the door without its
line, a page not regenerated since, or a class drawn under the wrong parent fails."""
from __future__ import annotations

import importlib.util
from types import ModuleType

import pytest

import grader.checks
from conftest import ROOT


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("authoring_reference", ROOT / "docs" / "authoring.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GENERATOR = _generator()


def test_every_name_offered_is_said_once() -> None:
    """Each name of `__all__` has its line in docs/authoring.py, or, an exception, its place in the drawing."""
    assert GENERATOR.undescribed() == {}


def test_the_page_lists_what_the_door_offers() -> None:
    text = GENERATOR.PATH.read_text(encoding="utf-8")
    assert GENERATOR.page(text) == text, f"docs/authoring.md is out of date: run `{GENERATOR.REGENERATE}`"


def real_parents(tops: list[type]) -> dict[str, type]:
    """Every class below the drawing's top classes, by name, as Python holds them: name -> class, with each
    one's parent read from its bases (a class a test defines outside the package is not the grader's)."""
    found: dict[str, type] = {}
    pending = list(tops)
    while pending:
        cls = pending.pop()
        found[cls.__name__] = cls
        pending += [sub for sub in cls.__subclasses__() if sub.__module__.startswith("grader.")]
    return found


def differences() -> dict[str, tuple[str | None, str | None]]:
    """Where the drawing and the classes disagree: name -> (drawn parent, real parent), None for no place."""
    drawn = GENERATOR.drawn()
    tops = [getattr(grader.checks, d.name) for d in drawn if d.parent == GENERATOR.ROOT]
    real = {name: cls.__bases__[0].__name__ for name, cls in real_parents(tops).items()}
    said = {d.name: d.parent for d in drawn}
    return {name: (said.get(name), real.get(name)) for name in said.keys() | real.keys()
            if said.get(name) != real.get(name)}


def test_the_drawing_is_the_class_hierarchy() -> None:
    """Every class the door's drawing names has the parent it is drawn under, every subclass of a drawn class
    is drawn, and a name drawn as offered is the very class the door offers (one in brackets is not offered)."""
    assert differences() == {}
    drawn = GENERATOR.drawn()
    classes = real_parents([getattr(grader.checks, d.name) for d in drawn if d.parent == GENERATOR.ROOT])
    assert all(len(cls.__bases__) == 1 for cls in classes.values())
    assert {d.name: getattr(grader.checks, d.name, None) is classes[d.name] for d in drawn} == \
        {d.name: d.offered for d in drawn}
    assert not {d.name for d in drawn if not d.offered} & set(grader.checks.__all__)


def test_a_class_drawn_under_the_wrong_parent_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison above sees a drawing gone stale: NotUnderstood drawn beside StudentError, not below it."""
    doc = grader.checks.__doc__ or ""
    moved = doc.replace("│   └── NotUnderstood   ", "├── NotUnderstood       ")
    assert moved != doc
    monkeypatch.setattr(grader.checks, "__doc__", moved)
    assert differences() == {"NotUnderstood": ("ProbeFailure", "StudentError")}
