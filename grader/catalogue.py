"""The message catalogue: every user-facing sentence, in English and Chinese, under one key.

Exercises add their own messages (namespaced by exercise id) when they are loaded, so a new
exercise brings its text with it and the core never hard-codes a sentence.
"""
from __future__ import annotations

import locale
import os
import string
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


class MessageError(Exception):
    """A failure that is told to the user as one catalogue message: `key` names it, `args_` fill it."""

    def __init__(self, key: str, **args: str) -> None:
        super().__init__(key)
        self.key = key
        self.args_ = args


@dataclass(frozen=True)
class Msg:
    """A message inside a message (a diagnosis inside "outputs differ: ..."), rendered in the same language."""

    key: str
    args: dict[str, Any] = field(default_factory=dict)


def text(key: str, lang: str, **args: Any) -> str:
    """Render a message; a missing argument shows as {name} rather than failing the run. A count also
    takes a plural spec, `{tokens:token/tokens}`, for the languages whose nouns need one."""
    template = _MESSAGES[key][lang if lang in LANGS else "en"]
    shown = {k: text(v.key, lang, **v.args) if isinstance(v, Msg) else v for k, v in args.items()}
    return _FORMATTER.vformat(template, (), _Lenient(shown))


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
        "cli.is_folder": {
            "en": "cannot grade: {path} is a folder; give one .py module or .ipynb notebook, or grade a folder "
                  "of students' files with `grade batch {path} -o OUTDIR`",
            "zh": "无法评分：{path} 是一个文件夹；请给出一个 .py 模块或 .ipynb 笔记本，或用 "
                  "`grade batch {path} -o OUTDIR` 为一个文件夹里多名学生的文件评分",
        },
        "cli.empty_notebook": {
            "en": "cannot grade: {path} is empty, perhaps not saved yet: save it in Jupyter and try again",
            "zh": "无法评分：{path} 是空文件，可能还没有保存：请在 Jupyter 中保存后再试",
        },
        "cli.empty_submission": {
            "en": "cannot grade: the submission is empty; hand in your .py module or .ipynb notebook (such as "
                  "chapter3.ipynb or chapter3.py), with any file it reads",
            "zh": "无法评分：提交内容为空；请提交你的 .py 模块或 .ipynb 笔记本（例如 chapter3.ipynb 或 "
                  "chapter3.py），以及它读取的文件",
        },
        "cli.nothing_to_grade": {
            "en": "cannot grade: none of {path} is a .py module or a .ipynb notebook",
            "zh": "无法评分：{path} 中没有 .py 模块或 .ipynb 笔记本",
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
        "points.gpu": {"en": "{points:g}, +{gpu:g} on a GPU", "zh": "{points:g}，GPU 上另加 {gpu:g}"},
        "list.set": {"en": "set {group}, in all: {points}", "zh": "{group} 组合计：{points}"},
        "cli.written": {"en": "feedback page: {path}", "zh": "反馈页面：{path}"},
        "jupyter.no_kernel": {
            "en": "check() grades the code a Jupyter kernel ran: call it in a notebook (or IPython), or run "
                  "`grade EXERCISE FILE` in a terminal",
            "zh": "check() 评阅的是 Jupyter 内核运行过的代码：请在笔记本（或 IPython）中调用，或在终端运行 "
                  "`grade 练习 文件`",
        },
        "jupyter.no_saved": {
            "en": "cannot tell which notebook file this kernel runs (the front end gave {named}): save the "
                  "notebook and run `%grade EXERCISE path/to/notebook.ipynb`, or drop --saved to grade the "
                  "code this kernel ran",
            "zh": "无法确定此内核运行的是哪个笔记本文件（前端给出的是 {named}）：请保存笔记本后运行 "
                  "`%grade 练习 路径/笔记本.ipynb`，或去掉 --saved 以评阅此内核运行过的代码",
        },
        "jupyter.judge_died": {
            "en": "the grader's judge process stopped ({error}); run %grade again",
            "zh": "评分器的评判进程意外结束（{error}）；请重新运行 %grade",
        },
        "jupyter.message": {"en": "{message}", "zh": "{message}"},
        "jupyter.stopped": {
            "en": "grading stopped: nothing of it is left running",
            "zh": "评分已停止：相关进程均已结束",
        },
        "jupyter.self_check": {
            "en": "Self-check in your kernel: not a grade. The code checked and this result both live in your "
                  "notebook's process, whose code can change them. Your course grades the saved notebook with "
                  "`{command}`.",
            "zh": "内核中的自查：不是成绩。被检查的代码和这个结果都在你的笔记本进程中，笔记本里的代码可以改变它们。"
                  "课程用 `{command}` 评阅已保存的笔记本。",
        },
        "check.not_found": {
            "en": "No answer found: {what}",
            "zh": "未找到答案：{what}",
        },
        "check.markdown_hint": {
            "en": " (a markdown cell is not run: put the answer in a code cell)",
            "zh": "（Markdown 单元格不会运行：请把答案写在代码单元格中）",
        },
        "check.near_miss": {
            "en": "No answer found: {what} Near miss: you defined {renames}. Rename yours to the name after "
                  "the arrow: the grader looks for the exact names the exercise uses.",
            "zh": "未找到答案：{what} 名称相近：你定义的是 {renames}。请改成箭头后面的名称：评分器只按练习规定的名称精确查找。",
        },
        "check.after_failure": {
            "en": "No answer found: {what} {unit} raised {error}, so nothing after that line ran and the cells "
                  "after it failed for want of what it would have defined: fix that line first.",
            "zh": "未找到答案：{what} {unit}抛出了 {error}，因此那一行之后的代码都没有运行，之后的单元格也因缺少它本应定义的"
                  "内容而失败：请先修正那一行。",
        },
        "check.not_run": {
            "en": "{name} is defined in {unit}, but the code there raised {error} before {name} was defined, so "
                  "there is no answer to check: fix that code.",
            "zh": "{name} 定义在{unit}，但那里的代码在定义 {name} 之前就抛出了 {error}，因此没有可检查的答案：请修正这段代码。",
        },
        "check.not_run_interrupted": {
            "en": "{name} is defined in {unit}, but the code there was interrupted after {seconds:g} s, its share "
                  "of the time, before {name} was defined: define it before the long work, or shorten the work.",
            "zh": "{name} 定义在{unit}，但那里的代码在定义 {name} 之前就因用完时间份额（{seconds:g} 秒）被中断："
                  "请在耗时的代码之前定义它，或缩短这部分工作。",
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
        "check.forbidden_call": {
            "en": "The submission's process made a system call the sandbox forbids while running {name} (a system "
                  "call table other than the machine's own) and was stopped.",
            "zh": "运行 {name} 时提交的进程发起了沙箱禁止的系统调用（使用了本机以外的系统调用表），已被终止。",
        },
        "check.disk_full": {
            "en": "The submission wrote more than {mib:g} MiB into its folder while running {name} and was stopped.",
            "zh": "运行 {name} 时提交向其文件夹写入了超过 {mib:g} MiB 的数据，已被终止。",
        },
        "check.bad_return": {
            "en": "{name} returned {got}, which is not the expected output.",
            "zh": "{name} 返回了 {got}，不是预期的输出。",
        },
        "check.constant": {
            "en": "{name} returns the same output whatever the input (shape {shape}, starting {values}): it "
                  "computes nothing from its input, so this cannot be checked. Compute the output from the input.",
            "zh": "无论输入是什么，{name} 都返回相同的输出（形状 {shape}，开头为 {values}）：它没有根据输入计算任何东西，"
                  "因此无法检查。请根据输入计算输出。",
        },
        "check.protocol": {
            "en": "The submission's process sent something that is not an answer while running {name}; it was stopped.",
            "zh": "运行 {name} 时提交的进程发送了非法数据，已被终止。",
        },
        "check.too_large": {
            "en": "While running {name}, the submission's process answered with {mib:g} MiB of data, more than the "
                  "{most_mib:g} MiB the grader reads for that answer, so it was not read and the process was stopped. "
                  "Keep the answer to what the exercise asks for.",
            "zh": "运行 {name} 时提交的进程返回了 {mib:g} MiB 的数据，超过了评分器对这个答案读取的上限 {most_mib:g} MiB，"
                  "因此没有读取，进程已被终止。请让答案只包含练习所要求的内容。",
        },
        "check.deadline": {
            "en": "Not run: the submission used up its {seconds:g} s time budget.",
            "zh": "未运行：提交已用完 {seconds:g} 秒的时间预算。",
        },
        "check.grader_error": {
            "en": "The grader failed on this check (not your fault; please report it): {error}",
            "zh": "评分器在此检查上出错（不是你的问题，请报告）：{error}",
        },
        "cell.cascade": {
            "en": "{problem}. Nothing after that line ran, so {count} later {count:cell/cells} ({cells}) failed "
                  "for want of what it would have defined ({names}): fix that line first.",
            "zh": "{problem}。那一行之后的代码都没有运行，因此之后有 {count} 个单元格（{cells}）因缺少它本应定义的内容"
                  "（{names}）而失败：请先修正那一行。",
        },
        "cell.error": {
            "en": "{unit}: {type}: {message}",
            "zh": "{unit}：{type}：{message}",
        },
        "cell.line": {"en": " (line {line})", "zh": "（第 {line} 行）"},
        "cell.timeout": {
            "en": "{unit}: did not finish within {seconds:g} s and was skipped",
            "zh": "{unit}：未在 {seconds:g} 秒内完成，已跳过",
        },
        "cell.interrupted": {
            "en": "{unit}: interrupted after {seconds:g} s, its share of the time{where}; what it had done "
                  "by then is kept and the next cells ran",
            "zh": "{unit}：运行 {seconds:g} 秒（它的时间份额）后被中断{where}；此前完成的结果已保留，后面的单元格照常运行",
        },
        "cell.crashed": {
            "en": "{unit}: ended the process and was skipped",
            "zh": "{unit}：结束了进程，已跳过",
        },
        "cell.forbidden_call": {
            "en": "{unit}: made a system call the sandbox forbids (a system call table other than the "
                  "machine's own), was stopped and skipped",
            "zh": "{unit}：发起了沙箱禁止的系统调用（使用了本机以外的系统调用表），已被终止并跳过",
        },
        "cell.disk_full": {
            "en": "{unit}: wrote more than {mib:g} MiB into the submission's folder, was stopped and skipped",
            "zh": "{unit}：向提交的文件夹写入了超过 {mib:g} MiB 的数据，已被终止并跳过",
        },
        "cell.unlisted": {
            "en": "and {count} more {count:cell/cells} that failed to run (not listed)",
            "zh": "另有 {count} 个运行失败的单元格（未列出）",
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
        "page.time": {"en": "Time", "zh": "时间"},
        "page.time_shares": {
            "en": "a budget of {budget} s: the cells run within the first {cells} s, each for at most {cell} s "
                  "before it is interrupted (they ran {ran} s); the checks keep the last {checks} s",
            "zh": "预算 {budget} 秒：单元格在前 {cells} 秒内运行，每个最多 {cell} 秒，超时即被中断（实际运行了 {ran} 秒）；"
                  "最后 {checks} 秒留给检查",
        },
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
        "page.found": {"en": "Checked: your {name} ({unit})", "zh": "检查的是：你的 {name}（{unit}）"},
        "page.where_object": {"en": "Your {name}: {unit}", "zh": "你的 {name}：{unit}"},
        "page.where_code": {"en": "Your code: {unit}", "zh": "你的代码：{unit}"},
        # How a student finds a place in their code: a notebook's cell by number, a module's by file and line.
        "unit.cell": {"en": "cell {cell}", "zh": "单元格 {cell}"},
        "unit.cell_line": {"en": "cell {cell}, line {line}", "zh": "单元格 {cell}，第 {line} 行"},
        "unit.file_line": {"en": "{file}, line {line}", "zh": "{file}，第 {line} 行"},
        "unit.input": {"en": "In [{count}]", "zh": "In [{count}]"},
        "unit.input_line": {"en": "In [{count}], line {line}", "zh": "In [{count}]，第 {line} 行"},
        "page.error": {"en": "The error, in your code only", "zh": "错误（只显示你的代码）"},
        "page.frame": {"en": "{file}, line {line}, in {function}", "zh": "{file}，第 {line} 行，{function} 中"},
        "page.book.section": {"en": "Book: section {ref}", "zh": "参见书中第 {ref} 节"},
        "page.book.listing": {"en": "Book: listing {ref}", "zh": "参见书中代码清单 {ref}"},
        "page.measured": {"en": "What was measured", "zh": "测量结果"},
        "inline.run": {"en": "{name} · seed {seed} · {seconds} s", "zh": "{name} · 种子 {seed} · {seconds} 秒"},
        "page.same_figure.matrix": {"en": "The same who-sees-whom matrix is drawn under “{check}”.",
                                    "zh": "同一张“谁能看到谁”矩阵图见“{check}”。"},
        "page.same_figure.comparison": {"en": "The same expected/got values are shown under “{check}”.",
                                        "zh": "同一组期望值与实际值见“{check}”。"},
        "page.same_figure.side_by_side": {"en": "The same two outputs are shown side by side under “{check}”.",
                                          "zh": "同一组并排输出见“{check}”。"},
        "page.same_figure.breakdown": {"en": "The same parameter table is shown under “{check}”.",
                                       "zh": "同一张参数表见“{check}”。"},
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
        "page.side.differ": {"en": "≠ marks the {count} {count:value that differs/values that differ}.", "zh": "≠ 标出了 {count} 个不同的值。"},
        "page.side.yours": {"en": "your SelfAttention_v1", "zh": "你的 SelfAttention_v1"},
        "page.side.expected": {"en": "expected (v2's weights)", "zh": "预期（v2 的权重）"},
        "status.passed": {"en": "passed", "zh": "通过"},
        "status.failed": {"en": "failed", "zh": "未通过"},
        "status.error": {"en": "grader error", "zh": "评分器错误"},
        "status.skipped": {"en": "skipped", "zh": "跳过"},
        "term.total": {"en": "Total", "zh": "总分"},
    }
)

# -- single-file mode: the files beside a submission that its caps left out ----------------------------------
add_all(
    {
        "page.left_out_title": {"en": "Files not copied", "zh": "未复制的文件"},
        "page.left_out": {
            "en": "{count} files beside your submission were not copied for your code to open: the grader copies at "
                  "most {max_files} files and {max_mib} MiB from its folder, the files your code names first. "
                  "Not copied: {names}",
            "zh": "你的提交旁有 {count} 个文件没有复制过来供代码打开：评分器最多从它的文件夹复制 {max_files} 个文件、"
                  "共 {max_mib} MiB，代码中写到的文件优先。未复制：{names}",
        },
    }
)

# -- characters in messages: shown with repr, whitespace named, never as empty quotes ------------------------
add_all(
    {
        "chars.list": {"en": "{first}, {rest}", "zh": "{first}、{rest}"},
        "chars.none": {"en": "none", "zh": "无"},
        "chars.empty": {"en": "an empty string", "zh": "空字符串"},
        "chars.end": {"en": "the end of the string", "zh": "字符串末尾"},
        "chars.space": {"en": "' ' (a space)", "zh": "' '（空格）"},
        "chars.newline": {"en": "'\\n' (a newline)", "zh": "'\\n'（换行符）"},
        "chars.tab": {"en": "'\\t' (a tab)", "zh": "'\\t'（制表符）"},
        "chars.whitespace": {"en": "{char} (whitespace)", "zh": "{char}（空白字符）"},
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

# -- grade batch, export, merge: the run's summary and what can go wrong ---------------------------------
add_all(
    {
        "batch.count.students": {"en": "students", "zh": "学生"},
        "batch.count.already": {"en": "already graded (unchanged)", "zh": "此前已评分（未改动）"},
        "batch.count.graded": {"en": "graded now", "zh": "本次评分"},
        "batch.count.full": {"en": "  with full marks", "zh": "  其中满分"},
        "batch.count.ungradable": {"en": "could not be graded", "zh": "无法评分"},
        "batch.count.errors": {"en": "grader errors (graded again next run)", "zh": "评分器错误（下次运行时重新评分）"},
        "batch.count.seconds": {"en": "seconds", "zh": "用时（秒）"},
        "batch.count.rate": {"en": "submissions per second", "zh": "每秒评分份数"},
        "batch.index": {"en": "class overview: {path}", "zh": "全班概览：{path}"},
        "batch.no_gradebook": {
            "en": "no gradebook in {path}: run `grade batch SOURCE -o {path}` first",
            "zh": "{path} 中没有成绩册：请先运行 `grade batch SOURCE -o {path}`",
        },
        "batch.merged": {"en": "merged {shards} gradebooks: {rows} new results", "zh": "已合并 {shards} 个成绩册：新增 {rows} 条结果"},
        "batch.interrupted": {
            "en": "interrupted; every result so far is saved: run the same command to grade the rest",
            "zh": "已中断；目前的结果都已保存：再次运行同一命令即可继续评分其余提交",
        },
        "batch.grader_error": {
            "en": "the grader failed on this submission ({error}); it is graded again on the next run",
            "zh": "评分器在该提交上出错（{error}）；下次运行时会重新评分",
        },
        "batch.worker_lost": {
            "en": "the grading process stopped on this submission ({how}); it is graded again on the next run",
            "zh": "评分进程在该提交上中止（{how}）；下次运行时会重新评分",
        },
    }
)

# -- Gradescope results.json (grader/render/gradescope.py) -------------------------------------------------
add_all(
    {
        "gradescope.test_name": {"en": "{exercise} · {title}", "zh": "{exercise} · {title}"},
        "gradescope.skipped": {
            "en": "Skipped, worth 0 points: {message}",
            "zh": "已跳过，计 0 分：{message}",
        },
        "gradescope.summary": {
            "en": "Total: {score:g} / {max:g} points · seed {seed} · grader {version}",
            "zh": "总分：{score:g} / {max:g} 分 · 随机种子 {seed} · 评分器版本 {version}",
        },
        "gradescope.files": {
            "en": "Files graded together: {files}",
            "zh": "一起评分的文件：{files}",
        },
        "gradescope.protections": {
            "en": "Protections active: {protections}",
            "zh": "已启用的防护：{protections}",
        },
        "gradescope.grader_fault": {
            "en": "The grader itself failed on {count} {count:check/checks}. This is not your fault: please tell your "
                  "instructor, who can regrade the submission.",
            "zh": "评分器自身在 {count} 项检查上出错。这不是你的问题：请告诉老师，老师可以重新评分。",
        },
        "gradescope.cells": {
            "en": "Cells that failed to run:",
            "zh": "运行失败的单元格：",
        },
        "gradescope.no_submission_folder": {
            "en": "cannot grade: the submission folder {path} does not exist; this is a setup error of the "
                  "autograder, not the student's: check --submission (Gradescope's is /autograder/submission)",
            "zh": "无法评分：提交文件夹 {path} 不存在；这是自动评分器的配置错误，不是学生的问题：请检查 --submission"
                  "（Gradescope 的是 /autograder/submission）",
        },
        "gradescope.written": {
            "en": "results.json written to {path}: {score:g} / {max:g} points",
            "zh": "results.json 已写入 {path}：{score:g} / {max:g} 分",
        },
        "gradescope.written_ungradable": {
            "en": "results.json written to {path}: 0 points, the submission could not be graded ({problem})",
            "zh": "results.json 已写入 {path}：0 分，该提交无法评分（{problem}）",
        },
        "gradescope.exported": {
            "en": "{count} Gradescope results.json {count:file/files} written to {path}",
            "zh": "已将 {count} 个 Gradescope results.json 文件写入 {path}",
        },
        "gradescope.problem_hint": {
            "en": "Nothing could be graded, so the score is 0. Upload your .py module or .ipynb notebook "
                  "(a notebook must open in Jupyter; save it there again if it does not) and submit again. "
                  "If this message stays, tell your instructor.",
            "zh": "没有任何内容可以评分，因此得分为 0。请上传你的 .py 模块或 .ipynb 笔记本（笔记本必须能在 Jupyter 中"
                  "打开；若打不开，请在 Jupyter 中重新保存），然后重新提交。如果仍然出现此消息，请告诉老师。",
        },
    }
)

# -- the class overview (grader.render.classbook): index.html and why a submission has no result ---------
add_all(
    {
        "index.title": {"en": "Class results: {exercises}", "zh": "全班成绩：{exercises}"},
        "index.students": {"en": "Students", "zh": "学生人数"},
        "index.graded": {"en": "Graded", "zh": "已评分"},
        "index.full_marks": {"en": "Full marks", "zh": "满分"},
        "index.ungradable": {"en": "Could not be graded", "zh": "无法评分"},
        "index.errors": {"en": "Grader errors", "zh": "评分器错误"},
        "index.mean": {"en": "Mean score", "zh": "平均得分率"},
        "index.median": {"en": "Median score", "zh": "得分率中位数"},
        "index.exercise_set": {"en": "Exercises", "zh": "练习"},
        "index.student": {"en": "Student", "zh": "学生"},
        "index.status": {"en": "Status", "zh": "状态"},
        "index.status.graded": {"en": "graded", "zh": "已评分"},
        "index.status.ungradable": {"en": "could not be graded", "zh": "无法评分"},
        "index.status.error": {"en": "grader error (graded again on the next run)",
                               "zh": "评分器错误（下次运行时重新评分）"},
        "index.histogram.heading": {"en": "Score distribution", "zh": "成绩分布"},
        "index.histogram.caption": {
            "en": "Scores of the {graded} graded students, in percent, in bins of ten points; the last bin "
                  "includes 100%. Students per bin:",
            "zh": "{graded} 名已评分学生的得分率，每十个百分点一组，最后一组包含 100%。各组人数：",
        },
        "index.histogram.bin": {"en": "{low}–{high}%: {count}", "zh": "{low}–{high}%：{count} 人"},
        "index.histogram.x": {"en": "score (%)", "zh": "得分率（%）"},
        "index.histogram.y": {"en": "students", "zh": "学生人数"},
        "index.checks.heading": {"en": "What the class struggles with", "zh": "全班的薄弱环节"},
        "index.checks.intro": {
            "en": "Every check, hardest first: how many of the students it applied to passed it. A skipped "
                  "check (no GPU) or a grader error does not count as an attempt.",
            "zh": "所有检查项，从最难到最易：适用该检查的学生中有多少人通过。被跳过的检查（没有 GPU）"
                  "或评分器错误不计为作答。",
        },
        "index.checks.check": {"en": "Check", "zh": "检查项"},
        "index.checks.passed": {"en": "Passed / attempted", "zh": "通过 / 作答"},
        "index.checks.rate": {"en": "Pass rate", "zh": "通过率"},
        "index.checks.none_attempted": {"en": "skipped for everyone", "zh": "所有人均跳过"},
        "index.checks.none_graded": {"en": "No submission has been graded yet.", "zh": "尚无已评分的提交。"},
        "index.problems.heading": {"en": "Submissions that could not be graded", "zh": "无法评分的提交"},
        "index.problems.files": {"en": "Files", "zh": "文件"},
        "index.problems.reason": {"en": "Why", "zh": "原因"},
        "index.problems.none": {"en": "Every submission was graded.", "zh": "所有提交均已评分。"},
        "index.problems.no_reason": {"en": "no reason was recorded", "zh": "未记录原因"},
        "index.problem_unlisted": {
            "en": "{why} {args} (a reason this version of the grader does not describe)",
            "zh": "{why} {args}（此版本的评分器未收录该原因）",
        },
        "index.roster.heading": {"en": "Every student", "zh": "全部学生"},
        "index.roster.score": {"en": "Score", "zh": "得分"},
        "index.roster.percent": {"en": "Percent", "zh": "得分率"},
        "index.roster.first_failure": {"en": "First failing check", "zh": "第一个未通过的检查"},
        "index.roster.no_failure": {"en": "none: full marks", "zh": "无：满分"},
    }
)

# -- grade batch: the roster (who handed in what, from the SOURCE folders and zips) -----------------------
add_all(
    {
        "roster.missing": {
            "en": "no such file or folder: {path}; check the path",
            "zh": "文件或文件夹不存在：{path}；请检查路径",
        },
        "roster.bad_source": {
            "en": "{path} is not a folder, a .zip, a .py module or a .ipynb notebook; "
                  "pass the folder or zip of submissions you downloaded",
            "zh": "{path} 不是文件夹、.zip、.py 模块或 .ipynb 笔记本；请传入下载的作业文件夹或 zip 文件",
        },
        "roster.unreadable": {
            "en": "cannot read {path}: {error}",
            "zh": "无法读取 {path}：{error}",
        },
        "roster.bad_zip": {
            "en": "{path} is not a readable zip file ({error}); download it again, or unpack it yourself "
                  "and pass the folder",
            "zh": "{path} 不是可读取的 zip 文件（{error}）；请重新下载，或自行解压后传入文件夹",
        },
        "roster.zip_too_big": {
            "en": "{path} is too big to unpack safely (more than {entries} files or {size} unpacked); "
                  "unpack it yourself and pass the folder",
            "zh": "{path} 过大，无法安全解压（超过 {entries} 个文件或解压后超过 {size}）；请自行解压后传入文件夹",
        },
        "roster.bad_pattern": {
            "en": "--student-pattern {pattern} is not a valid regular expression: {error}",
            "zh": "--student-pattern {pattern} 不是有效的正则表达式：{error}",
        },
        "roster.bad_shard": {
            "en": "bad --shard {spec}: write K/N with 1 ≤ K ≤ N, such as 2/5",
            "zh": "--shard {spec} 无效：应写成 K/N，且 1 ≤ K ≤ N，例如 2/5",
        },
        "roster.not_submission": {
            "en": "{path} is not a .py module, a .ipynb notebook, a folder or a zip; it was left out "
                  "(--student-pattern gives such files to the students they name)",
            "zh": "{path} 不是 .py 模块、.ipynb 笔记本、文件夹或 zip 文件，已略过"
                  "（使用 --student-pattern 可将此类文件归入文件名中的学生）",
        },
        "roster.no_match": {
            "en": "{path}: the name does not match --student-pattern {pattern}; it was left out",
            "zh": "{path}：名称与 --student-pattern {pattern} 不匹配，已略过",
        },
        "roster.ambiguous": {
            "en": "{first} and {second} name students that cannot be told apart ({one} and {other} differ only "
                  "in spaces, letter case, Unicode form or invisible characters, or would share a feedback page): "
                  "rename one, or pass a --student-pattern that picks the same name out of both to grade them "
                  "as one student",
            "zh": "{first} 和 {second} 对应的学生无法区分（{one} 与 {other} 只在空格、大小写、Unicode 形式或"
                  "不可见字符上不同，或会共用同一个反馈页面）：请重命名其中一个；若要作为同一名学生评分，"
                  "请用 --student-pattern 从两者中取出相同的名字",
        },
        "roster.duplicate": {
            "en": "{path}: {student} already handed in a file of this name ({kept}); only that first one is used",
            "zh": "{path}：{student} 已提交过同名文件（{kept}），只使用先找到的那个",
        },
        "roster.symlink": {
            "en": "{path} is a symbolic link; links are not followed, so it was left out",
            "zh": "{path} 是符号链接；评分器不跟随链接，已略过",
        },
        "roster.not_theirs": {
            "en": "{path} is a second name of a file elsewhere (a hard link) or a file its folder's owner may "
                  "not read; it was left out, so that no sandbox gets a file its student could not give it",
            "zh": "{path} 是别处某个文件的另一个名字（硬链接），或是其所在文件夹的所有者无权读取的文件；"
                  "已略过，以免沙箱拿到该学生本无法交出的文件",
        },
        "roster.too_deep": {
            "en": "{path}: this zip entry lies more than {depth} folders deep; it was not unpacked",
            "zh": "{path}：该 zip 条目的目录层级超过 {depth} 层，未解压",
        },
        "roster.unsafe_entry": {
            "en": "{path}: this zip entry points outside its folder (an absolute path or ..); it was not unpacked",
            "zh": "{path}：该 zip 条目指向解压目录之外（绝对路径或 ..），未解压",
        },
        "roster.encrypted": {
            "en": "{path} is password-protected; it was not unpacked, so ask the student for an unprotected copy",
            "zh": "{path} 有密码保护，未解压；请让学生重新提交不加密的版本",
        },
        "roster.unextractable": {
            "en": "{path} could not be unpacked ({error}); it was left out",
            "zh": "{path} 无法解压（{error}），已略过",
        },
    }
)

# -- CI outputs: JUnit XML (grader/render/junit.py), GitHub annotations and step summary (render/github.py) --
add_all(
    {
        "ci.suite_name": {"en": "{exercise} · {title}", "zh": "{exercise} · {title}"},
        "ci.case_name": {"en": "{check} · {title}", "zh": "{check} · {title}"},
        "ci.points": {"en": "{score:g} / {max:g} points", "zh": "{score:g} / {max:g} 分"},
        "ci.grader_fault": {
            "en": "The grader itself failed on this check: this is not a mistake in the submission. "
                  "Tell your instructor, who can regrade it.",
            "zh": "评分器自身在这项检查上出错：这不是提交代码的问题。请告诉老师，老师可以重新评分。",
        },
        "ci.grader_faults": {
            "en": "The grader itself failed on {count} {count:check/checks}: this is not a mistake in the submission. "
                  "Tell your instructor, who can regrade it.",
            "zh": "评分器自身在 {count} 项检查上出错：这不是提交代码的问题。请告诉老师，老师可以重新评分。",
        },
        "ci.cells": {"en": "Cells that failed to run", "zh": "运行失败的单元格"},
        "ci.annotation_title": {"en": "{exercise} · {check} {status}", "zh": "{exercise} · {check} {status}"},
        "ci.at_cell": {"en": " (cell {cell})", "zh": "（单元格 {cell}）"},
        "ci.at_cell_line": {"en": " (cell {cell}, line {line})", "zh": "（单元格 {cell}，第 {line} 行）"},
        "ci.cell_title": {"en": "{unit} did not run", "zh": "{unit} 未能运行"},
        "ci.summary_title": {"en": "Grading results: {path}", "zh": "评分结果：{path}"},
        "ci.verdict_pass": {
            "en": "Passed: {score:g} / {max:g} points ({percent:g}%), threshold {threshold:g}%",
            "zh": "通过：{score:g} / {max:g} 分（{percent:g}%），及格线 {threshold:g}%",
        },
        "ci.verdict_fail": {
            "en": "Failed: {score:g} / {max:g} points ({percent:g}%), threshold {threshold:g}%",
            "zh": "未通过：{score:g} / {max:g} 分（{percent:g}%），及格线 {threshold:g}%",
        },
        "ci.col_exercise": {"en": "Exercise", "zh": "练习"},
        "ci.col_check": {"en": "Check", "zh": "检查"},
        "ci.col_status": {"en": "Status", "zh": "状态"},
        "ci.col_points": {"en": "Points", "zh": "得分"},
        "ci.col_message": {"en": "Message", "zh": "说明"},
    }
)

# -- grade ci: the course repository's configuration (grader/ci.py) and the command (grader/cli.py) ------
add_all(
    {
        "ci.config.missing": {
            "en": "cannot grade: the configuration {path} does not exist",
            "zh": "无法评分：配置文件 {path} 不存在",
        },
        "ci.config.none": {
            "en": "cannot grade: no grader.toml or pyproject.toml in {folder}; write one with a [tool.grader] "
                  "table (see the README, \"Course repositories (CI)\"), or name it with --config",
            "zh": "无法评分：{folder} 中没有 grader.toml 或 pyproject.toml；请写一个含 [tool.grader] 表的配置文件"
                  "（见 README 的“Course repositories (CI)”一节），或用 --config 指定",
        },
        "ci.config.unreadable": {
            "en": "cannot grade: the configuration {path} cannot be read: {error}",
            "zh": "无法评分：无法读取配置文件 {path}：{error}",
        },
        "ci.config.bad_toml": {
            "en": "cannot grade: {path} is not valid TOML: {error}",
            "zh": "无法评分：{path} 不是有效的 TOML：{error}",
        },
        "ci.config.no_table": {
            "en": "cannot grade: {path} has no [tool.grader] table; add one that names the files to grade, "
                  "such as files = [\"chapter3/*.ipynb\"]",
            "zh": "无法评分：{path} 中没有 [tool.grader] 表；请添加一个并写明要评分的文件，"
                  "例如 files = [\"chapter3/*.ipynb\"]",
        },
        "ci.config.unknown_key": {
            "en": "cannot grade: {path}: unknown key {name} in the grader's configuration; the keys are {keys}",
            "zh": "无法评分：{path}：评分配置中有未知的键 {name}；可用的键为 {keys}",
        },
        "ci.config.no_files": {
            "en": "cannot grade: {path}: the grader's configuration lacks files, the globs of the files to grade, "
                  "such as files = [\"chapter3/*.ipynb\", \"chapter3/*.py\"]",
            "zh": "无法评分：{path}：评分配置缺少 files，即要评分文件的通配模式，"
                  "例如 files = [\"chapter3/*.ipynb\", \"chapter3/*.py\"]",
        },
        "ci.config.bad_files": {
            "en": "cannot grade: {path}: files must be a list of globs such as [\"chapter3/*.ipynb\"], not {value}",
            "zh": "无法评分：{path}：files 应为通配模式的列表，例如 [\"chapter3/*.ipynb\"]，而不是 {value}",
        },
        "ci.config.bad_glob": {
            "en": "cannot grade: {path}: the files pattern {pattern} must be relative to the repository and stay "
                  "inside it (no leading /, no ..)",
            "zh": "无法评分：{path}：files 中的模式 {pattern} 必须相对于仓库根目录且不能越出仓库（不能以 / 开头，不能含 ..）",
        },
        "ci.config.bad_exercises": {
            "en": "cannot grade: {path}: exercises must be \"all\" or a list of exercise ids such as "
                  "[\"3.1\", \"mask\"], not {value}",
            "zh": "无法评分：{path}：exercises 应为 \"all\" 或练习编号的列表，例如 [\"3.1\", \"mask\"]，而不是 {value}",
        },
        "ci.config.bad_threshold": {
            "en": "cannot grade: {path}: threshold must be a number from 0 to 100 (percent of the points), not {value}",
            "zh": "无法评分：{path}：threshold 应为 0 到 100 之间的数（占总分的百分比），而不是 {value}",
        },
        "ci.config.bad_timeout": {
            "en": "cannot grade: {path}: timeout must be a number of seconds, at least 1, not {value}",
            "zh": "无法评分：{path}：timeout 应为不小于 1 的秒数，而不是 {value}",
        },
        "ci.config.bad_lang": {
            "en": "cannot grade: {path}: lang must be one of {choices}, not {value}",
            "zh": "无法评分：{path}：lang 应为 {choices} 之一，而不是 {value}",
        },
        "ci.config.bad_pages": {
            "en": "cannot grade: {path}: pages must be a folder name such as \"grader-pages\", not {value}",
            "zh": "无法评分：{path}：pages 应为文件夹名，例如 \"grader-pages\"，而不是 {value}",
        },
        "ci.config.no_match": {
            "en": "cannot grade: no file matches {globs} in {root}",
            "zh": "无法评分：{root} 中没有与 {globs} 匹配的文件",
        },
        "ci.config.same_name": {
            "en": "cannot grade: {first} and {second} have the same name; the files graded together must "
                  "have different names (narrow the files globs)",
            "zh": "无法评分：{first} 与 {second} 同名；一起评分的文件名称必须各不相同（请收窄 files 的通配模式）",
        },
        "ci.cmd.nothing_to_grade": {
            "en": "nothing to grade: none of the files given matches {globs}",
            "zh": "无需评分：给出的文件都不匹配 {globs}",
        },
        "ci.cmd.passed": {
            "en": "{percent}% of the points ({score}/{max_score}); the pass mark is {threshold}%: passed",
            "zh": "得分为总分的 {percent}%（{score}/{max_score}）；及格线为 {threshold}%：通过",
        },
        "ci.cmd.not_passed": {
            "en": "{percent}% of the points ({score}/{max_score}); the pass mark is {threshold}%: not passed",
            "zh": "得分为总分的 {percent}%（{score}/{max_score}）；及格线为 {threshold}%：未通过",
        },
        "ci.cmd.junit_written": {"en": "JUnit XML written to {path}", "zh": "JUnit XML 已写入 {path}"},
    }
)

# -- exercise sets and instructors' exercise folders --------------------------------------------------------
add_all(
    {
        "cli.no_exercise_folder": {
            "en": "cannot grade: --exercises {path} is not a folder",
            "zh": "无法评分：--exercises {path} 不是文件夹",
        },
        "cli.bad_exercise_file": {
            "en": "cannot grade: the exercise file {path} failed to load: {error}",
            "zh": "无法评分：练习文件 {path} 加载失败：{error}",
        },
    }
)

# -- instructors' exercises: a clash of ids, the configuration's exercise folders -----------------------------
add_all(
    {
        "cli.duplicate_exercise": {
            "en": "cannot grade: {path} defines exercise {id}, which another exercise already has",
            "zh": "无法评分：{path} 定义的练习 {id} 与已有练习重名",
        },
        "ci.config.bad_exercise_folders": {
            "en": "{path}: exercise_folders must be a list of folders inside the repository, not {value}",
            "zh": "{path}：exercise_folders 必须是仓库内文件夹的列表，而不是 {value}",
        },
    }
)

# -- the instructor's view of a class: the part a machine grades, common mistakes, look-alike submissions ----
add_all(
    {
        "shard.no_engine": {
            "en": "--shard auto: neither a Slurm job array (SLURM_ARRAY_TASK_ID) nor a Kubernetes Indexed Job "
                  "(JOB_COMPLETION_INDEX) started this job; pass --shard K/N (in a GitHub Actions matrix: "
                  "--shard ${{{{ matrix.shard }}}}/N)",
            "zh": "--shard auto：本作业既不是由 Slurm 作业数组（SLURM_ARRAY_TASK_ID）也不是由 Kubernetes Indexed Job"
                  "（JOB_COMPLETION_INDEX）启动的；请传入 --shard K/N（GitHub Actions 矩阵中写 "
                  "--shard ${{{{ matrix.shard }}}}/N）",
        },
        "shard.slurm_gaps": {
            "en": "--shard auto: Slurm task {task} is not one of {count} tasks counted from {low} in steps of {step}; "
                  "give the array as a range (--array=1-{count}) or pass --shard K/N",
            "zh": "--shard auto：Slurm 任务 {task} 不在从 {low} 起、步长为 {step} 的 {count} 个任务之中；"
                  "请把数组写成区间（--array=1-{count}），或传入 --shard K/N",
        },
        "shard.indexed_job_count": {
            "en": "--shard auto: a Kubernetes Indexed Job tells a pod its index but not how many shards there are: "
                  "pass --shards N or set {variable}=N (the job's completions)",
            "zh": "--shard auto：Kubernetes Indexed Job 只告诉 Pod 它的序号，不告诉分片总数：请传入 --shards N，"
                  "或设置 {variable}=N（即作业的 completions）",
        },
        "shard.index_outside": {
            "en": "--shard auto: JOB_COMPLETION_INDEX={index} is not below the {count} shards",
            "zh": "--shard auto：JOB_COMPLETION_INDEX={index} 不小于分片总数 {count}",
        },
        "shard.disagree": {
            "en": "--shards {shards} disagrees with {told}",
            "zh": "--shards {shards} 与 {told} 不一致",
        },
        "shard.bad_variable": {
            "en": "--shard auto: {name}={value} is not a whole number of the right size",
            "zh": "--shard auto：{name}={value} 不是大小合适的整数",
        },
        "index.checks.failed": {"en": "Who failed it", "zh": "未通过的学生"},
        "index.checks.failed_count": {"en": "{count} failed", "zh": "{count} 人未通过"},
        "index.mistakes.heading": {"en": "Common mistakes", "zh": "常见错误"},
        "index.mistakes.intro": {
            "en": "Every mistake a check named, with the students who made it, the most common first. A failure "
                  "no check names (the code raised, hung, or had no answer) is counted per check as \"other\". "
                  "Each name links to the check on the student's page.",
            "zh": "检查项指出的每一种错误及犯此错误的学生，按人数从多到少排列。检查项未具体指出的失败"
                  "（代码报错、超时或没有答案）按检查项归为“其他”。每个名字都链接到该学生页面上的对应检查项。",
        },
        "index.mistakes.mistake": {"en": "Mistake", "zh": "错误"},
        "index.mistakes.count": {"en": "Students", "zh": "人数"},
        "index.mistakes.students": {"en": "Who", "zh": "学生"},
        "index.mistakes.student_count": {"en": "{count} students", "zh": "{count} 名学生"},
        "index.mistakes.other": {"en": "other", "zh": "其他"},
        "index.mistakes.example": {"en": "what the first of them was told", "zh": "其中第一位学生收到的反馈"},
        "index.mistakes.none": {"en": "No check failed.", "zh": "没有未通过的检查项。"},
        "similar.heading": {"en": "Unusually alike submissions", "zh": "异常相似的提交"},
        "similar.intro": {
            "en": "Pairs of the {compared} submissions compared whose own code shares at least {threshold} of the "
                  "smaller one's passages. Code the class was given (the student template, the book's and the "
                  "lecture's code, the instructor's boilerplate) does not count, however it is typed, nor do "
                  "passages most of the class shares; comments, docstrings, names, layout, statements that do "
                  "nothing, the order of definitions and how the code is cut into cells are ignored.",
            "zh": "在比较的 {compared} 份提交中，各自编写的代码相同片段至少占较小一份的 {threshold} 的提交对。全班都"
                  "拿到的代码（学生模板、书中和课程中的代码、教师提供的样板代码）无论怎样录入都不计入，班上多数人"
                  "共有的片段也不计入；注释、文档字符串、命名、排版、不起作用的语句、定义的顺序以及代码如何分成"
                  "单元格均被忽略。",
        },
        "similar.caution": {
            "en": "Unusually alike, worth a look: this is not a finding of copying. Students may have followed the "
                  "same tutorial or worked together as allowed; read the passages side by side before asking.",
            "zh": "异常相似，值得一看：这并不是抄袭的结论。学生可能参考了同一份教程，或按规定合作完成；"
                  "请先并排阅读相同的片段，再去询问。",
        },
        "similar.pair": {"en": "Students", "zh": "学生"},
        "similar.score": {"en": "Score", "zh": "相似度"},
        "similar.shared": {"en": "Shared fingerprints", "zh": "相同指纹数"},
        "similar.compare": {"en": "Passages", "zh": "片段"},
        "similar.side_by_side": {"en": "side by side", "zh": "并排对比"},
        "similar.none": {
            "en": "No pair of the {compared} submissions is unusually alike (threshold {threshold}).",
            "zh": "{compared} 份提交中没有异常相似的提交对（阈值 {threshold}）。",
        },
        "similar.page.title": {"en": "{a} and {b}: unusually alike, worth a look",
                               "zh": "{a} 与 {b}：异常相似，值得一看"},
        "similar.page.summary": {
            "en": "Score {score} (threshold {threshold}): {shared} fingerprints in common. Marked lines are in "
                  "passages both submissions hold; code the class was given is never marked.",
            "zh": "相似度 {score}（阈值 {threshold}）：共有 {shared} 个相同指纹。标记的行属于两份提交共有的片段；"
                  "全班都拿到的代码不会被标记。",
        },
        "similar.terminal_pair": {"en": "unusually alike, worth a look: {a} · {b}  {score} (threshold {threshold})",
                                  "zh": "异常相似，值得一看：{a} · {b}  {score}（阈值 {threshold}）"},
        "similar.summary": {
            "en": "{pairs} pairs of {compared} submissions are unusually alike (threshold {threshold}): {path}",
            "zh": "{compared} 份提交中有 {pairs} 对异常相似（阈值 {threshold}）：{path}",
        },
        "similar.no_code": {
            "en": "{count} students are not compared: their gradebook rows come from a grader that kept no code "
                  "(grade them again with grade batch --force)",
            "zh": "有 {count} 名学生未参与比较：他们的成绩记录来自不保存代码的旧版评分器"
                  "（请用 grade batch --force 重新评分）",
        },
        "similar.no_boilerplate": {"en": "--boilerplate {path}: no such file", "zh": "--boilerplate {path}：文件不存在"},
        "shard.shards_without_auto": {
            "en": "--shards N goes with --shard auto (or says N of --shard K/N again)",
            "zh": "--shards N 需与 --shard auto 一起使用（或与 --shard K/N 中的 N 相同）",
        },
    }
)
