"""Messages: a course repository in CI: JUnit XML, GitHub annotations and step summary, `grade ci` and its configuration.

Pure data, in every language of grader.messages.catalogue.LANGS; the catalogue loads it.
"""
MESSAGES: dict[str, dict[str, str]] = {
    # -- CI outputs: JUnit XML (grader/render/junit.py), GitHub annotations and step summary (render/github.py) --
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
    # a check by its title, as the summary's table shows it (its id is the grader's, not the student's)
    "ci.annotation_title": {"en": "{exercise} · {title}: {status}", "zh": "{exercise} · {title}：{status}"},
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
    # -- grade ci: the course repository's configuration (grader/integrations/ci.py) and the command (grader/cli/ci.py) ---
    "ci.config.missing": {
        "en": "cannot grade: the configuration {path} does not exist",
        "zh": "无法评分：配置文件 {path} 不存在",
    },
    "ci.config.none": {
        "en": "cannot grade: no grader.toml or pyproject.toml in {folder}; write one with a [tool.grader] "
              "table (see docs/course-ci.md), or name it with --config",
        "zh": "无法评分：{folder} 中没有 grader.toml 或 pyproject.toml；请写一个含 [tool.grader] 表的配置文件"
              "（见 docs/course-ci.md），或用 --config 指定",
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
    "ci.config.bad_before_release": {
        "en": "cannot grade: {path}: before_release must be one of {choices}, not {value}",
        "zh": "无法评分：{path}：before_release 应为 {choices} 之一，而不是 {value}",
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
