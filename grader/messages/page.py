"""Messages: the feedback page, the inline view in Jupyter, the terminal summary and `%grade`.

Pure data, in every language of grader.messages.catalogue.LANGS; the catalogue loads it.
"""
MESSAGES: dict[str, dict[str, str]] = {
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
    # The run's details, folded under the checks (a phone shows the score and the first check first).
    "page.details": {"en": "About this run: when, how long, seed, sandbox", "zh": "本次评分的详情：时间、时长、随机种子、沙箱"},
    "page.protections_intro": {
        "en": "Your code ran in a sandbox, apart from the grader and from other students' work:",
        "zh": "你的代码在沙箱中运行，与评分器和其他同学的作业相互隔离：",
    },
    # What each protection of the sandbox (RunResult.protections) does, in plain words; a name not here is shown as is.
    "page.protection.pid-namespace": {"en": "it sees only its own processes", "zh": "只能看到自己的进程"},
    "page.protection.network-namespace": {"en": "no network", "zh": "无法访问网络"},
    "page.protection.mount-namespace": {"en": "a file system of its own", "zh": "使用独立的文件系统视图"},
    "page.protection.user-namespace": {"en": "no administrator rights", "zh": "没有管理员权限"},
    "page.protection.private-proc": {"en": "the computer's other processes are hidden",
                                     "zh": "看不到这台计算机上的其他进程"},
    "page.protection.disk-quota": {"en": "a limited amount of disk space", "zh": "磁盘空间有限"},
    "page.protection.disk-watch": {"en": "its disk use is watched", "zh": "磁盘用量受到监控"},
    "page.protection.memory-limit": {"en": "a memory limit", "zh": "内存上限"},
    "page.protection.memory-cgroup": {"en": "a memory limit", "zh": "内存上限"},
    "page.protection.memory-watch": {"en": "its memory use is watched", "zh": "内存用量受到监控"},
    "page.protection.cpu-limit": {"en": "a limit on processor time", "zh": "处理器时间上限"},
    "page.protection.file-size-limit": {"en": "a limit on file size", "zh": "文件大小上限"},
    "page.protection.open-files-limit": {"en": "a limit on open files", "zh": "打开文件数上限"},
    "page.protection.process-limit": {"en": "a limit on the number of processes", "zh": "进程数上限"},
    "page.protection.no-core-dumps": {"en": "no crash dumps", "zh": "不生成崩溃转储"},
    "page.protection.landlock": {"en": "it may read and write only its own files",
                                 "zh": "只能读写自己的文件"},
    "page.protection.unprivileged-user": {"en": "it runs as a user without rights", "zh": "以无特权用户身份运行"},
    "page.protection.seccomp": {"en": "dangerous system calls are blocked", "zh": "危险的系统调用被禁止"},
    "page.protection.subreaper": {"en": "every process it starts is ended with it",
                                  "zh": "它启动的每个进程都会随之结束"},
    "page.protection.single-use-worker": {"en": "a fresh process for each submission", "zh": "每份提交使用全新的进程"},
    "page.protection.deadlines": {"en": "time limits", "zh": "运行时间限制"},
    "page.protection.process-group-kill": {"en": "everything it left running is stopped",
                                           "zh": "它留下的进程都会被终止"},
    "page.protection.scratch-copy": {"en": "it works on a copy of your files", "zh": "在你的文件的副本上运行"},
    "page.protection.output-capture": {"en": "its output is captured", "zh": "输出被记录下来"},
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
    "term.total": {"en": "Total", "zh": "总分"},
    # What stands in for withheld detail until the course releases it (grader.results.release).
    "release.withheld": {"en": "Details are released later.", "zh": "详细反馈稍后公布。"},
    "release.all_checks": {"en": "All checks", "zh": "全部检查"},
}
