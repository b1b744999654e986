"""Finding a submission's answers: its classes, functions and instances, by what the child's inventory
lists, and the evidence of where the student bound each, so a page can quote that cell."""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Iterable

from grader.checks import signatures
from grader.judge import near_miss
from grader.judge.client import SandboxClient
from grader.judge.exercise import NotFound, Outcome
from grader.judge.probes import NotUnderstood, Obj, StudentError, show_args


def classes(sb: SandboxClient, name: str, modules_only: bool = True) -> list[Obj]:
    """The submission's module classes (any classes, without `modules_only`) of that name, oldest first; where
    none has it, those of the one class of its own named close to it (near_miss.stand_in: noted on the check's
    message), graded as the class of that name: the handle carries the exercise's name, which is what every
    check looks it up by. What the grader's own package defines is never found (SandboxClient.inventory)."""
    modules = [o for o in sb.inventory() if o.kind == "class" and (o.info.get("is_module") or not modules_only)]
    found = [o for o in modules if o.cls == name]
    if not found:
        stand_in = near_miss.stand_in(name, {o.cls for o in modules if o.info.get("defined_here")})
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
    submission's own named close to it (as `classes`)."""
    modules = [o for o in sb.inventory() if o.kind == "module"]
    present = {o.cls for o in modules}
    own = {o.cls for o in modules if o.info.get("defined_here")}
    names = list(class_names)
    wanted = {name if name in present else near_miss.stand_in(name, own) for name in names}
    found = [o for o in modules if o.cls in wanted]
    for name in names:  # only the grader's own class holds instances of that name: the message says so
        if name in sb.shipped and not any(o.cls == name for o in found):
            near_miss.missed(name)
    return found


def trainable_count(info: dict[str, Any]) -> int:
    total = 0
    for p in info.get("parameters", []):
        if p.get("requires_grad"):
            count = 1
            for d in p["shape"]:
                count *= d
            total += count
    return total
