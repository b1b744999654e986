"""Shared by the `gpt` exercises: answers found by what they are, where they carry other names, and the note
that says so.

The checks look for the lecture's answers by the lecture's names (`BigramLanguageModel`, `encode`, `chars`,
`data`, `batch_size`), and for a class by a near name (grader.checks.the_class). A learner's answer is often
there under a name of their own (`BigramModel`, `enc`, `vocab_list`, `encoded`, `BATCH`): where exactly one
of the submission's own classes, functions or values is what the exercise grades, by what the judge measures
(a class built and run, a function called, a value read and compared with what the judge computed on its
own copy of the text), it is graded in its place, and the check's message ends with a note naming what was
graded as what (grader.checks.found_as). Two candidates are never picked between; what the child says about
itself is used to choose what to try, never to decide.

Methods and functions are called with the lecture's arguments by the lecture's parameter names where the
student's names them so in another order, else positionally where the number of arguments fits
(`generate(idx, max_tokens)`): `Signature`, read from the submission's text in the judge (nothing runs).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any, Sequence

import torch

from grader.checks import SandboxClient, class_definitions
from grader.solutions import chapter3, gpt_attention, gpt_data

# The lecture's other modules, which no exercise grades by name: a class named so is that module, never an
# answer found by its shape.
LECTURE_MODULES = frozenset({"MultiHeadAttention", "FeedFoward", "FeedForward", "Block", "GPTLanguageModel"})


def answers() -> frozenset[str]:
    """The names of the book's and the lecture's answers (each class and function the references in
    `solutions/` define) and of the lecture's other modules: a class or function of one of these names is that
    answer, never another one found by its shape or behaviour."""
    found = set(LECTURE_MODULES)
    for module in (chapter3, gpt_attention, gpt_data):
        found |= {name for name, value in vars(module).items() if not name.startswith("_")
                  and getattr(value, "__module__", None) == module.__name__ and callable(value)}
    return frozenset(found)


# -- signatures, read from the submission's text ---------------------------------------------------------------
@dataclass(frozen=True)
class Signature:
    """A function's or method's parameters after `self`: their names, how many come first without a default,
    which default to None (a value the caller is meant to give), and whether it takes *args."""

    names: tuple[str, ...]
    required: int
    none_default: frozenset[str] = frozenset()
    varargs: bool = False

    def takes(self, count: int) -> bool:
        return self.required <= count and (self.varargs or count <= len(self.names))


def signature_of(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda, method: bool = False) -> Signature:
    """The parameters a def (or lambda) takes, as its text has them; after `self` for a method."""
    args = node.args
    full = [*args.posonlyargs, *args.args]
    first_default = len(full) - len(args.defaults)
    defaults = {a.arg: args.defaults[i - first_default] for i, a in enumerate(full) if i >= first_default}
    defaults.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None})
    none = frozenset(name for name, d in defaults.items() if isinstance(d, ast.Constant) and d.value is None)
    positional = full[1:] if method and full else full
    required = max(0, first_default - (1 if method and full else 0))
    return Signature(tuple(a.arg for a in positional), required, none, args.vararg is not None)


def method_signature(sb: SandboxClient, cls: str, method: str) -> Signature | None:
    """The parameters of `cls.method` as the submission's text last defines it (None where the text holds no
    such def: a class built otherwise, or a method it inherits)."""
    for node in reversed(class_definitions(sb.submission, cls)):
        defs = [d for d in node.body if isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef)) and d.name == method]
        if defs:
            return signature_of(defs[-1], method=True)
    return None


# The lecture's names for its models' method arguments, as learners spell them otherwise (lower case).
ALIASES = {
    "target": "targets", "labels": "targets", "y": "targets", "ys": "targets", "yb": "targets",
    "max_tokens": "max_new_tokens", "new_tokens": "max_new_tokens", "num_tokens": "max_new_tokens",
    "n_tokens": "max_new_tokens", "max_new": "max_new_tokens", "num_new_tokens": "max_new_tokens",
    "n_new_tokens": "max_new_tokens", "max_length": "max_new_tokens", "length": "max_new_tokens",
    "x": "idx", "xb": "idx", "ids": "idx", "inputs": "idx", "input_ids": "idx", "tokens": "idx", "index": "idx",
    "context": "idx",
}


@dataclass(frozen=True)
class Call:
    """How to call a method with the lecture's values: `args` positionally, then `kwargs`; `shown` as a label
    writes the call's arguments; `not_understood`: the method's parameters that nothing fits (a call that
    cannot be made names them)."""

    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)
    not_understood: tuple[str, ...] = ()


def lecture_call(signature: Signature | None, values: Sequence[tuple[str, Any]]) -> Call:
    """The call of a method taking `signature` with the lecture's `values` ((its parameter's name, the value),
    in the lecture's order): positionally where the method takes that many and names none of them elsewhere;
    by keyword where it names every one of them as the lecture does (or as ALIASES spell it) in another order;
    where neither fits, positionally, with the parameters not understood named for the message."""
    plain = tuple(v for _, v in values)
    if signature is None:
        return Call(plain)
    own = [ALIASES.get(n.lower(), n.lower()) for n in signature.names]
    wanted = [name for name, _ in values]
    if all(w in own for w in wanted) and [own.index(w) for w in wanted] != list(range(len(wanted))):
        kwargs = {signature.names[own.index(w)]: v for w, v in values}
        missing = tuple(n for n in signature.names[:signature.required] if n not in kwargs)
        if not missing:
            return Call(kwargs=kwargs)
    if signature.takes(len(values)):
        return Call(plain)
    understood = set(wanted)
    return Call(plain, not_understood=tuple(n for n, c in zip(signature.names, own) if c not in understood))


def derived(rng: torch.Generator) -> torch.Generator:
    """A generator of its own for finding an answer, drawn from the check's (so `--seed` reproduces it)."""
    return torch.Generator().manual_seed(int(torch.randint(2**62, (1,), generator=rng)))
