"""The message catalogue: every user-facing sentence, in English and Chinese, under one key.

Exercises add their own messages (namespaced by exercise id) when they are discovered
(grader.judge.exercise.discover: the exercises this process grades with), so a new exercise brings its
text with it and the core never hard-codes a sentence; building an Exercise writes nothing here.
"""
from __future__ import annotations

import locale
import os
import re
import string
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

LANGS = ("en", "zh")

Texts = Mapping[str, str]

_MESSAGES: dict[str, Texts] = {}


def add(key: str, texts: Texts) -> None:
    complete(key, texts)
    _MESSAGES[key] = dict(texts)


def complete(key: str, texts: Texts) -> None:
    """A message holds every language (ValueError if not): what `add` takes, checked where a message is written."""
    missing = [lang for lang in LANGS if lang not in texts]
    if missing:
        raise ValueError(f"message {key!r} lacks {', '.join(missing)}")


def add_all(messages: Mapping[str, Texts], prefix: str = "") -> None:
    for key, texts in messages.items():
        add(prefix + key, texts)


def has(key: str) -> bool:
    return key in _MESSAGES


@dataclass(frozen=True)
class Msg:
    """A message inside a message (a diagnosis inside "outputs differ: ..."), rendered in the same language."""

    key: str
    args: dict[str, Any] = field(default_factory=dict)


# Where a message's first clause ends: a colon or a full stop followed by a space (not the dot of torch.triu),
# or the Chinese colon or full stop.
_CLAUSE_END = re.compile(r"[:.](?=\s)|[：。]")


def first_clause(text: str) -> str:
    """A message's first clause, as a title: "The mask is inverted" of "The mask is inverted: it hides ..."."""
    return _CLAUSE_END.split(text, 1)[0].strip()


def text(key: str, lang: str, **args: Any) -> str:
    """Render a message; a missing argument shows as {name} rather than failing the run. A count also
    takes a plural spec, `{tokens:token/tokens}`, for the languages whose nouns need one."""
    template = _MESSAGES[key][lang if lang in LANGS else "en"]
    shown = {k: text(v.key, lang, **v.args) if isinstance(v, Msg) else v for k, v in args.items()}
    if "/" in template:  # it may hold a plural spec, which only _FORMATTER reads (str.format_map: ~7x faster)
        return _FORMATTER.vformat(template, (), _Lenient(shown))
    return template.format_map(_Lenient(shown))


class _Formatter(string.Formatter):
    def format_field(self, value: Any, spec: str) -> str:
        """`one/other`: the word a count takes ("1 token", "2 tokens"); any other spec as format() reads it."""
        if "/" in spec:
            one, _, other = spec.partition("/")
            return one if value == 1 else other
        return super().format_field(value, spec)


_FORMATTER = _Formatter()


def every_lang(render: Callable[[str], str]) -> dict[str, str]:
    """The same text in every language, so a renderer can offer the other one without regrading."""
    return {lang: render(lang) for lang in LANGS}


def in_lang(texts: Texts, fallback: str, lang: str) -> str:
    """A title or message of a result in `lang`, from a result that may predate the every-language fields."""
    return texts.get(lang) or fallback


def pick(texts: Texts, lang: str) -> str:
    return texts.get(lang) or texts["en"]


def default_lang() -> str:
    for var in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        value = os.environ.get(var)
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    loc = locale.getlocale()[0] or ""
    return "zh" if loc.lower().startswith("zh") else "en"


class _Lenient(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def _load() -> None:
    from grader.messages import ci, classes, grading, lms, page, usage

    for area in (grading, page, classes, ci, lms, usage):
        add_all(area.MESSAGES)


_load()
