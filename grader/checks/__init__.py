"""The authoring API: the one module an exercise file imports from the grader (docs/authoring.md).

    from grader.checks import Exercise, Msg, NotFound, Outcome, SandboxClient, failed, passed

Everything an author needs is named here, and nothing else is promised: the modules behind these
names may move, and tests/test_layout.py holds every bundled exercise and the example to this list. A
check is a function (sb, reference, rng) -> Outcome; `sb` is the judge's handle on the student's code,
`reference` the module holding the right answer, `rng` the generator every hidden input is drawn from.

This package sits on top of the judge: it re-exports the judge's exercise model, sandbox handle and probe
failures beside its own helpers (answers, signatures, tensors), and nothing in the judge imports it back.
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
from grader.checks.signatures import Arguments, arguments, canonical
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
from grader.judge.accelerator import judge_accelerator
from grader.judge.client import SandboxClient
from grader.judge.exercise import (
                                   Check,
                                   Exercise,
                                   NotFound,
                                   Outcome,
                                   Verdict,
                                   discover,
                                   failed,
                                   markdown_hint,
                                   passed,
                                   skipped,
)
from grader.judge.grading import probe_failure_outcome
from grader.judge.near_miss import found_as
from grader.judge.near_miss import note as graded_as
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
from grader.judge.scratch import Copied, Sibling
from grader.load.definitions import class_definitions
from grader.messages.catalogue import Msg

__all__ = [
    # defining an exercise and its checks' outcomes
    "Exercise", "Check", "Outcome", "passed", "failed", "skipped", "NotFound", "Verdict", "discover",
    # the messages an outcome carries (a message key and its arguments, a Msg nesting another)
    "Msg", "markdown_hint",
    # the student's code, through the sandbox
    "SandboxClient", "Obj", "describe_value", "probe_failure_outcome",
    "ProbeFailure", "StudentError", "NotUnderstood", "ProbeTimeout", "BudgetExhausted", "ChildCrashed", "BadReturn",
    # finding answers
    "classes", "the_class", "function", "instances", "found_in", "with_object", "trainable_count", "found_as",
    "graded_as",
    "class_definitions", "arguments", "Arguments", "canonical", "build",
    # the files copied beside the submission, and the judge's own accelerator
    "Copied", "Sibling", "judge_accelerator",
    # comparing tensors, and the evidence a page shows
    "RTOL", "ATOL", "close", "max_diff", "comparison", "constant", "computes_nothing", "nan_tokens", "sample",
    "first_rows",
]
