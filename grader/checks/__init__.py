"""The authoring API: the one module an exercise file imports from the grader (docs/authoring.md).

    from grader.checks import Exercise, Msg, NotFound, Outcome, SandboxClient, failed, passed

Everything an author needs is named here, and nothing else is promised: the modules behind these
names may move, and tests/test_layout.py holds every bundled exercise and the example to this list. A
name only the judge or its tests use is imported from its own module by them, never offered here. A
check is a function (sb, reference, rng) -> Outcome; `sb` is the judge's handle on the student's code,
`reference` the module holding the right answer, `rng` the generator every hidden input is drawn from.
docs/authoring.md's last section lists every name, written from here by `python docs/authoring.py`.

The exceptions a check meets, drawn once (tests/checks/test_authoring_reference.py holds the drawing to the
classes). A name in brackets is not offered: a check never tells it from its parent, and the grader
words each kind of failure itself when the check lets it propagate.

    Exception
    ├── NotFound            the submission holds no answer: the check fails, "No answer found: ..."
    ├── Verdict             ends the check with the outcome it carries, from a helper several checks share
    └── ProbeFailure        a probe got no answer (`label`: what the judge asked for); let it propagate
        ├── StudentError        the student's code raised (`detail`: the error, its line)
        │   └── NotUnderstood       `build`'s call refused; `unknown`: the parameters not understood by name
        ├── ProbeTimeout        the probe passed its own deadline
        ├── BudgetExhausted     the submission's whole time budget is spent
        ├── ChildCrashed        the student's process ended
        ├── BadReturn           the answer is not the kind of value asked for
        └── [ProtocolViolation]     the student's process sent what the protocol forbids, and was stopped
            └── [AnswerTooLarge]    an answer larger than the judge reads for that probe

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
from grader.checks.signatures import arguments, canonical
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
                                   Exercise,
                                   NotFound,
                                   Outcome,
                                   Verdict,
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
from grader.judge.scratch import Sibling
from grader.load.definitions import class_definitions
from grader.messages.catalogue import Msg

__all__ = [
    # defining an exercise, and what its checks return
    "Exercise", "Outcome", "passed", "failed", "skipped",
    # the messages an outcome carries (a message key and its arguments, a Msg nesting another)
    "Msg", "markdown_hint",
    # the student's code, through the sandbox
    "SandboxClient", "Obj", "describe_value", "probe_failure_outcome",
    # finding answers
    "classes", "the_class", "function", "instances", "found_in", "with_object", "trainable_count",
    "class_definitions", "found_as", "graded_as",
    # building a student's class
    "build", "arguments", "canonical",
    # the files copied beside the submission, and the judge's own accelerator
    "Sibling", "judge_accelerator",
    # comparing tensors, and the evidence a page shows
    "close", "RTOL", "ATOL", "max_diff", "constant", "computes_nothing", "nan_tokens", "comparison", "sample",
    "first_rows",
    # the exceptions a check meets (drawn above)
    "NotFound", "Verdict",
    "ProbeFailure", "StudentError", "NotUnderstood", "ProbeTimeout", "BudgetExhausted", "ChildCrashed", "BadReturn",
]
