"""Messages: what the command line's edge says when it cannot run a command: a usage error, as click lays it
out (the usage line, where to find help, the error), and a failure of the grader itself.

Pure data, in every language of grader.messages.catalogue.LANGS; the catalogue loads it.
"""
MESSAGES: dict[str, dict[str, str]] = {
    "usage.usage": {"en": "Usage: {usage}", "zh": "用法：{usage}"},
    "usage.help": {"en": "Try '{command}' for help.", "zh": "运行 '{command}' 查看帮助。"},
    "usage.error": {"en": "Error: {error}", "zh": "错误：{error}"},
    "usage.no_such_option": {"en": "No such option: {name}", "zh": "没有这个选项：{name}"},
    "usage.did_you_mean": {"en": "{error} (Did you mean {names}?)", "zh": "{error}（是不是 {names}？）"},
    "usage.missing_argument": {"en": "Missing argument {name}.", "zh": "缺少参数 {name}。"},
    "usage.missing_hint": {"en": "{error} {hint}", "zh": "{error}{hint}"},
    "usage.exercise_first": {
        "en": "{path} is the submission: name the exercise before it, as in: grade EXERCISE {path} "
              "(grade list shows the exercises).",
        "zh": "{path} 是提交的文件：请在它前面写上练习，例如：grade EXERCISE {path}（grade list 列出所有练习）。",
    },
    "usage.missing_option": {"en": "Missing option {name}.", "zh": "缺少选项 {name}。"},
    "usage.bad_value": {"en": "Invalid value for {name}: {error}", "zh": "{name} 的值无效：{error}"},
    "cli.stdout_twice": {
        "en": "{first} and {second} cannot both be written to standard output ('-'): give one of them a file",
        "zh": "{first} 和 {second} 不能都写到标准输出（'-'）：请给其中一个指定文件",
    },
    "cli.stdout_folder": {
        "en": "{option} names a folder: '-' (standard output) cannot be one",
        "zh": "{option} 指定的是文件夹：不能用 '-'（标准输出）",
    },
    "cli.open_stdout": {
        "en": "--open cannot open a page written to standard output (--html -)",
        "zh": "--open 无法打开写到标准输出的页面（--html -）",
    },
    "cli.unknown_exercise_near": {
        "en": "cannot grade: unknown exercise {name!r} (did you mean {near!r}?); choose from {choices}",
        "zh": "无法评分：未知练习 {name!r}（是不是 {near!r}？）；可选：{choices}",
    },
    "cli.internal_error": {
        "en": "internal error: {error}",
        "zh": "评分程序内部错误：{error}",
    },
}
