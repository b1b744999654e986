"""The student's required work: what grading a submission cannot cost less than, with no grader around it.

For each notebook of a class, in this one warm process (torch imported and every call run once before
timing; no sandbox, no judge, no fork): its cells, read as the grader reads them (grader.load.submission) and
run in order in a fresh namespace as the child runs them, then exactly the calls of the student's code that
the checks of an exercise set make on an answer that passes: the same constructors, forwards, weight loads,
state reads, counts and moves, on inputs of the same shapes and dtype, as many times, and once where a check
shares what another built (sb.memo). The grader cannot make that code cheaper; what it spends beyond it
(the sandbox, the probes' round trips, the references it compares with, naming a bug) is its own cost.

What the checks do only to a wrong answer (diagnose a bug: a fresh instance and more forwards; try each
weight in each role) is left out: it is the grader's choice to explain, not work the answer asks for.
Answers are found by their exact names, as the generated class holds them; a `%%writefile` cell is not
written. Inputs and weights are drawn once per shape, outside the timing: drawing them is the judge's work.

Each exercise's checks are mirrored below by one function per check, named after it; CHECKS maps each
exercise's check ids to them, so that a check added, renamed or removed shows as a mirror missing or left
over (`unmirrored`).

    python benchmarks/required_work.py DIR --sets mask ch03     # JSON: CPU s per submission, by set and check
"""
from __future__ import annotations

import argparse
import contextlib
import gc
import inspect
import json
import os
import sys
import time
import types
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterator

import torch
from torch import nn

from grader.checks import judge_accelerator
from grader.exercises import device, exercise_3_1, exercise_3_2, exercise_3_3, mask
from grader.exercises._attention import GIVEN, is_mask
from grader.judge.exercise import UnknownExercise, discover, select
from grader.load.submission import load
from grader.messages import catalogue

# What the child catches from the student's code and answers with: a cell or call that raises ends that cell
# or that check, and the rest go on.
STUDENT_ERRORS = (Exception, SystemExit)


class Missing(Exception):
    """The submission holds no answer a check looks for: the check ends there (NotFound)."""


# --- the submission, as the child holds it --------------------------------------------------------------

@dataclass
class Student:
    """A submission after its cells: every object they bound, once each, in the order first bound (the child's
    history, which the inventory lists), and what the checks built and shared (sb.memo)."""

    bound: list[Any]
    memos: dict[str, Any] = field(default_factory=dict)

    def memo(self, key: str, build: Callable[[], Any]) -> Any:
        """sb.memo: built once per child; a build that raises is tried again by the next caller."""
        if key not in self.memos:
            self.memos[key] = build()
        return self.memos[key]

    def classes(self, name: str) -> list[type]:
        """answers.classes: the module classes of that name, oldest first."""
        return [o for o in self.bound if isinstance(o, type) and issubclass(o, nn.Module) and o.__name__ == name]

    def the_class(self, name: str) -> type:
        """answers.the_class: the last definition."""
        found = self.classes(name)
        if not found:
            raise Missing(name)
        return found[-1]

    def function(self, name: str) -> Callable[..., Any] | None:
        found = [o for o in self.bound if inspect.isfunction(o) and o.__name__ == name]
        return found[-1] if found else None

    def instances(self, name: str) -> list[nn.Module]:
        """answers.instances: the module instances of that class, oldest first."""
        return [o for o in self.bound if isinstance(o, nn.Module) and type(o).__name__ == name]


def run_cells(path: Path) -> Student:
    """The cells as grader.sandbox.child runs them: each compiled under its file's name at its own line, in one
    fresh namespace named __main__ with Jupyter's display(), a cell that raises leaving the rest to run; what
    each binds is kept, as the child's history keeps it."""
    namespace = types.ModuleType("__main__").__dict__
    namespace["display"] = print
    bound: dict[int, Any] = {}
    for cell in load(path).cells:
        before = {name: id(value) for name, value in namespace.items()}
        with contextlib.suppress(*STUDENT_ERRORS):
            exec(compile("\n" * (cell.first_line - 1) + cell.source, cell.filename, "exec"), namespace)
        for name, value in list(namespace.items()):
            if before.get(name) != id(value) and not name.startswith("__"):
                bound.setdefault(id(value), value)
    return Student(list(bound.values()))


# --- the probes, as the child answers them ----------------------------------------------------------------

@lru_cache(maxsize=None)
def drawn(*shape: int) -> torch.Tensor:
    """A float32 tensor of that shape, drawn once: an input or a weight of the judge's (its values cost
    nothing the student's code does; its shape is what the student's code is run on)."""
    return torch.randn(*shape, generator=torch.Generator().manual_seed(0))


def construct(cls: type, *values: Any) -> nn.Module:
    """sb.construct (answers.build): the class called with the book's arguments, in the book's order, which
    the generated class's constructors keep (build passes them by name where a student reordered them)."""
    return cls(*values)


def call(fn: Callable[..., Any], *args: Any) -> Any:
    """sb.call on a function (transfer_weights, a builder): without grad, as the child calls it."""
    with torch.no_grad():
        return fn(*args)


def forward(module: nn.Module, x: torch.Tensor, on: str | None = None) -> torch.Tensor:
    """sb.forward: the module in eval mode (moved `on` a device with its input, where one is named), no grad."""
    module.eval()
    if on:
        module.to(on)
        x = x.to(on)
    with torch.no_grad():
        return module(x)


def tensors(module: nn.Module) -> dict[str, torch.Tensor]:
    """sb.state: the module's parameters and buffers by name."""
    return {**dict(module.named_parameters()), **dict(module.named_buffers())}


def load_state(module: nn.Module, state: dict[str, torch.Tensor]) -> None:
    """sb.load_state: the judge's tensors copied into the module's, by name."""
    held = tensors(module)
    with torch.no_grad():
        for name, value in state.items():
            held[name].copy_(value)


def load_weights(module: nn.Module) -> None:
    """The judge's weights for every parameter but one named as the mask (is_mask): the roles a check maps by
    the book's names."""
    load_state(module, {name: drawn(*p.shape) for name, p in module.named_parameters() if not is_mask(name)})


def description(module: nn.Module) -> dict[str, Any]:
    """sb.describe (grader.sandbox.inventory.describe_module), as far as the checks read it: the names and shapes
    of the module's parameters, buffers and submodules."""
    return {"parameters": [{"name": n, "shape": list(t.shape)} for n, t in module.named_parameters()],
            "buffers": [{"name": n, "shape": list(t.shape)} for n, t in module.named_buffers()],
            "modules": [{"name": n} for n, _ in module.named_modules() if n]}


def parameter_count(module: nn.Module) -> int:
    """answers.trainable_count of the module's description."""
    return sum(p.numel() for p in module.parameters() if p.requires_grad)


# --- exercise 3.1 (exercises/exercise_3_1.py) ------------------------------------------------------------
# `classes` runs each given class on inputs of 6 tokens.
GIVEN_TOKENS = 6


def transferred_pairs(student: Student) -> list[tuple[nn.Module, int]]:
    """transferred_pairs (memo "3.1 pairs"): (v1 after the transfer, its input width), shared by "agree" and
    "parameters"."""
    return student.memo("3.1 pairs", lambda: _transfer(student))


def _transfer(student: Student) -> list[tuple[nn.Module, int]]:
    """_transfer: through transfer_weights, a fresh pair of each of SHAPES with the judge's weights in v2; else
    the submission's own pair, v2's weights read back (own_roles)."""
    transfer = student.function("transfer_weights")
    if transfer is None:
        v1s, v2s = student.instances("SelfAttention_v1"), student.instances("SelfAttention_v2")
        if not v1s or not v2s:
            raise Missing("SelfAttention_v1, SelfAttention_v2")
        weights = tensors(v2s[-1])
        width = next(w for w in weights.values() if w.dim() == 2).shape[1]  # nn.Linear keeps (d_out, d_in)
        return [(v1s[-1], width)]
    v1_cls, v2_cls = student.the_class("SelfAttention_v1"), student.the_class("SelfAttention_v2")
    pairs = []
    for d_in, d_out in exercise_3_1.SHAPES:
        v1, v2 = construct(v1_cls, d_in, d_out), construct(v2_cls, d_in, d_out)
        load_weights(v2)
        call(transfer, v1, v2)
        pairs.append((v1, d_in))
    return pairs


def transfer_agree(student: Student) -> None:
    """agree: v1 on a fresh input of each of TOKENS."""
    for v1, width in transferred_pairs(student):
        for tokens in exercise_3_1.TOKENS:
            forward(v1, drawn(tokens, width))


def transfer_parameters(student: Student) -> None:
    """parameters: diagnose reads each v1's tensors and its description."""
    for v1, _ in transferred_pairs(student):
        tensors(v1)
        description(v1)


def given_classes(student: Student) -> None:
    """classes: each given class built at each of SHAPES, the judge's weights loaded, one forward."""
    for name in GIVEN:
        student.the_class(name)
    for d_in, d_out in exercise_3_1.SHAPES:
        for name in GIVEN:
            module = construct(student.the_class(name), d_in, d_out)
            load_weights(module)
            forward(module, drawn(GIVEN_TOKENS, d_in))


# --- exercise 3.2 (exercises/exercise_3_2.py) ------------------------------------------------------------
# run_wrapper's inputs: a few tokens, at most its context.
FEW_TOKENS = 6


def two_dim_answer(student: Student) -> None:
    """answer: the builder's wrapper for each of FRESH, else the submission's newest wrapper whose widths it
    reads (dims), each judged (judge_wrapper)."""
    builder = student.function("build_two_dim_wrapper")
    if builder is not None:
        for d_in, ctx in exercise_3_2.FRESH:
            judged_wrapper(call(builder, d_in, ctx), d_in, ctx)
        return
    for wrapper in reversed(student.instances(exercise_3_2.WRAPPER)):
        widths = exercise_3_2.dims(description(wrapper))
        if widths is not None:
            judged_wrapper(wrapper, *widths)
            return
    raise Missing(exercise_3_2.WRAPPER)


def judged_wrapper(wrapper: nn.Module, d_in: int, ctx: int) -> None:
    """judge_wrapper: one run on a few tokens (run_wrapper), then the judge's weights in its heads and one more
    (computes_heads)."""
    tokens = min(ctx, FEW_TOKENS)
    forward(wrapper, drawn(2, tokens, d_in))
    load_weights(wrapper)
    forward(wrapper, drawn(2, tokens, d_in))


def wrapper_concat(student: Student) -> None:
    """concat: a wrapper built with CONCAT_ARGS on its whole context, then each of its heads on the same input."""
    d_in, _, ctx = exercise_3_2.CONCAT_ARGS[:3]
    wrapper = construct(student.the_class(exercise_3_2.WRAPPER), *exercise_3_2.CONCAT_ARGS)
    x = drawn(2, ctx, d_in)
    forward(wrapper, x)
    for name in exercise_3_2.head_names(description(wrapper)):
        forward(wrapper.get_submodule(name), x)  # sb.submodule


# --- exercise 3.3 (exercises/exercise_3_3.py) ------------------------------------------------------------

def gpt2_answer(student: Student) -> nn.Module:
    """the_answer (memo "3.3 answer"): the builder's module, else the submission's newest 768-wide
    MultiHeadAttention, one of the expected count first (_find_answer)."""
    return student.memo("3.3 answer", lambda: _find_gpt2(student))


def _find_gpt2(student: Student) -> nn.Module:
    builder = student.function("build_gpt2_small_attention")
    if builder is not None:
        return call(builder)
    found = [m for m in student.instances("MultiHeadAttention")
             if any(exercise_3_3.D_MODEL in p.shape for p in m.parameters())]
    if not found:
        raise Missing("MultiHeadAttention")
    exact = [m for m in found if parameter_count(m) == exercise_3_3.EXPECTED_COUNT]
    return (exact or found)[-1]


def gpt2_run(student: Student, module: nn.Module) -> torch.Tensor:
    """judged_run (memo "3.3 run"): the judge's weights in, one forward on TOKENS tokens."""
    def run() -> torch.Tensor:
        load_weights(module)
        return forward(module, drawn(2, exercise_3_3.TOKENS, exercise_3_3.D_MODEL))

    return student.memo("3.3 run", run)


def gpt2_parameters(student: Student) -> None:
    """parameters: the judged run (inert) and the module's count."""
    module = gpt2_answer(student)
    gpt2_run(student, module)
    parameter_count(module)


def gpt2_heads(student: Student) -> None:
    """heads: the judged run, shared."""
    gpt2_run(student, gpt2_answer(student))


def gpt2_context(student: Student) -> None:
    """context: the judged run, then one forward on the whole context (long_run)."""
    module = gpt2_answer(student)
    gpt2_run(student, module)
    forward(module, drawn(1, exercise_3_3.CONTEXT, exercise_3_3.D_MODEL))


# --- the mask exercise (exercises/mask.py) -----------------------------------------------------------------

def mask_classes(student: Student, fresh: bool) -> Iterator[tuple[mask.Target, nn.Module]]:
    """each_class: each causal class the submission defines (targets) with its instance, built once and
    shared (memo "mask instance NAME"), or `fresh`; each first runs the sequence and its one-token-changed
    copies (inert: perturbed_outputs)."""
    found = [(target, student.classes(target.name)) for target in mask.TARGETS]
    if not any(defined for _, defined in found):
        raise Missing("causal attention classes")
    for target, defined in found:
        if not defined:
            continue
        module = construct(defined[-1], *target.args) if fresh else student.memo(
            f"mask instance {target.name}", lambda: construct(defined[-1], *target.args))
        perturbed_outputs(student, target, module)
        yield target, module


def perturbed_outputs(student: Student, target: mask.Target, module: nn.Module) -> torch.Tensor:
    """perturbed_outputs (memo "mask outputs NAME"): one forward of a sequence and its CONTEXT one-token-changed
    copies (one_token_changed)."""
    return student.memo(f"mask outputs {target.name}",
                        lambda: forward(module, drawn(mask.CONTEXT + 1, mask.CONTEXT, target.d_in)))


def mask_shared_run(student: Student) -> None:
    """causal, first_token and finite: the shared instances' shared run (visibility, perturbed_outputs)."""
    for _ in mask_classes(student, fresh=False):
        pass


def mask_short(student: Student) -> None:
    """short: a fresh instance on the first tokens of a sequence, SHORT of them, then all CONTEXT."""
    for target, module in mask_classes(student, fresh=True):
        for tokens in (*mask.SHORT, mask.CONTEXT):
            forward(module, drawn(2, tokens, target.d_in))


def mask_normalised(student: Student) -> None:
    """normalised: one token repeated CONTEXT times."""
    for target, module in mask_classes(student, fresh=False):
        forward(module, drawn(1, mask.CONTEXT, target.d_in))


def mask_reference(student: Student) -> None:
    """reference: a fresh instance with the judge's weights (load_weights), on num_heads tokens, then CONTEXT."""
    for target, module in mask_classes(student, fresh=True):
        load_weights(module)
        for tokens in (target.num_heads, mask.CONTEXT):
            forward(module, drawn(2, tokens, target.d_in))


# --- the device exercise (exercises/device.py) -------------------------------------------------------------

def built(student: Student) -> list[tuple[type, nn.Module, tuple[int, ...]]]:
    """built: a fresh instance of each of BUILDS' classes the submission defines, with its input's shape."""
    found = []
    for name, (args, shape) in device.BUILDS.items():
        defined = student.classes(name)
        if defined:
            with contextlib.suppress(*STUDENT_ERRORS):  # a constructor that refuses is a note, the others go on
                found.append((defined[-1], construct(defined[-1], *args), shape))
    if not found:
        raise Missing("modules")
    return found


def device_registered(student: Student) -> None:
    """registered: each instance run once; then for each, its tensors read into a fresh instance, which runs on
    the input reordered (unfollowed), and the instance moved and run again (left_behind: the stand-in device
    computes on the CPU)."""
    ran = [(cls, module, drawn(*shape)) for cls, module, shape in built(student)]
    for _, module, x in ran:
        forward(module, x)
    for cls, module, x in ran:
        state = tensors(module)
        fresh = construct(cls, *device.BUILDS[cls.__name__][0])
        load_state(fresh, state)
        forward(fresh, x)
        forward(module, x, on="cpu")


def device_accelerator(student: Student) -> None:
    """accelerator: nothing without the judge's accelerator; with it, each instance on the CPU, then there."""
    where = judge_accelerator()
    if where is None:
        return
    for _, module, shape in built(student):
        forward(module, drawn(*shape))
        forward(module, drawn(*shape), on=where)


# Each exercise's checks, by id, in the order the exercise runs them.
CHECKS: dict[str, dict[str, Callable[[Student], None]]] = {
    "3.1": {"agree": transfer_agree, "parameters": transfer_parameters, "classes": given_classes},
    "3.2": {"answer": two_dim_answer, "concat": wrapper_concat},
    "3.3": {"parameters": gpt2_parameters, "heads": gpt2_heads, "context": gpt2_context},
    "mask": {"causal": mask_shared_run, "first_token": mask_shared_run, "short": mask_short,
             "normalised": mask_normalised, "finite": mask_shared_run, "reference": mask_reference},
    "device": {"registered": device_registered, "accelerator": device_accelerator},
}


def checks_of(spec: str) -> list[tuple[str, Callable[[Student], None]]]:
    """The mirrors of an exercise set's checks (`mask`, `ch03`, `3.1,3.2`), as "EXERCISE CHECK" and function, in
    the order `grade` runs them. Raises LookupError naming the checks no mirror stands for, or mirrors of checks
    that are gone: the mirror must follow the exercises; or an unknown set."""
    try:
        exercises = select(spec, discover())
    except UnknownExercise as exc:
        raise LookupError(catalogue.text(exc.key, "en", **exc.args_)) from None
    wanted = [(e.id, c.id) for e in exercises for c in e.checks]
    mirrored = [(e.id, c) for e in exercises for c in CHECKS.get(e.id, {})]
    unmirrored = sorted(set(wanted) ^ set(mirrored))
    if unmirrored:
        raise LookupError(f"no mirror or no check for: {', '.join(f'{e} {c}' for e, c in unmirrored)}")
    return [(f"{e} {c}", CHECKS[e][c]) for e, c in wanted]


# --- measuring ---------------------------------------------------------------------------------------------

def required_work(path: Path, checks: list[tuple[str, Callable[[Student], None]]]) -> dict[str, float]:
    """One submission's cells and checked calls, each timed in this process's CPU time (s): "cells", then each
    check by name. Freeing what they built is left out (a sandbox's end is the grader's cost)."""
    spent: dict[str, float] = {}
    started = time.process_time()
    student = run_cells(path)
    spent["cells"] = time.process_time() - started
    for name, check in checks:
        started = time.process_time()
        with contextlib.suppress(*STUDENT_ERRORS):  # Missing too: the check ends there
            check(student)
        spent[name] = time.process_time() - started
    del student
    gc.collect()
    return spent


def measure(paths: list[Path], spec: str) -> dict[str, Any]:
    """The CPU time per submission of the student's required work for an exercise set, after one untimed pass
    over the first submission (torch's kernels and the inputs warm)."""
    checks = checks_of(spec)
    required_work(paths[0], checks)
    totals: dict[str, float] = {}
    for path in paths:
        for name, seconds in required_work(path, checks).items():
            totals[name] = totals.get(name, 0.0) + seconds
    per_submission = {name: seconds / len(paths) for name, seconds in totals.items()}
    return {"submissions": len(paths), "cpu_s_per_submission": round(sum(per_submission.values()), 4),
            "parts_s": {name: round(s, 4) for name, s in per_submission.items()}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", type=Path, help="the class: one notebook or .py file per student")
    parser.add_argument("--sets", nargs="+", default=["ch03"], help="exercise sets, as `grade -e` takes them")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)  # as in the child and the judge: one thread per submission
    paths = sorted(p for p in args.folder.iterdir() if p.suffix in (".ipynb", ".py"))
    if not paths:
        parser.error(f"no notebook or .py file in {args.folder}")
    figures: dict[str, Any] = {}
    with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):  # what the cells print
        for spec in args.sets:
            try:
                figures[spec] = measure(paths, spec)
            except LookupError as exc:
                figures[spec] = {"error": str(exc)}
    json.dump(figures, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
