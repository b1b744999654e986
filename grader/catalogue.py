"""The message catalogue: every user-facing sentence, in English and Chinese, under one key.

Exercises add their own messages (namespaced by exercise id) when they are loaded, so a new
exercise brings its text with it and the core never hard-codes a sentence.
"""
from __future__ import annotations

import locale
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

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


def every_lang(render: Callable[[str], str]) -> dict[str, str]:
    """The same text in every language, so a renderer can offer the other one without regrading."""
    return {lang: render(lang) for lang in LANGS}


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
        "cell.line": {"en": " (line {line})", "zh": "（第 {line} 行）"},
        "cell.timeout": {
            "en": "cell {cell}: did not finish within {seconds:g} s and was skipped",
            "zh": "单元格 {cell}：未在 {seconds:g} 秒内完成，已跳过",
        },
        "cell.crashed": {
            "en": "cell {cell}: ended the process and was skipped",
            "zh": "单元格 {cell}：结束了进程，已跳过",
        },
        "page.title": {"en": "Feedback: {name}", "zh": "反馈：{name}"},
        "page.language": {"en": "Language", "zh": "语言"},
        "page.score": {"en": "Score", "zh": "得分"},
        "page.total": {"en": "Score: {score} / {max}", "zh": "得分：{score} / {max}"},
        "page.points": {"en": "{score} / {max} points", "zh": "{score} / {max} 分"},
        "page.summary": {"en": "Points per exercise", "zh": "各练习得分"},
        "page.exercise": {"en": "Exercise", "zh": "练习"},
        "page.status": {"en": "Result", "zh": "结果"},
        "page.checks_passed": {"en": "{passed} of {total} checks passed", "zh": "{total} 项检查中通过 {passed} 项"},
        "page.submission": {"en": "Submission", "zh": "提交文件"},
        "page.run_date": {"en": "Graded on", "zh": "评分时间"},
        "page.duration": {"en": "{seconds} s", "zh": "{seconds} 秒"},
        "page.version": {"en": "Grader version", "zh": "评分器版本"},
        "page.seed": {"en": "Seed", "zh": "随机种子"},
        "page.seed_hint": {"en": "grade again with --seed {seed} to get the same inputs",
                           "zh": "使用 --seed {seed} 重新评分可得到相同的输入"},
        "page.protections": {"en": "Protections active", "zh": "已启用的防护"},
        "page.cells": {"en": "Cells that failed to run", "zh": "运行失败的单元格"},
        "page.output": {"en": "Output of your code (last part)", "zh": "你的代码的输出（末尾部分）"},
        "page.expected_got": {"en": "Expected and got, values from index {at}",
                              "zh": "预期值与实际值，自索引 {at} 起"},
        "page.index": {"en": "index", "zh": "索引"},
        "page.shape": {"en": "shape", "zh": "形状"},
        "page.dtype": {"en": "dtype", "zh": "数据类型"},
        "page.expected": {"en": "expected", "zh": "预期"},
        "page.got": {"en": "got", "zh": "实际"},
        "page.difference": {"en": "difference", "zh": "差值"},
        "page.largest": {"en": "largest difference", "zh": "最大差值"},
        "page.shapes_differ": {"en": "the shapes differ", "zh": "形状不同"},
        "page.found": {"en": "Checked: your {name} (cell {cell})", "zh": "检查的是：你的 {name}（单元格 {cell}）"},
        "page.where_object": {"en": "Your {name}: cell {cell}, line {line}", "zh": "你的 {name}：单元格 {cell}，第 {line} 行"},
        "page.where_line": {"en": "Your code: cell {cell}, line {line}", "zh": "你的代码：单元格 {cell}，第 {line} 行"},
        "page.where_cell": {"en": "Your code: cell {cell}", "zh": "你的代码：单元格 {cell}"},
        "page.error": {"en": "The error, in your code only", "zh": "错误（只显示你的代码）"},
        "page.frame": {"en": "{file}, line {line}, in {function}", "zh": "{file}，第 {line} 行，{function} 中"},
        "page.book.section": {"en": "Book: section {ref}", "zh": "参见书中第 {ref} 节"},
        "page.book.listing": {"en": "Book: listing {ref}", "zh": "参见书中代码清单 {ref}"},
        "page.measured": {"en": "What was measured", "zh": "测量结果"},
        "page.matrix.caption": {
            "en": "Who can see whom in {cls}: row i is output i, column j is token j; the grader changed "
                  "one token at a time and watched which outputs moved. {leaks} of {total} future positions leak.",
            "zh": "{cls} 中谁能看到谁：第 i 行是第 i 个输出，第 j 列是第 j 个 Token；评分器每次改变一个 Token，"
                  "观察哪些输出随之改变。{total} 个未来位置中有 {leaks} 个泄漏。",
        },
        "page.matrix.label": {
            "en": "Visibility matrix of {cls}, {size} by {size}: {leaks} leaking cells above the diagonal",
            "zh": "{cls} 的可见性矩阵，{size}×{size}：对角线以上有 {leaks} 个泄漏的格子",
        },
        "page.matrix.seen": {"en": "sees itself or an earlier token (allowed)", "zh": "看到自己或之前的 Token（允许）"},
        "page.matrix.blind": {"en": "does not see itself or an earlier token", "zh": "没有看到自己或之前的 Token"},
        "page.matrix.masked": {"en": "a later token, hidden (right)", "zh": "之后的 Token，已遮住（正确）"},
        "page.matrix.leak": {"en": "sees a later token: a leak", "zh": "看到了之后的 Token：泄漏"},
        "page.params.caption": {
            "en": "Trainable parameters, layer by layer: yours and the reference "
                  "MultiHeadAttention(768, 768, 1024, 0.0, num_heads=12)",
            "zh": "逐层的可训练参数：你的模块与参考 MultiHeadAttention(768, 768, 1024, 0.0, num_heads=12)",
        },
        "page.params.name": {"en": "parameter", "zh": "参数"},
        "page.params.count": {"en": "count", "zh": "数量"},
        "page.params.yours": {"en": "yours", "zh": "你的"},
        "page.params.reference": {"en": "reference", "zh": "参考"},
        "page.params.total": {"en": "total", "zh": "合计"},
        "page.params.same": {"en": "same", "zh": "相同"},
        "page.params.differs": {"en": "different shape", "zh": "形状不同"},
        "page.params.extra": {"en": "extra: not in the reference", "zh": "多余：参考中没有"},
        "page.params.missing": {"en": "missing", "zh": "缺少"},
        "page.side.caption": {
            "en": "The first rows of your SelfAttention_v1's output and of what v2's weights give, for an input of "
                  "shape {shape}.",
            "zh": "对形状为 {shape} 的输入，你的 SelfAttention_v1 的输出与 v2 的权重应得的结果的前几行。",
        },
        "page.side.differ": {"en": "≠ marks the {count} values that differ.", "zh": "≠ 标出了 {count} 个不同的值。"},
        "page.side.yours": {"en": "your SelfAttention_v1", "zh": "你的 SelfAttention_v1"},
        "page.side.expected": {"en": "expected (v2's weights)", "zh": "预期（v2 的权重）"},
        "status.passed": {"en": "passed", "zh": "通过"},
        "status.failed": {"en": "failed", "zh": "未通过"},
        "status.error": {"en": "grader error", "zh": "评分器错误"},
        "status.skipped": {"en": "skipped", "zh": "跳过"},
        "term.total": {"en": "Total", "zh": "总分"},
    }
)

# -- `grade --open`: a block of its own, apart from the keys the feedback page adds ------------------------
add_all(
    {
        "cli.open_failed": {
            "en": "could not open the feedback page in a browser: {error}",
            "zh": "无法在浏览器中打开反馈页面：{error}",
        },
        "cli.no_browser": {
            "en": "could not open the feedback page: no browser found, or the browser failed to start",
            "zh": "无法打开反馈页面：未找到浏览器，或浏览器启动失败",
        },
    }
)
