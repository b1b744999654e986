"""Messages: grading a class: `grade batch`, export and merge, the roster, shards, Gradescope, the class overview,
its common mistakes and look-alike submissions.

Pure data, in every language of grader.messages.catalogue.LANGS; the catalogue loads it.
"""
MESSAGES: dict[str, dict[str, str]] = {
    # -- grade batch, export, merge: the run's summary and what can go wrong ---------------------------------
    "batch.count.students": {"en": "students", "zh": "学生"},
    "batch.count.already": {"en": "already graded (unchanged)", "zh": "此前已评分（未改动）"},
    "batch.count.graded": {"en": "graded now", "zh": "本次评分"},
    "batch.count.full": {"en": "  with full marks", "zh": "  其中满分"},
    "batch.count.ungradable": {"en": "could not be graded", "zh": "无法评分"},
    "batch.count.errors": {"en": "grader errors (graded again next run)", "zh": "评分器错误（下次运行时重新评分）"},
    "batch.count.left_out": {"en": "hand-ins left out (see index.html)", "zh": "未评分的提交文件（见 index.html）"},
    "batch.count.seconds": {"en": "seconds", "zh": "用时（秒）"},
    "batch.count.rate": {"en": "submissions per second", "zh": "每秒评分份数"},
    "batch.index": {"en": "class overview: {path}", "zh": "全班概览：{path}"},
    "batch.no_gradebook": {
        "en": "no gradebook in {path}: run `grade batch SOURCE -o {path}` first",
        "zh": "{path} 中没有成绩册：请先运行 `grade batch SOURCE -o {path}`",
    },
    "batch.definition_changed": {
        "en": "{exercise} changed since the last run: {count} {count:submission/submissions} to grade again "
              "(their earlier results stay in the gradebook's history)",
        "zh": "{exercise} 自上次运行以来已修改：{count} 份提交将重新评分（之前的结果保留在成绩册的历史中）",
    },
    "batch.merged": {"en": "merged {shards} gradebooks: {rows} new results", "zh": "已合并 {shards} 个成绩册：新增 {rows} 条结果"},
    "results.newer_format": {
        "en": "a result in format {found}, which this grader cannot read (it reads formats up to {reads}): a newer "
              "grader wrote it; upgrade this one (pip install -U llm-from-scratch-grader)",
        "zh": "一条格式为 {found} 的结果，本评分器无法读取（它只能读取 {reads} 及以前的格式）：它由更新版本的评分器写入；"
              "请升级本评分器（pip install -U llm-from-scratch-grader）",
    },
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
    # -- grade adjust: a score a person sets (grader/classes/adjustments.py) and how every output shows it ------
    "adjust.no_by": {
        "en": "say who sets the score: --by NAME (it is kept in the gradebook and shown with the score)",
        "zh": "请用 --by NAME 说明是谁设定该分数（记录在成绩册中，并与分数一同显示）",
    },
    "adjust.no_why": {
        "en": "say why: --why TEXT (the student's page shows it beside the adjusted score)",
        "zh": "请用 --why TEXT 说明原因（学生的反馈页会在调整后的分数旁显示）",
    },
    "adjust.too_long": {
        "en": "{option} is longer than {max} characters; say it shorter",
        "zh": "{option} 超过 {max} 个字符；请写得简短些",
    },
    "adjust.no_points": {
        "en": "give the exercise's new score (POINTS), or --undo to take an adjustment back",
        "zh": "请给出该练习的新分数（POINTS），或用 --undo 撤销调整",
    },
    "adjust.points_with_undo": {
        "en": "--undo takes no POINTS: it gives the grader's own score back",
        "zh": "--undo 不接受 POINTS：它会恢复评分器自己的分数",
    },
    "adjust.unknown_student": {
        "en": "no student named {student} in the gradebook; `grade export OUTDIR --format csv` lists them",
        "zh": "成绩册中没有名为 {student} 的学生；`grade export OUTDIR --format csv` 会列出所有学生",
    },
    "adjust.namesakes": {
        "en": "{student} is the name of more than one student (LMS ids {ids}); give the id of the one you mean",
        "zh": "名为 {student} 的学生不止一位（LMS 编号 {ids}）；请改用你所指学生的编号",
    },
    "adjust.no_exercise": {
        "en": "{student} has no graded result of exercise {exercise} (graded: {graded})",
        "zh": "{student} 没有练习 {exercise} 的评分结果（已评分的练习：{graded}）",
    },
    "adjust.not_a_number": {
        "en": "{points} is not a number: give exercise {exercise}'s new score, such as 7.5",
        "zh": "{points} 不是数字：请给出练习 {exercise} 的新分数，例如 7.5",
    },
    "adjust.points_range": {
        "en": "{points} is not a score of exercise {exercise}: give a number from 0 to {max:g}",
        "zh": "{points} 不是练习 {exercise} 的有效分数：请给出 0 到 {max:g} 之间的数",
    },
    "adjust.nothing_to_undo": {
        "en": "{student}'s exercise {exercise} has no adjustment to take back",
        "zh": "{student} 的练习 {exercise} 没有可以撤销的调整",
    },
    "adjust.done": {
        "en": "{student} {exercise}: {before:g} -> {after:g} of {max:g} points, set by {by} (the grader's own "
              "score: {own:g})",
        "zh": "{student} {exercise}：{before:g} -> {after:g} 分（满分 {max:g}），由 {by} 设定（评分器自己的分数：{own:g}）",
    },
    "adjust.undone": {
        "en": "{student} {exercise}: adjustment taken back, {before:g} -> {after:g} of {max:g} points (the "
              "grader's own score)",
        "zh": "{student} {exercise}：已撤销调整，{before:g} -> {after:g} 分（满分 {max:g}，评分器自己的分数）",
    },
    "adjust.drifted": {
        "en": "{student} {exercise}: the grader's own score is now {now:g}, it was {then:g} when {by} adjusted it to "
              "{points:g} ({date}); the adjusted score stays: run `grade adjust` again to change it",
        "zh": "{student} {exercise}：评分器自己的分数现为 {now:g}，{by} 将其调整为 {points:g} 时（{date}）为 "
              "{then:g}；调整后的分数保持不变：如需更改，请再次运行 `grade adjust`",
    },
    "adjust.by": {
        "en": "Adjusted by {by} on {date}: {why}",
        "zh": "由 {by} 于 {date} 调整：{why}",
    },
    "adjust.own": {
        "en": "The grader's own score: {own:g} / {max:g}",
        "zh": "评分器自己的分数：{own:g} / {max:g}",
    },
    "adjust.own_changed": {
        "en": "The grader's own score: {now:g} / {max:g} (it was {then:g} when the score was adjusted)",
        "zh": "评分器自己的分数：{now:g} / {max:g}（调整分数时为 {then:g}）",
    },
    "adjust.mark": {"en": "adjusted by a person", "zh": "已人工调整"},
    "adjust.marked": {"en": "adjusted: {exercises}", "zh": "已调整：{exercises}"},
    # -- Gradescope results.json (grader/render/gradescope.py) -------------------------------------------------
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
    "gradescope.details_name": {"en": "{exercise} · {title} (details)", "zh": "{exercise} · {title}（详细反馈）"},
    "gradescope.submission_details": {"en": "Your submission (details)", "zh": "你的提交（详细反馈）"},
    # -- feedback released when the course says (grader/classes/release.py, `grade release`) ------------------
    "release.kept": {
        "en": "before release, students see: {policy} (`grade release {path}` shows them everything)",
        "zh": "公布前学生可见：{policy}（运行 `grade release {path}` 后可见全部反馈）",
    },
    "release.done": {
        "en": "feedback released: {count} {count:page/pages} written in full in {path}",
        "zh": "反馈已公布：{path} 中的 {count} 个反馈页已完整重写",
    },
    # -- the class overview (grader.render.classbook): index.html and why a submission has no result ---------
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
    "index.left_out": {"en": "Hand-ins left out", "zh": "未评分的提交文件"},
    "index.left_out.intro": {
        "en": "{count} {count:hand-in/hand-ins} got no grade: no student of this class has a result from "
              "{count:it/them}. Fix what the reason says (a --student-pattern that matches the name, a readable "
              "copy) and run the same command again.",
        "zh": "{count} 个提交文件没有得到成绩：本班没有任何学生的结果来自这些文件。请按原因处理"
              "（让 --student-pattern 匹配其名称，或换一份可读取的副本），然后再次运行同一命令。",
    },
    "index.left_out.file": {"en": "Handed-in file", "zh": "提交的文件"},
    "index.other_files": {
        "en": "{count} other {count:file was/files were} not graded: not a hand-in (a .py, .ipynb or zip)",
        "zh": "另有 {count} 个文件未评分：它们不是提交文件（不是 .py、.ipynb 或 zip）",
    },
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
    # -- grade batch: the roster (who handed in what, from the SOURCE folders and zips) -----------------------
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
    # -- the instructor's view of a class: the part a machine grades, common mistakes, look-alike submissions ----
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
        "en": "Every mistake a check named, with the students who made it, the most common first. The failures "
              "no check names (the code raised, hung, or had no answer) are one row per exercise. Each name links "
              "to the check on the student's page.",
        "zh": "检查项指出的每一种错误及犯此错误的学生，按人数从多到少排列。检查项未具体指出的失败"
              "（代码报错、超时或没有答案）每个练习归为一行。每个名字都链接到该学生页面上的对应检查项。",
    },
    "index.mistakes.mistake": {"en": "Mistake", "zh": "错误"},
    "index.mistakes.count": {"en": "Students", "zh": "人数"},
    "index.mistakes.students": {"en": "Who", "zh": "学生"},
    "index.mistakes.student_count": {"en": "{count} {count:student/students}", "zh": "{count} 名学生"},
    "index.mistakes.other": {"en": "Other failures: the code raised, hung or had no answer",
                             "zh": "其他未通过：代码抛出异常、卡住或没有给出答案"},
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
