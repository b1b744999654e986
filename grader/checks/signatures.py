"""Building a student's class from the constructor they wrote, not the one the lecture or the book wrote.

The lecture builds `Head(head_size)` and reads n_embd, block_size and dropout from the notebook; the book
builds `CausalAttention(d_in, d_out, context_length, dropout)`. Learners move those values into the
constructor and order them as they like: `Head(n_embd, head_size)`, `Head(head_size, n_embd, block_size)`.
A check that calls the lecture's signature fails such a class on the TypeError alone, and the student
never hears about the bug inside it. So a check says what it knows by name (head_size=16, n_embd=32, ...)
and the class gets each value under the name it gave the parameter, by keyword, whatever the order.

Parameter names come from the child's inventory (grader/sandbox/inventory.py, `describe`: a class's
"params"): a claim used only to choose the arguments, never for points; what the built module computes
is what gets judged. The inventory does not say which parameters have defaults, so a name no check knows
is passed over: the class may still be built (`bias=False`), and where it cannot be, the check can say
which names it did not understand.
"""
from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

# Spellings learners give the lecture's and the book's names (n_embed is the lecture's own early spelling).
ALIASES = {
    "n_embed": "n_embd", "n_emb": "n_embd", "embed_dim": "n_embd", "embed_size": "n_embd", "emb_dim": "n_embd",
    "embedding_dim": "n_embd", "d_model": "n_embd",
    "head_dim": "head_size", "headsize": "head_size",
    "n_head": "num_heads", "n_heads": "num_heads", "num_head": "num_heads", "nheads": "num_heads",
    "dropout_rate": "dropout", "drop_rate": "dropout", "dropout_p": "dropout", "p_dropout": "dropout",
    "drop_prob": "dropout", "dropout_prob": "dropout",
    "context_size": "context_length", "ctx_len": "context_length",
}
# Other names of the book's parameters, as learners bring them from the lecture or nanoGPT.
BOOK_SYNONYMS = {"context_length": ("block_size",), "qkv_bias": ("bias",)}


@dataclass(frozen=True)
class Arguments:
    """How to call the class: `args` positionally, then `kwargs`; `not_understood`: its parameters no value
    was found for by name (harmless where they have defaults, or where `args` fill them; the names to
    report where the call fails)."""

    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)
    not_understood: tuple[str, ...] = ()


def canonical(name: str) -> str:
    """The lecture's or the book's name for a parameter a learner named `name`."""
    lowered = name.lower()
    return ALIASES.get(lowered, lowered)


def arguments(params: Sequence[str], known: Mapping[str, Any], usual: Sequence[str] = ()) -> Arguments:
    """The arguments for a class whose constructor takes `params` (after self), from `known` (values by the
    lecture's or the book's names): each parameter it understands by keyword. Where it understands none of
    them (`Head(size)`, `LayerNorm1d(features)`) or the names could not be read, the `usual` names'
    values positionally, as the lecture calls the class: a learner who renamed the one parameter is still
    called as before."""
    names = [p for p in params if isinstance(p, str)]
    kwargs = {p: known[canonical(p)] for p in names if canonical(p) in known}
    not_understood = tuple(p for p in names if p not in kwargs)
    if not kwargs and all(u in known for u in usual):
        return Arguments(tuple(known[u] for u in usual), not_understood=not_understood)
    return Arguments(kwargs=kwargs, not_understood=not_understood)


@functools.lru_cache(maxsize=None)
def _parameters(reference: Callable[..., Any]) -> tuple[inspect.Parameter, ...] | None:
    """The reference's parameters but self, None where it has no signature: read once per reference (~0.2 ms a
    class), which every build of a student's class of that name asks for."""
    try:
        return tuple(p for p in inspect.signature(reference).parameters.values() if p.name != "self")
    except (TypeError, ValueError):
        return None


def like_reference(reference: Callable[..., Any], params: Sequence[str], values: Sequence[Any]) -> Arguments:
    """The call `reference(*values)` (the book's class) made to a student's class whose constructor takes
    `params`: by keyword where every one of them is understood by name, the book's defaults included, so a
    class that orders them otherwise (`MultiHeadAttention(d_in, d_out, num_heads, block_size, dropout)`)
    gets each value where it asks for it; else positionally, as the book calls it."""
    signature = _parameters(reference)
    if signature is None:
        return Arguments(tuple(values))
    known = {p.name: p.default for p in signature[len(values):] if p.default is not inspect.Parameter.empty}
    known.update(zip((p.name for p in signature), values))
    for name, synonyms in BOOK_SYNONYMS.items():
        if name in known:
            known.update(dict.fromkeys(synonyms, known[name]))
    named = arguments(params, known)
    if params and not named.not_understood:
        return named
    return Arguments(tuple(values), not_understood=named.not_understood)
