"""The authoring API: what an exercise file imports to define its checks (docs/authoring.md).

    from grader.checks import Exercise, NotFound, Outcome, SandboxClient, failed, passed

Everything an author needs is named here, and nothing else is promised: the modules behind these
names may move. A check is a function (sb, reference, rng) -> Outcome; `sb` is the judge's handle on
the student's code, `reference` the module holding the right answer, `rng` the generator every hidden
input is drawn from.
"""
from grader.checks.answers import (
    build,
    classes,
    found_in,
    function,
    instances,
    the_class,
    trainable_count,
    with_object,
)
from grader.checks.exercise import Check, Exercise, NotFound, Outcome, Verdict, discover, failed, passed, skipped
from grader.checks.signatures import Arguments, arguments
from grader.checks.tensors import (
                                   ATOL,
                                   RTOL,
                                   close,
                                   comparison,
                                   computes_nothing,
                                   constant,
                                   first_rows,
                                   max_diff,
                                   nan_tokens,
                                   sample,
)
from grader.judge.client import SandboxClient
from grader.judge.probes import (
                                   BadReturn,
                                   BudgetExhausted,
                                   ChildCrashed,
                                   NotUnderstood,
                                   Obj,
                                   ProbeFailure,
                                   ProbeTimeout,
                                   StudentError,
                                   describe_value,
)
from grader.load.definitions import class_definitions

__all__ = [
    # defining an exercise and its checks' outcomes
    "Exercise", "Check", "Outcome", "passed", "failed", "skipped", "NotFound", "Verdict", "discover",
    # the student's code, through the sandbox
    "SandboxClient", "Obj", "describe_value",
    "ProbeFailure", "StudentError", "NotUnderstood", "ProbeTimeout", "BudgetExhausted", "ChildCrashed", "BadReturn",
    # finding answers
    "classes", "the_class", "function", "instances", "found_in", "with_object", "trainable_count",
    "class_definitions", "arguments", "Arguments", "build",
    # comparing tensors, and the evidence a page shows
    "RTOL", "ATOL", "close", "max_diff", "comparison", "constant", "computes_nothing", "nan_tokens", "sample",
    "first_rows",
]
