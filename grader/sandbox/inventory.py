"""Plain-data descriptions of the objects a submission made, for the judge to choose answers from.

Runs in the child, where the submission can rewrite it. Everything it returns is a claim: the judge uses it
to find things (a class to build, the names to read and load, a plain tensor to name) and confirms by
behaviour what it gives points for; it holds only names, shapes and flags, never values the judge would trust.
"""
from __future__ import annotations

import inspect
import os
import sys
import types
from dataclasses import dataclass
from typing import Any, Iterator

import torch
from torch import nn

MAX_ENTRIES = 2000


def describe(obj: Any, own_files: set[str]) -> dict[str, Any] | None:
    """Describe a module instance, class or function; None for anything the exercises never look for. Each
    says where it was defined (`module`, `file`: origin), so the judge can refuse what the grader's own package
    defines (grader.judge.secrets.grader_code)."""
    if isinstance(obj, nn.Module):
        return {**describe_module(obj), "defined_here": _defined_in(type(obj), own_files), **origin(type(obj))}
    if isinstance(obj, type):
        return {
            "kind": "class",
            "class": obj.__name__,
            "is_module": issubclass(obj, nn.Module),
            "params": _parameter_names(obj.__init__),  # type: ignore[misc]  # the class's own, read not called
            "defined_here": _defined_in(obj, own_files),
            **origin(obj),
        }
    if inspect.isfunction(obj):
        return {
            "kind": "function",
            "class": obj.__name__,
            "params": _parameter_names(obj),
            "defined_here": obj.__code__.co_filename in own_files,
            **origin(obj),
        }
    if own_instance(obj, own_files):
        return {"kind": "object", "class": type(obj).__name__, "defined_here": True, **origin(type(obj))}
    return None


MAX_ORIGIN = 1000  # characters of a module's name or a file's path (grader.judge.secrets reads no more)


def origin(obj: Any) -> dict[str, str]:
    """Where a class or function was defined: its module's name and the file its code lies in (a class's:
    its __init__'s or forward's, else any method's, else its module's file); "" where it has none."""
    module = getattr(obj, "__module__", None)
    code = getattr(obj, "__code__", None)
    if isinstance(obj, type):
        methods = [obj.__dict__.get("__init__"), obj.__dict__.get("forward"), *list(vars(obj).values())[:MAX_ENTRIES]]
        code = next((c for f in methods if (c := getattr(f, "__code__", None)) is not None), None)
    file = getattr(code, "co_filename", None)
    if not isinstance(file, str):
        file = getattr(sys.modules.get(module) if isinstance(module, str) else None, "__file__", None)
    return {"module": module[:MAX_ORIGIN] if isinstance(module, str) else "",
            "file": file[:MAX_ORIGIN] if isinstance(file, str) else ""}


def last_module() -> str | None:
    """The module imported last so far (sys.modules keeps the order of import): what was imported before the
    submission's code ran is never its own."""
    return next(reversed(sys.modules), None)


def adopt_modules(own_files: set[str], root: str, after: str | None) -> None:
    """Add to `own_files` the submission's own modules: those its code imported from its scratch folder (a
    sibling `attention.py`, a package handed in with it). Their classes are the submission's, as its
    cells' are; only installed packages' are not.

    Only the modules imported `after` the given one are read, newest first: the ~1,500 a child inherits from
    the zygote are never touched, since reading one writes its reference count, and in a forked child the
    first write to a page copies it (a 2 MB page where the zygote's memory is in huge pages): a walk of
    them all cost ~6 ms a submission."""
    newer = []
    for name in reversed(sys.modules):
        if name == after:
            break
        newer.append(name)
    inside = tuple({os.path.join(root, ""), os.path.join(os.path.realpath(root), "")})
    for name in newer:
        path = getattr(sys.modules.get(name), "__file__", None)
        if isinstance(path, str) and path.startswith(inside):
            own_files.add(path)


def reached(history: list[tuple[int, str, Any]], own_files: set[str]) -> Iterator[tuple[int, str, Any]]:
    """Every (cell, name, object) the cells bound, and after each what it reaches that is the submission's
    own and bound nowhere by name: the classes and functions of its own modules however they were imported
    (`import attention as A` reaches `A.CausalAttention`), and the class of an instance it holds (`mha`
    reaches `mha.__class__`)."""
    bound = {id(obj) for _, _, obj in history}
    seen: set[int] = set()
    for cell, name, obj in history:
        yield cell, name, obj
        for inner_name, inner in _reached_from(name, obj, own_files):
            if id(inner) not in bound and id(inner) not in seen:
                seen.add(id(inner))
                yield cell, inner_name, inner


def _reached_from(name: str, obj: Any, own_files: set[str], depth: int = 3) -> Iterator[tuple[str, Any]]:
    if isinstance(obj, types.ModuleType):
        if depth == 0 or getattr(obj, "__file__", None) not in own_files:
            return
        for attr, value in list(vars(obj).items())[:MAX_ENTRIES]:
            if attr.startswith("__"):
                continue
            if isinstance(value, type) or inspect.isfunction(value):
                yield f"{name}.{attr}", value
            elif isinstance(value, types.ModuleType):
                yield from _reached_from(f"{name}.{attr}", value, own_files, depth - 1)
    elif not isinstance(obj, type) and _defined_in(type(obj), own_files):
        yield f"{name}.__class__", type(obj)


def own_instance(obj: Any, own_files: set[str]) -> bool:
    """An object of a plain class (not an nn.Module) with a method the submission wrote: the lecture's
    LayerNorm1d. The judge gets a handle on it, to call it and set its attributes."""
    if isinstance(obj, (type, nn.Module, torch.Tensor)):
        return False
    return any(getattr(getattr(f, "__code__", None), "co_filename", None) in own_files
               for f in vars(type(obj)).values())


def describe_module(module: nn.Module) -> dict[str, Any]:
    """Names, shapes and flags of what the module holds, from one walk of the modules it holds (held)."""
    walk = held(module)
    parameters = [{"name": name, "shape": list(p.shape), "dtype": str(p.dtype), "requires_grad": p.requires_grad}
                  for name, p in held_tensors(module, "parameters", walk)]
    buffers = []
    owners = dict(walk.modules)
    for name, b in held_tensors(module, "buffers", walk):
        owner_name, _, leaf = name.rpartition(".")
        owner = owners.get(owner_name, module)
        buffers.append({"name": name, "shape": list(b.shape), "dtype": str(b.dtype),
                        "persistent": leaf not in owner._non_persistent_buffers_set})
    return {
        "kind": "module",
        "class": type(module).__name__,
        "training": module.training,
        "parameters": parameters,
        "buffers": buffers,
        "plain_tensors": plain_tensors(module, walk),
        "modules": [{"name": name, "class": type(m).__name__} for name, m in walk.modules[1:]],
    }


# nn.Module's own tables (what it registered, its hooks): never a student's container of modules.
_MODULE_INTERNALS = frozenset(vars(nn.Module()))


@dataclass(frozen=True)
class Held:
    """One walk of the modules a module holds: what a description reads several times over."""

    modules: list[tuple[str, nn.Module]]  # held_modules
    registered: frozenset[int]  # the ids of those named_modules() gives, whose tensors named_parameters() gives


def held_modules(module: nn.Module) -> list[tuple[str, nn.Module]]:
    """The module and every module its forward can reach as its own: named_modules(), then the modules any
    of them keeps in a plain list, tuple or dict (`self.heads = [Head(...) for ...]`) with theirs, named as
    an nn.ModuleList or nn.ModuleDict would name them (`heads.0`). parameters() and .to(device) do not see
    the latter, which is the device exercise's to charge; every other exercise judges what the module
    computes, through the modules its forward uses."""
    return held(module).modules


def held(module: nn.Module) -> Held:
    found = list(module.named_modules())[:MAX_ENTRIES]
    registered = frozenset(id(m) for _, m in found)
    seen = set(registered)
    for name, current in found:  # grows as it goes: what a held module holds is held too
        if len(found) >= MAX_ENTRIES:
            break
        for attr, value in vars(current).items():
            if attr in _MODULE_INTERNALS:
                continue
            for key, inner in _contained(value):
                prefix = f"{name}.{attr}.{key}" if name else f"{attr}.{key}"
                for sub, inner_held in inner.named_modules(prefix=prefix):
                    if id(inner_held) not in seen and len(found) < MAX_ENTRIES:
                        seen.add(id(inner_held))
                        found.append((sub, inner_held))
    return Held(found, registered)


def _contained(value: Any) -> list[tuple[str, nn.Module]]:
    """The modules a plain list, tuple or dict holds, by index or key (a key with a dot cannot be a name)."""
    if isinstance(value, (list, tuple)):
        pairs: list[tuple[Any, Any]] = list(enumerate(value[:MAX_ENTRIES]))
    elif isinstance(value, dict):
        pairs = list(value.items())[:MAX_ENTRIES]
    else:
        return []
    return [(str(key), m) for key, m in pairs
            if isinstance(m, nn.Module) and isinstance(key, (int, str)) and str(key) and "." not in str(key)]


def held_tensors(module: nn.Module, kind: str, walk: Held | None = None) -> list[tuple[str, torch.Tensor]]:
    """The module's `parameters` or `buffers` by name, as its named_parameters() or named_buffers() gives
    them, then those of the modules it holds in plain containers (held_modules), each tensor once. `walk`:
    the module's, where the caller has one."""
    walk = walk or held(module)
    found = list(getattr(module, f"named_{kind}")())[:MAX_ENTRIES]
    seen = {id(t) for _, t in found}
    for prefix, inner in walk.modules:
        if id(inner) in walk.registered:
            continue
        for leaf, tensor in getattr(inner, f"named_{kind}")(recurse=False):
            if id(tensor) not in seen and len(found) < MAX_ENTRIES:
                seen.add(id(tensor))
                found.append((f"{prefix}.{leaf}", tensor))
    return found


def named_state(module: nn.Module, walk: Held | None = None) -> dict[str, torch.Tensor]:
    """The module's parameters and buffers by the names its description gives them."""
    walk = walk or held(module)
    return dict(held_tensors(module, "parameters", walk) + held_tensors(module, "buffers", walk))


def submodule(module: nn.Module, name: str, walk: Held | None = None) -> nn.Module:
    """The held module of that name (see held_modules); "" is the module itself."""
    for held_name, m in (walk or held(module)).modules if name else [("", module)]:
        if held_name == name:
            return m
    raise AttributeError(f"{type(module).__name__} has no submodule {name!r}")


def plain_tensors(module: nn.Module, walk: Held | None = None) -> list[dict[str, Any]]:
    """Tensors held as ordinary attributes: `.to(device)` leaves them behind."""
    found = []
    for prefix, m in (walk or held(module)).modules:
        for attr, value in vars(m).items():
            if isinstance(value, torch.Tensor) and not isinstance(value, nn.Parameter):
                found.append({"name": f"{prefix}.{attr}" if prefix else attr, "shape": list(value.shape)})
    return found


def _parameter_names(fn: Any) -> list[str]:
    try:
        names = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return []
    return names[1:] if names and names[0] == "self" else names


def _defined_in(cls: type, own_files: set[str]) -> bool:
    init = cls.__dict__.get("__init__") or cls.__dict__.get("forward")
    code = getattr(init, "__code__", None)
    return code is not None and code.co_filename in own_files
