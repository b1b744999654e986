"""Messages: what grading one submission says: the problems a file can have, the checks' verdicts and hints, the
cells that did not run, the exercises and their sets, the files beside a submission.

Pure data, in every language of grader.messages.catalogue.LANGS; the catalogue loads it.
"""
MESSAGES: dict[str, dict[str, str]] = {
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
    "cli.merge_conflict": {
        "en": "cannot grade: {path} holds a merge conflict that git could not resolve (the `<<<<<<<` marker at "
              "line {line}): open it in a text editor, keep one side of each conflict and delete the `<<<<<<<`, "
              "`=======` and `>>>>>>>` lines (or `git checkout --ours` / `--theirs` it), then open it in Jupyter "
              "and save",
        "zh": "无法评分：{path} 中有 git 无法自动解决的合并冲突（第 {line} 行的 `<<<<<<<` 标记）：请用文本编辑器打开，"
              "每处冲突只保留一边，并删除 `<<<<<<<`、`=======`、`>>>>>>>` 这几行（或用 `git checkout --ours` / "
              "`--theirs`），然后在 Jupyter 中打开并保存",
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
    # the terminal summary: a named bug that several failed checks of an exercise share, told once
    "term.cause_checks": {"en": "It fails {count} {count:check/checks}: {checks}.",
                          "zh": "它导致 {count} 项检查未通过：{checks}。"},
    "list.sep": {"en": ", ", "zh": "、"},
    "list.and": {"en": "{items} and {last}", "zh": "{items}、{last}"},
    "check.not_found": {
        "en": "No answer found: {what}",
        "zh": "未找到答案：{what}",
    },
    "check.grader_code": {
        "en": "No answer found: {what} Found {found}: that is the grader's own code, not yours (the grader keeps "
              "a copy of the book's code to compare submissions with), and code of the grader earns nothing. "
              "Write the answer in your own file: the book's code typed or pasted there counts as yours.",
        "zh": "未找到答案：{what} 找到的是 {found}：这是评分器自带的代码，不是你的代码（评分器保存了一份书中的代码，"
              "用来比较各份提交），评分器的代码不得分。请把答案写在你自己的文件里：在那里输入或粘贴的书中代码算作你的。",
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
    "check.not_understood": {
        "en": "{name} raised {error}: the grader builds your class with the book's values, by the book's "
              "parameter names where it understands every one of yours (in any order), and did not understand "
              "{unknown}. Name them as the book does (d_in, d_out, context_length, dropout, num_heads, qkv_bias).",
        "zh": "{name} 抛出了 {error}：评分器用书中的取值构建你的类；当你的每个参数名它都能理解时按书中的参数名传入"
              "（顺序不限），但它无法理解 {unknown}。请按书中的方式命名（d_in、d_out、context_length、dropout、"
              "num_heads、qkv_bias）。",
    },
    "check.graded_as": {
        "en": "(Graded as the exercise's names: {renames}. No class carries the name the exercise uses, so the "
              "grader took the one class named close to it; rename yours to the name after the arrow.)",
        "zh": "（按练习中的名称评分：{renames}。没有类使用练习规定的名称，因此评分器采用了唯一一个名称相近的类；"
              "请把你的类改成箭头后面的名称。）",
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
    "check.memory_full": {
        "en": "The submission held more than {mib:g} MiB of memory (all its processes together) while running "
              "{name} and was stopped.",
        "zh": "运行 {name} 时提交（其所有进程合计）占用了超过 {mib:g} MiB 的内存，已被终止。",
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
    "check.found_as": {
        "en": "(Graded as the exercise's names: {renames}. Nothing of yours carries the name the exercise uses, "
              "so the grader took the one answer of yours that is what the exercise asks for, by what it measured "
              "it to be and do; name yours as the exercise does to be sure it is found.)",
        "zh": "（按练习中的名称评分：{renames}。你的代码中没有使用练习规定的名称，因此评分器按它测得的形状和行为，"
              "采用了你唯一一个符合练习要求的答案；请按练习中的名称命名，以确保能被找到。）",
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
    "cell.memory_full": {
        "en": "{unit}: held more than {mib:g} MiB of memory (all its processes together), was stopped and skipped",
        "zh": "{unit}：（所有进程合计）占用了超过 {mib:g} MiB 的内存，已被终止并跳过",
    },
    "cell.unlisted": {
        "en": "and {count} more {count:cell/cells} that failed to run (not listed)",
        "zh": "另有 {count} 个运行失败的单元格（未列出）",
    },
    "unit.cell": {"en": "cell {cell}", "zh": "单元格 {cell}"},
    "unit.cell_line": {"en": "cell {cell}, line {line}", "zh": "单元格 {cell}，第 {line} 行"},
    "unit.file_line": {"en": "{file}, line {line}", "zh": "{file}，第 {line} 行"},
    "unit.input": {"en": "In [{count}]", "zh": "In [{count}]"},
    "unit.input_line": {"en": "In [{count}], line {line}", "zh": "In [{count}]，第 {line} 行"},
    "status.passed": {"en": "passed", "zh": "通过"},
    "status.failed": {"en": "failed", "zh": "未通过"},
    "status.error": {"en": "grader error", "zh": "评分器错误"},
    "status.skipped": {"en": "skipped", "zh": "跳过"},
    # -- a notebook read although its file is off the format ----------------------------------------------------
    "page.header_title": {"en": "Notebook file", "zh": "笔记本文件"},
    "page.header": {
        "en": "Your notebook's file is not in the standard format ({header}), but every cell has the usual shape, "
              "so its cells were read and graded as usual. Saving it again from Jupyter writes a standard file.",
        "zh": "你的笔记本文件不是标准格式（{header}），但每个单元格都是常见的格式，因此照常读取并评分。"
              "在 Jupyter 中重新保存即可写出标准文件。",
    },
    # -- single-file mode: the files beside a submission that its caps left out ----------------------------------
    "page.left_out_title": {"en": "Files not copied", "zh": "未复制的文件"},
    "page.left_out": {
        "en": "{count} files beside your submission were not copied for your code to open: the grader copies at "
              "most {max_files} files and {max_mib} MiB from its folder, the files your code names first. "
              "Not copied: {names}",
        "zh": "你的提交旁有 {count} 个文件没有复制过来供代码打开：评分器最多从它的文件夹复制 {max_files} 个文件、"
              "共 {max_mib} MiB，代码中写到的文件优先。未复制：{names}",
    },
    # -- characters in messages: shown with repr, whitespace named, never as empty quotes ------------------------
    "chars.list": {"en": "{first}, {rest}", "zh": "{first}、{rest}"},
    "chars.none": {"en": "none", "zh": "无"},
    "chars.empty": {"en": "an empty string", "zh": "空字符串"},
    "chars.end": {"en": "the end of the string", "zh": "字符串末尾"},
    "chars.space": {"en": "' ' (a space)", "zh": "' '（空格）"},
    "chars.newline": {"en": "'\\n' (a newline)", "zh": "'\\n'（换行符）"},
    "chars.tab": {"en": "'\\t' (a tab)", "zh": "'\\t'（制表符）"},
    "chars.whitespace": {"en": "{char} (whitespace)", "zh": "{char}（空白字符）"},
    # -- `grade --open`: a block of its own, apart from the keys the feedback page adds ------------------------
    "cli.open_failed": {
        "en": "could not open the feedback page in a browser: {error}",
        "zh": "无法在浏览器中打开反馈页面：{error}",
    },
    "cli.no_browser": {
        "en": "could not open the feedback page: no browser found, or the browser failed to start",
        "zh": "无法打开反馈页面：未找到浏览器，或浏览器启动失败",
    },
    # -- exercise sets and instructors' exercise folders --------------------------------------------------------
    "cli.no_exercise_folder": {
        "en": "cannot grade: --exercises {path} is not a folder",
        "zh": "无法评分：--exercises {path} 不是文件夹",
    },
    "cli.bad_exercise_file": {
        "en": "cannot grade: the exercise file {path} failed to load: {error}",
        "zh": "无法评分：练习文件 {path} 加载失败：{error}",
    },
    # -- instructors' exercises: a clash of ids, the configuration's exercise folders -----------------------------
    "cli.duplicate_exercise": {
        "en": "cannot grade: {path} defines exercise {id}, which another exercise already has",
        "zh": "无法评分：{path} 定义的练习 {id} 与已有练习重名",
    },
    "ci.config.bad_exercise_folders": {
        "en": "{path}: exercise_folders must be a list of folders inside the repository, not {value}",
        "zh": "{path}：exercise_folders 必须是仓库内文件夹的列表，而不是 {value}",
    },
}
