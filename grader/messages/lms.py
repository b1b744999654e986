"""Messages: a class's grades as files an LMS imports (`grade export --format canvas|moodle|lms`), and the
late mark of a hand-in the LMS named late.

Pure data, in every language of grader.messages.catalogue.LANGS; the catalogue loads it.
"""
MESSAGES: dict[str, dict[str, str]] = {
    # -- what the options ask for ------------------------------------------------------------------------------
    "lms.needs_option": {
        "en": "--format {format} needs {option}",
        "zh": "--format {format} 需要 {option}",
    },
    "lms.unused_option": {
        "en": "{option} is not read by --format {format}; leave it out",
        "zh": "--format {format} 不使用 {option}；请去掉它",
    },
    "lms.moodle_identifier": {
        "en": "--identifier {identifier}: Moodle matches students by email, username or idnumber",
        "zh": "--identifier {identifier}：Moodle 只能按 email、username 或 idnumber 匹配学生",
    },
    "lms.many_sets": {
        "en": "the gradebook holds results of several exercise sets ({sets}); an LMS column takes one grade a "
              "student: export the output folder of one batch",
        "zh": "成绩册中有多个练习集的结果（{sets}）；LMS 的一列每个学生只有一个成绩："
              "请导出单次批量评分的输出文件夹",
    },
    # -- the files it reads ------------------------------------------------------------------------------------
    "lms.no_file": {
        "en": "no such file: {path}; check the path",
        "zh": "文件不存在：{path}；请检查路径",
    },
    "lms.not_text": {
        "en": "{path} is not UTF-8 text ({error}); save it as UTF-8 CSV",
        "zh": "{path} 不是 UTF-8 文本（{error}）；请另存为 UTF-8 编码的 CSV",
    },
    "lms.bad_csv": {
        "en": "{path} line {line}: not CSV ({error})",
        "zh": "{path} 第 {line} 行：不是合法的 CSV（{error}）",
    },
    "lms.csv.unclosed": {"en": "a quote is never closed", "zh": "引号没有闭合"},
    "lms.csv.after_quote": {"en": "text after a closing quote", "zh": "闭合引号后还有文字"},
    "lms.roster_no_column": {
        "en": "the roster {path} has no `{column}` column (it has: {columns})",
        "zh": "名单 {path} 中没有 `{column}` 列（现有列：{columns}）",
    },
    "lms.roster_twice": {
        "en": "the roster {path} lists {student} twice (lines {first} and {second}); keep one row a student",
        "zh": "名单 {path} 中 {student} 出现了两次（第 {first} 行和第 {second} 行）；每个学生只保留一行",
    },
    "lms.canvas_no_column": {
        "en": "{path} has no `{column}` column: is it Canvas's gradebook export (Grades → Export → CSV)?",
        "zh": "{path} 中没有 `{column}` 列：它是 Canvas 成绩册导出的文件吗（成绩 → 导出 → CSV）？",
    },
    "lms.canvas_no_assignment": {
        "en": "{path} has no assignment column `{assignment}` (its assignments: {columns})",
        "zh": "{path} 中没有作业列 `{assignment}`（其中的作业：{columns}）",
    },
    "lms.canvas_ambiguous": {
        "en": "`{assignment}` names several columns of {path} ({columns}): give the whole header or the "
              "assignment's id",
        "zh": "`{assignment}` 对应 {path} 中的多列（{columns}）：请给出完整的列标题或作业的 id",
    },
    "lms.canvas_read_only": {
        "en": "the column `{column}` of {path} is read only (Canvas computes it): name an assignment column",
        "zh": "{path} 中的 `{column}` 列是只读的（由 Canvas 计算）：请指定一个作业列",
    },
    "lms.canvas_no_points": {
        "en": "{path} has no Points Possible for `{column}` ({value}), so points cannot be scaled to it; "
              "pass --no-scale to write the grader's points as they are",
        "zh": "{path} 中 `{column}` 没有满分值（Points Possible：{value}），无法按比例换算分数；"
              "用 --no-scale 可按评分器的原始分数写入",
    },
    "lms.canvas_short_row": {
        "en": "{path} line {line}: the row has {count} fields, fewer than the header's; is the file whole?",
        "zh": "{path} 第 {line} 行：该行只有 {count} 个字段，少于标题行；文件完整吗？",
    },
    "lms.canvas_same_row": {
        "en": "{students} all match the row of {row} in {path}: each student needs their own row; fix the "
              "roster or the students' names",
        "zh": "{students} 都匹配到 {path} 中 {row} 这一行：每个学生应对应各自的一行；请修正名单或学生名称",
    },
    # -- what it did, on stderr ---------------------------------------------------------------------------------
    "lms.filled": {
        "en": "{count} {count:grade/grades} written to `{column}`{penalty}",
        "zh": "已将 {count} 个成绩写入 `{column}`{penalty}",
    },
    "lms.written": {
        "en": "{count} {count:grade/grades} written{penalty}",
        "zh": "已写入 {count} 个成绩{penalty}",
    },
    "lms.penalised": {
        "en": " ({count} late, {percent}% off)",
        "zh": "（{count} 份迟交，扣 {percent}%）",
    },
    "lms.unmatched_ours": {
        "en": "{count} {count:student/students} of the gradebook matched no row of {path}, not exported: {names}",
        "zh": "成绩册中有 {count} 名学生在 {path} 中没有对应的行，未导出：{names}",
    },
    "lms.unmatched_theirs": {
        "en": "{count} {count:row/rows} of {path} matched no result, left as they were: {names}",
        "zh": "{path} 中有 {count} 行没有对应的评分结果，保持原样：{names}",
    },
    "lms.no_grade": {
        "en": "{count} {count:student/students} without a grade (could not be graded, or a grader error), "
              "left blank: {names}",
        "zh": "{count} 名学生没有成绩（无法评分或评分器出错），留空：{names}",
    },
    "lms.anonymous": {
        "en": "{count} anonymous {count:hand-in/hand-ins} (Canvas's anonymous grading: an anon_ id is no user id) "
              "cannot be matched without a roster that names {count:it/them} (`student` column: the anon_ id), not "
              "exported: {names}",
        "zh": "{count} 份匿名提交（Canvas 匿名评分：anon_ 编号不是用户编号）在没有名单指明其身份时无法对应"
              "（名单的 `student` 列填 anon_ 编号），未导出：{names}",
    },
    "lms.left_out": {
        "en": "{count} {count:hand-in/hand-ins} left out by `grade batch` (see its index.html) {count:has/have} no "
              "grade, and {count:its/their} {count:student is/students are} missing from this file: {names}",
        "zh": "{count} 份提交文件被 `grade batch` 略过（见其 index.html），没有成绩，其学生不在本文件中：{names}",
    },
    "lms.more": {"en": "{names} and {count} more", "zh": "{names} 等另外 {count} 人"},
    # -- the feedback column (Moodle, the generic CSV) ------------------------------------------------------------
    "lms.feedback.score": {"en": "{score}/{max} points", "zh": "{score}/{max} 分"},
    "lms.feedback.full": {"en": "full marks", "zh": "满分"},
    "lms.feedback.lost": {"en": "points lost in {exercises}", "zh": "失分的练习：{exercises}"},
    "lms.feedback.late": {"en": "handed in late", "zh": "迟交"},
    "lms.feedback.penalty": {
        "en": "handed in late: {percent}% off, {grade}/{max}",
        "zh": "迟交：扣 {percent}%，得 {grade}/{max} 分",
    },
    "lms.feedback.join": {"en": "; ", "zh": "；"},
    # -- the class overview: a hand-in the LMS named late ----------------------------------------------------------
    "index.late": {"en": "late", "zh": "迟交"},
}
