"""The message catalogue: every user-facing sentence, in English and Chinese, under one key.

Exercises add their own messages (namespaced by exercise id) when they are loaded, so a new
exercise brings its text with it and the core never hard-codes a sentence.
"""
from __future__ import annotations

import locale
import os
from dataclasses import dataclass, field
from typing import Any, Mapping

LANGS = ("en", "zh")

Texts = Mapping[str, str]

_MESSAGES: dict[str, Texts] = {}


def add(key: str, texts: Texts) -> None:
    missing = [lang for lang in LANGS if lang not in texts]
    if missing:
        raise ValueError(f"message {key!r} lacks {', '.join(missing)}")
    _MESSAGES[key] = dict(texts)


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


def text(key: str, lang: str, **args: Any) -> str:
    """Render a message; a missing argument shows as {name} rather than failing the run."""
    template = _MESSAGES[key][lang if lang in LANGS else "en"]
    shown = {k: text(v.key, lang, **v.args) if isinstance(v, Msg) else v for k, v in args.items()}
    return template.format_map(_Lenient(shown))


def pick(texts: Texts, lang: str) -> str:
    return texts.get(lang) or texts["en"]


def default_lang() -> str:
    for var in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        value = os.environ.get(var)
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    loc = locale.getlocale()[0] or ""
    return "zh" if loc.lower().startswith("zh") else "en"


class _Lenient(dict):  # type: ignore[type-arg]
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


add_all(
    {
        "cli.missing_file": {
            "en": "cannot grade: no such file: {path}",
            "zh": "无法评分：文件不存在：{path}",
        },
        "cli.unreadable": {
            "en": "cannot grade: cannot read {path}: {error}",
            "zh": "无法评分：无法读取 {path}：{error}",
        },
        "cli.bad_notebook": {
            "en": "cannot grade: {path} is not a valid Jupyter notebook: {error}",
            "zh": "无法评分：{path} 不是有效的 Jupyter 笔记本：{error}",
        },
        "cli.bad_kind": {
            "en": "cannot grade: {path} is neither a .py module nor a .ipynb notebook",
            "zh": "无法评分：{path} 既不是 .py 模块也不是 .ipynb 笔记本",
        },
        "cli.unknown_exercise": {
            "en": "cannot grade: unknown exercise {name!r}; choose from {choices}",
            "zh": "无法评分：未知练习 {name!r}；可选：{choices}",
        },
        "cli.sandbox_failed": {
            "en": "cannot grade: the sandbox could not start: {error}",
            "zh": "无法评分：沙箱无法启动：{error}",
        },
        "cli.unwritable": {
            "en": "cannot write the results: {error}",
            "zh": "无法写入结果：{error}",
        },
        "cli.written": {"en": "feedback page: {path}", "zh": "反馈页面：{path}"},
        "check.not_found": {
            "en": "No answer found: {what}",
            "zh": "未找到答案：{what}",
        },
        "check.not_implemented": {
            "en": "{name} is not implemented yet.",
            "zh": "{name} 尚未实现。",
        },
        "check.raised": {
            "en": "{name} raised {error}",
            "zh": "{name} 抛出了异常 {error}",
        },
        "check.timeout": {
            "en": "{name} did not finish within {seconds:g} s (an infinite loop?); it was stopped.",
            "zh": "{name} 未在 {seconds:g} 秒内完成（死循环？），已被终止。",
        },
        "check.exited": {
            "en": "The submission's process exited (status {code}) while running {name}.",
            "zh": "运行 {name} 时提交的进程退出了（退出码 {code}）。",
        },
        "check.killed": {
            "en": "The submission's process was killed by signal {signal} while running {name} (out of memory?).",
            "zh": "运行 {name} 时提交的进程被信号 {signal} 终止（内存不足？）。",
        },
        "check.bad_return": {
            "en": "{name} returned {got}, which is not the expected output.",
            "zh": "{name} 返回了 {got}，不是预期的输出。",
        },
        "check.protocol": {
            "en": "The submission's process sent something that is not an answer while running {name}; it was stopped.",
            "zh": "运行 {name} 时提交的进程发送了非法数据，已被终止。",
        },
        "check.deadline": {
            "en": "Not run: the submission used up its {seconds:g} s time budget.",
            "zh": "未运行：提交已用完 {seconds:g} 秒的时间预算。",
        },
        "check.grader_error": {
            "en": "The grader failed on this check (not your fault; please report it): {error}",
            "zh": "评分器在此检查上出错（不是你的问题，请报告）：{error}",
        },
        "cell.error": {
            "en": "cell {cell}: {type}: {message}",
            "zh": "单元格 {cell}：{type}：{message}",
        },
        "cell.timeout": {
            "en": "cell {cell}: did not finish within {seconds:g} s and was skipped",
            "zh": "单元格 {cell}：未在 {seconds:g} 秒内完成，已跳过",
        },
        "cell.crashed": {
            "en": "cell {cell}: ended the process and was skipped",
            "zh": "单元格 {cell}：结束了进程，已跳过",
        },
        "page.title": {"en": "Feedback: {name}", "zh": "反馈：{name}"},
        "page.score": {"en": "Score", "zh": "得分"},
        "page.cells": {"en": "Cells that failed to run", "zh": "运行失败的单元格"},
        "page.output": {"en": "Output of your code (last part)", "zh": "你的代码的输出（末尾部分）"},
        "page.meta": {
            "en": "grader {version} · seed {seed} · {date}",
            "zh": "评分器 {version} · 种子 {seed} · {date}",
        },
        "page.protections": {"en": "Protections active: {list}", "zh": "已启用的防护：{list}"},
        "status.passed": {"en": "passed", "zh": "通过"},
        "status.failed": {"en": "failed", "zh": "未通过"},
        "status.error": {"en": "grader error", "zh": "评分器错误"},
        "status.skipped": {"en": "skipped", "zh": "跳过"},
        "term.total": {"en": "Total", "zh": "总分"},
    }
)
