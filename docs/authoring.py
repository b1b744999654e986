"""Write the last section of docs/authoring.md, everything `grader.checks` offers, from the module itself.

Run `python docs/authoring.py` after a name joins or leaves the door (`__all__` in
grader/checks/__init__.py) or the door's drawing of its exceptions changes. The section lists exactly
`__all__`: the exceptions as the door's docstring draws them, every other name with its line below.
tests/checks/test_authoring_reference.py renders the section again in memory and fails while the page differs,
while a name is offered without a line here, or while the drawing is not the classes' own tree, so the
list an author reads cannot drift from what the module offers. The rest of the page is written by hand
and left as it is.
"""
from __future__ import annotations

import inspect
import re
from pathlib import Path
from typing import NamedTuple

import grader.checks

PATH = Path(__file__).with_name("authoring.md")
REGENERATE = "python docs/authoring.py"
HEADING = "## 10. Everything `grader.checks` offers"
ROOT = "Exception"

# What each name is for, by what the author is doing, in one line each (the exceptions' lines are the door's
# drawing, so they are said once). The order is the page's.
SUMMARIES: dict[str, dict[str, str]] = {
    "Defining an exercise, and what its checks return": {
        "Exercise": "`Exercise(id, title, statement, reference, messages, group=, order=, data=)`: one exercise "
                    "(section 2); `@EXERCISE.check(id, points, title, accelerator=False)` registers each check",
        "Outcome": "what a check returns: a status, a message key, its arguments and the evidence the page draws "
                   "(section 6), made by the three below",
        "passed": "`passed(key, evidence=None, **args)`: the check's full points",
        "failed": "`failed(key, evidence=None, **args)`: no points (a check is all or nothing)",
        "skipped": "`skipped(key, evidence=None, **args)`: the hardware the check needs is missing, so 0 of 0 "
                   "points (for that alone: section 2)",
    },
    "The messages an outcome carries": {
        "Msg": "`Msg(key, args)`: a message as another message's argument, rendered in the page's language",
        "markdown_hint": "`markdown_hint(sb)`: for a `NotFound`, a `Msg` saying that an answer typed into a "
                         "notebook's markdown cell does not count (nothing for a `.py`)",
    },
    "The student's code, through the sandbox": {
        "SandboxClient": "the `sb` of every check, the judge's handle on the student's code and its probes "
                         "(section 4)",
        "Obj": "a handle on an object in the student's process: `.kind`, `.cls`, `.name`, `.bindings`, `.info` "
               "(section 4)",
        "describe_value": "`describe_value(v)`: what a value the student's code returned is, for a message "
                          "(`tensor(2, 3) of torch.float32`, `a sequence of 2`)",
        "probe_failure_outcome": "`probe_failure_outcome(exc)`: the failed outcome the grader gives a "
                                 "`ProbeFailure`, for a check that catches one and judges the next candidate "
                                 "(3.2)",
    },
    "Finding answers": {
        "classes": "`classes(sb, name)`: the submission's module classes of that name, oldest first; where none "
                   "has it, its own class of a near name, under the exercise's name (section 4)",
        "the_class": "`the_class(sb, name)`: the last of those; raises `NotFound(\"not_found.class\", name=name)` "
                     "where there is none",
        "function": "`function(sb, name)`: the last function of that name the submission bound, or `None`",
        "instances": "`instances(sb, names)`: the module instances of those classes (of a near name's class where "
                     "none has the name)",
        "found_in": "`found_in(obj)`: evidence of where the student bound `obj` (its name and cell), so the page "
                    "quotes that cell",
        "with_object": "`with_object(outcome, obj)`: the outcome with that evidence added (kept where it is set)",
        "trainable_count": "`trainable_count(obj.info)`: how many trainable numbers a module's parameters hold, "
                           "by the shapes its inventory lists",
        "class_definitions": "`class_definitions(sb.submission, name)`: the `class` statements of that name in "
                             "the submission's text, in the order they ran",
        "found_as": "`found_as(wanted, found)`: the check grades the submission's `found` as the exercise's "
                    "`wanted`, an answer found by what it is; its message ends with a note saying so",
        "graded_as": "`graded_as(wanted, found)`: that note for a near name, in a check that grades an answer an "
                     "earlier check found (the finding functions note their own)",
    },
    "Building a student's class": {
        "build": "`build(sb, cls, reference, *args)`: a new instance of the student's class, called as "
                 "`reference`'s class of the same name is (section 4)",
        "arguments": "`arguments(params, known, usual=())`: the values for a constructor by the names its "
                     "parameters have, as `.args`, `.kwargs` and `.not_understood`",
        "canonical": "`canonical(name)`: the book's or the lecture's name for a parameter a learner spelled "
                     "otherwise (`d_model` is `n_embd`)",
    },
    "Files and hardware": {
        "Sibling": "an entry of `sb.scratch.files` that came from beside the submission (the others are the "
                   "exercise's `data` paths): `.name`, `.named` (its code spells it), `.read_bytes()`",
        "judge_accelerator": "`judge_accelerator()`: the judge's own GPU (`\"cuda\"`, `\"mps\"`) or `None`: "
                             "what an `accelerator=True` check runs on, or skips without",
    },
    "Comparing tensors, and the evidence a page shows": {
        "close": "`close(a, b, equal_nan=False)`: whether two tensors agree within `RTOL` and `ATOL`, in double "
                 "precision",
        "RTOL": "the relative tolerance of `close`, for a message that states it",
        "ATOL": "the absolute tolerance of `close`",
        "max_diff": "`max_diff(a, b)`: the largest absolute difference (infinite where the shapes differ)",
        "constant": "`constant(out)`: whether an output is the same for every input of a batch whose inputs "
                    "differ (a module that ignores its input)",
        "computes_nothing": "`computes_nothing(name, out)`: the failed outcome for such an output",
        "nan_tokens": "`nan_tokens(got, expected)`: where `got` is NaN and `expected` is not, as message "
                      "arguments (`count`, `tokens`)",
        "comparison": "`comparison(expected, got)`: the evidence for an expected-vs-got table (section 6)",
        "sample": "`sample(t)`: a few values of a tensor, for evidence",
        "first_rows": "`first_rows(t)`: the top-left corner of an output, row by row, for two outputs side by "
                      "side (`v1_rows`, `expected_rows`)",
    },
}

INTRO = f"""\
{HEADING}

Written by `{REGENERATE}` from `grader.checks` itself: do not edit this section by hand;
`tests/checks/test_authoring_reference.py` fails while it differs from what the module offers. It is the whole
of `grader.checks.__all__`, the one import an exercise needs from the grader, and `tests/test_layout.py`
holds the package's own exercises, their helpers and the example to it. Your own tests load your folder
with `grader.load_exercises` (section 8).
"""

EXCEPTIONS = """\
### The exceptions a check meets

As `grader.checks` draws them (`help(grader.checks)`). A name in brackets is not offered: a check never
tells it from its parent, and the grader words each kind of failure itself when the check lets it
propagate (section 2).
"""

# A line of the drawing below its root: the lead (`│   ` or four spaces per level above), the branch, the
# name (in brackets where it is not offered) and what it is.
_BRANCH = re.compile(r"(?P<lead>(?:│   | {4})*)[├└]── (?P<name>\[?\w+\]?)(?:\s+.*)?")


class Drawn(NamedTuple):
    """One class of the door's drawing: its parent's name in the drawing, and whether the door offers it."""

    name: str
    parent: str
    offered: bool


def drawing() -> list[str]:
    """The door's drawing of its exceptions: the lines of its docstring from the root to the first blank."""
    lines = inspect.cleandoc(grader.checks.__doc__ or "").splitlines()
    start = next(n for n, line in enumerate(lines) if line.strip() == ROOT)
    indent = lines[start].index(ROOT)
    end = next((n for n in range(start, len(lines)) if not lines[n].strip()), len(lines))
    return [line[indent:] for line in lines[start:end]]


def drawn() -> list[Drawn]:
    """The classes the drawing names, in its order; a line it cannot read is an error, never skipped."""
    parents, found = [ROOT], []
    for line in drawing()[1:]:
        match = _BRANCH.fullmatch(line)
        if match is None:
            raise ValueError(f"grader.checks draws a line that is no class: {line!r}")
        depth, name = len(match["lead"]) // 4 + 1, match["name"]
        del parents[depth:]
        found.append(Drawn(name.strip("[]"), parents[-1], not name.startswith("[")))
        parents.append(name.strip("[]"))
    return found


def undescribed() -> dict[str, list[str]]:
    """What the section would get wrong, by problem: a name offered without a line (or, an exception, without
    its place in the drawing), one described or drawn as offered that is not, and one said twice."""
    offered = list(grader.checks.__all__)
    exceptions = {n for n in offered if isinstance(getattr(grader.checks, n), type)
                  and issubclass(getattr(grader.checks, n), BaseException)}
    described = [name for group in SUMMARIES.values() for name in group]
    shown = [d.name for d in drawn() if d.offered]
    said = described + shown
    return {problem: names for problem, names in {
        "offered, but neither described nor drawn": sorted(set(offered) - set(said)),
        "an exception described rather than drawn": sorted(exceptions & set(described)),
        "described, but not offered": sorted(set(described) - set(offered)),
        "drawn as offered, but not offered": sorted(set(shown) - set(offered)),
        "offered twice": sorted({n for n in offered if offered.count(n) > 1}),
        "described or drawn twice": sorted({n for n in said if said.count(n) > 1}),
    }.items() if names}


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def section() -> str:
    """The section as the page holds it, from its heading to the end of the page."""
    parts = [INTRO]
    for group, names in SUMMARIES.items():
        rows = "".join(f"| `{name}` | {_cell(summary)} |\n" for name, summary in names.items())
        parts.append(f"### {group}\n\n| name | what it is for |\n| --- | --- |\n{rows}")
    tree = "\n".join(drawing())
    parts.append(f"{EXCEPTIONS}\n```text\n{tree}\n```\n")
    return "\n".join(parts)


def page(text: str) -> str:
    """The page with its section rewritten: what the heading starts, up to the next section or the end."""
    before, heading, after = text.partition(HEADING)
    if not heading:
        raise ValueError(f"{PATH.name} has no section {HEADING!r}")
    rest = after.partition("\n## ")
    return before + section() + (f"\n## {rest[2]}" if rest[1] else "")


if __name__ == "__main__":
    problems = undescribed()
    if problems:
        raise SystemExit(f"grader.checks and {Path(__file__).name} differ: {problems}")
    PATH.write_text(page(PATH.read_text(encoding="utf-8")), encoding="utf-8")
    print(f"wrote {HEADING!r} in {PATH}")
