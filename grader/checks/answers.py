"""Finding a submission's answers: its classes, functions and instances, by what the child's inventory
lists, and the evidence of where the student bound each, so a page can quote that cell."""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Iterable, Mapping

from grader.checks import signatures
from grader.judge import near_miss
from grader.judge.client import SandboxClient
from grader.judge.exercise import NotFound, Outcome
from grader.judge.probes import NotUnderstood, Obj, StudentError, show_args


def classes(sb: SandboxClient, name: str, modules_only: bool = True) -> list[Obj]:
    """The submission's module classes (any classes, without `modules_only`) of that name, oldest first; where
    none has it, those of the one class of its own with a near name of it (near_miss.stand_in, whose shape
    fits where its name adds a word: `shape_fits`; noted on the check's message), graded as the class of that
    name: the handle carries the exercise's name, which is what every check looks it up by. What the grader's
    own package defines is never found (SandboxClient.inventory)."""
    modules = [o for o in sb.inventory() if o.kind == "class" and (o.info.get("is_module") or not modules_only)]
    found = [o for o in modules if o.cls == name]
    if not found:
        own = [o for o in modules if o.info.get("defined_here")]
        fits = shape_fits({o.cls: o.info.get("params") for o in own})
        stand_in = near_miss.stand_in(name, {o.cls for o in own}, fits)
        found = [Obj(o.ref, {**o.info, "class": name}, o.generation, o.bindings) for o in modules if o.cls == stand_in]
    if not found:
        near_miss.missed(name)
    return found


def the_class(sb: SandboxClient, name: str) -> Obj:
    """The submission's own class of that name (the last definition wins, as in the notebook)."""
    found = classes(sb, name)
    if not found:
        raise NotFound("not_found.class", name=name)
    return found[-1]


def function(sb: SandboxClient, name: str) -> Obj | None:
    found = [o for o in sb.inventory() if o.kind == "function" and o.cls == name]
    if not found:
        near_miss.missed(name)
    return found[-1] if found else None


def build(sb: SandboxClient, cls: Obj, reference: object, *values: Any) -> Obj:
    """A fresh instance of the student's class, called as the book calls its class of that name in `reference`
    (a module of solutions/): `cls(*values)`, or by keyword where the student's constructor names every
    parameter as the book does but orders them otherwise (grader.checks.signatures.like_reference)."""
    book = getattr(reference, cls.cls, None)
    params = [p for p in cls.info.get("params") or [] if isinstance(p, str)]
    call = signatures.like_reference(book, params, values) if callable(book) else signatures.Arguments(values)
    try:
        return sb.construct(cls, *call.args, label=f"{cls.cls}({show_args(values, {})})", **call.kwargs)
    except StudentError as exc:  # a TypeError where some name was not understood: the message names them
        if call.not_understood and isinstance(exc.detail, dict) and exc.detail.get("type") == "TypeError":
            raise NotUnderstood(exc.label, exc.detail, call.not_understood) from None
        raise


def found_in(obj: Obj) -> dict[str, Any]:
    """Evidence of where the submission bound obj (last name, cell), so the page can quote that cell.

    Bindings come from the child, so only a well-formed one is kept; {} when there is none (an
    object the judge built itself).
    """
    last = obj.bindings[-1] if obj.bindings else {}
    if type(last.get("cell")) is not int or not isinstance(last.get("name"), str):
        return {}
    return {"object": {"name": last["name"][:200], "cell": last["cell"]}}


def with_object(outcome: Outcome, obj: Obj) -> Outcome:
    """The outcome with evidence["object"] naming where obj was found (kept if already set)."""
    return replace(outcome, evidence={**found_in(obj), **outcome.evidence})


def instances(sb: SandboxClient, class_names: Iterable[str]) -> list[Obj]:
    """The module instances of those classes; for a class name nothing carries, those of the one class of the
    submission's own with a near name of it (as `classes`)."""
    inventory = sb.inventory()
    modules = [o for o in inventory if o.kind == "module"]
    present = {o.cls for o in modules}
    own = {o.cls for o in modules if o.info.get("defined_here")}
    fits = shape_fits({o.cls: o.info.get("params") for o in inventory if o.kind == "class" and o.cls in own})
    names = list(class_names)
    wanted = {name if name in present else near_miss.stand_in(name, own, fits) for name in names}
    found = [o for o in modules if o.cls in wanted]
    for name in names:  # only the grader's own class holds instances of that name: the message says so
        if name in sb.shipped and not any(o.cls == name for o in found):
            near_miss.missed(name)
    return found


# The words of a name that promise heads: a class so named takes their number.
HEADS_WORDS = frozenset({"multi", "multihead", "multiheaded"})


def shape_fits(params: Mapping[str, Any]) -> near_miss.Fits:
    """Whether a class of the submission's (by name: `params`, its constructor's parameters as the inventory
    lists them) has the shape of the exercise's class of a name it adds a word to (near_miss.added_word), so
    that it is that name's near name: its constructor takes some parameters, each one the book's and the
    lecture's classes take (by their names or the spellings learners give them, signatures.canonical:
    `MultiHeadSelfAttention(d_model, n_heads, block_size, dropout)`), and takes the number of heads exactly
    where the exercise's class does, as a word like MultiHead promises. Conservative: a constructor that could
    not be read, or takes `*args`, a `config` or anything the book's and the lecture's classes never take, does
    not fit."""
    def fits(name: str, wanted: str) -> bool:
        book, own = near_miss.book().get(wanted), params.get(name)
        if not book or not isinstance(own, list) or not own or not all(isinstance(p, str) for p in own):
            return False
        mine = {signatures.canonical(p) for p in own}
        heads = "num_heads" in mine
        return (mine <= _vocabulary() and heads == ("num_heads" in {signatures.canonical(p) for p in book})
                and (heads or near_miss.added_word(wanted, name) not in HEADS_WORDS))
    return fits


def _vocabulary() -> set[str]:
    """The parameters the book's and the lecture's classes take (near_miss.book), as signatures.canonical
    names them, with their other names (signatures.BOOK_SYNONYMS)."""
    names = {signatures.canonical(p) for params in near_miss.book().values() for p in params or ()}
    return names | {synonym for p in names for synonym in signatures.BOOK_SYNONYMS.get(p, ())}


def trainable_count(info: dict[str, Any]) -> int:
    total = 0
    for p in info.get("parameters", []):
        if p.get("requires_grad"):
            count = 1
            for d in p["shape"]:
                count *= d
            total += count
    return total
