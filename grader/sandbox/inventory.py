"""Plain-data descriptions of the objects a submission made, for the judge to choose answers from.

Runs in the child, where the submission can rewrite it. Everything it returns is a claim: the judge uses it
to find things (a class to build, the names to read and load, a plain tensor to name) and confirms by
behaviour what it gives points for; it holds only names, shapes and flags, never values the judge would trust.
"""
from __future__ import annotations

import inspect
from typing import Any

import torch
from torch import nn

MAX_ENTRIES = 2000


def describe(obj: Any, own_files: set[str]) -> dict[str, Any] | None:
    """Describe a module instance, class or function; None for anything the exercises never look for."""
    if isinstance(obj, nn.Module):
        return {**describe_module(obj), "defined_here": _defined_in(type(obj), own_files)}
    if isinstance(obj, type):
        return {
            "kind": "class",
            "class": obj.__name__,
            "is_module": issubclass(obj, nn.Module),
            "params": _parameter_names(obj.__init__),  # type: ignore[misc]  # the class's own, read not called
            "defined_here": _defined_in(obj, own_files),
        }
    if inspect.isfunction(obj):
        return {
            "kind": "function",
            "class": obj.__name__,
            "params": _parameter_names(obj),
            "defined_here": obj.__code__.co_filename in own_files,
        }
    if own_instance(obj, own_files):
        return {"kind": "object", "class": type(obj).__name__, "defined_here": True}
    return None


def own_instance(obj: Any, own_files: set[str]) -> bool:
    """An object of a plain class (not an nn.Module) with a method the submission wrote: the lecture's
    LayerNorm1d. The judge gets a handle on it, to call it and set its attributes."""
    if isinstance(obj, (type, nn.Module, torch.Tensor)):
        return False
    return any(getattr(getattr(f, "__code__", None), "co_filename", None) in own_files
               for f in vars(type(obj)).values())


def describe_module(module: nn.Module) -> dict[str, Any]:
    parameters = []
    for name, p in list(module.named_parameters())[:MAX_ENTRIES]:
        parameters.append(
            {"name": name, "shape": list(p.shape), "dtype": str(p.dtype), "requires_grad": p.requires_grad}
        )
    buffers = []
    for name, b in list(module.named_buffers())[:MAX_ENTRIES]:
        owner_name, _, leaf = name.rpartition(".")
        owner = module.get_submodule(owner_name) if owner_name else module
        buffers.append(
            {
                "name": name,
                "shape": list(b.shape),
                "dtype": str(b.dtype),
                "persistent": leaf not in owner._non_persistent_buffers_set,
            }
        )
    return {
        "kind": "module",
        "class": type(module).__name__,
        "training": module.training,
        "parameters": parameters,
        "buffers": buffers,
        "plain_tensors": plain_tensors(module),
        "modules": [
            {"name": name, "class": type(m).__name__}
            for name, m in list(module.named_modules())[1:MAX_ENTRIES]
        ],
    }


def plain_tensors(module: nn.Module) -> list[dict[str, Any]]:
    """Tensors held as ordinary attributes: `.to(device)` leaves them behind."""
    found = []
    for prefix, m in list(module.named_modules())[:MAX_ENTRIES]:
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
