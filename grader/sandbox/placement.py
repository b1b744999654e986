"""Which tensors a module's forward uses that `.to(device)` leaves behind, found without a GPU.

Runs in the child, on an instance made for the probe: `moved` moves it for good. The module goes to a
stand-in device, `meta` by name, where every tensor is a wrapper holding real CPU data: the forward
computes as on the CPU (`.item()`, `nonzero` and printing work, which the real meta device refuses),
while `x.device` says `meta`, so a tensor made with `device=x.device` lands there too. An op that mixes
a tensor there with a CPU tensor is one CUDA refuses; that CPU tensor is reported with the name the
submission gives it (an attribute, a list or dict entry, a global, a closure variable) where one is
found, or as made in the forward. As on CUDA, 0-dim CPU tensors mix freely (they are read as numbers),
advanced indexing takes CPU indices, and `copy_` crosses devices.

A forward that cannot run on wrappers (`.tolist()` refuses tensor subclasses) is `scan`ned instead: a
CPU forward, reporting the tensors it mixes with the input's and the module's that are neither the
input, nor a parameter or buffer, nor made during the forward. It cannot see a tensor made in the
forward without `device=`; the stand-in device can.

Everything returned is plain data, and a claim: it runs in the submission's process, which can rewrite it.
The judge names with it the tensor it reports and fails the module for it, but never gives a point for
a report that finds nothing: those rest on the judge's own measurement (exercises/device.py).
"""
from __future__ import annotations

import inspect
from typing import Any, Callable

import torch
from torch import nn
from torch.utils._python_dispatch import TorchDispatchMode

STAND_IN = torch.device("meta")
MAX_FOUND = 8
MAX_NAMES = 2000
MAX_ITEMS = 100  # entries of one list or dict looked into for names
DEPTH = 3  # containers inside containers looked into for names
MAX_NAME = 200

_aten = torch.ops.aten
# CUDA takes CPU index tensors for advanced indexing: the indices (argument 1) may stay on the CPU.
_INDEXING = {_aten.index.Tensor, _aten.index_put.default, _aten.index_put_.default,
             _aten._index_put_impl_.default}
_CROSS_DEVICE = {_aten.copy_.default}
_MODULE_STATE = frozenset(vars(nn.Module()))  # nn.Module's own bookkeeping, registered tensors included


class StandIn(torch.Tensor):
    """A tensor on the stand-in device: it reports `meta` and holds its real CPU data in `inner`."""

    inner: torch.Tensor  # type: ignore[assignment]  # TensorBase declares a method of that name

    @staticmethod
    def __new__(cls, inner: torch.Tensor) -> StandIn:
        return torch.Tensor._make_wrapper_subclass(
            cls, inner.size(), strides=inner.stride(), storage_offset=inner.storage_offset(),
            dtype=inner.dtype, device=STAND_IN, requires_grad=inner.requires_grad)

    def __init__(self, inner: torch.Tensor) -> None:
        self.inner = inner

    @classmethod
    def __torch_dispatch__(cls, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:  # type: ignore[override]
        raise RuntimeError("a stand-in tensor is only usable inside the probe's forward")


# -- the names a submission gives the tensors its module can reach -----------------------------------------
def reachable(module: nn.Module) -> dict[int, tuple[str, str]]:
    """id of each tensor the module reaches -> (kind, name): an attribute (`masks[0]`), a parameter or
    buffer (`W_key.weight`: left behind only by a .to() that does not move it, or as the copy a list kept
    of a buffer, which the attribute names first), a global of its forward's file, a variable its
    forward closes over, or a tensor of a module held in one of those but not registered
    (`heads[0].W_key.weight`). The first name found is kept."""
    names: dict[int, tuple[str, str]] = {}
    subs = list(module.named_modules())[:MAX_ITEMS]
    for prefix, sub in subs:
        for attr, value in vars(sub).items():
            if attr not in _MODULE_STATE:
                _walk(value, "attribute", f"{prefix}.{attr}" if prefix else attr, names, DEPTH)
    for name, tensor in [*module.named_parameters(), *module.named_buffers()][:MAX_NAMES]:
        names.setdefault(id(tensor), ("registered", name[:MAX_NAME]))
    for _, sub in subs:
        forward = getattr(type(sub), "forward", None)
        if inspect.isfunction(forward) and not type(sub).__module__.startswith("torch."):
            for name, value in list(forward.__globals__.items())[:MAX_NAMES]:
                _walk(value, "global", name, names, DEPTH)
            for name, cell in zip(forward.__code__.co_freevars, forward.__closure__ or ()):
                _walk(_contents(cell), "closure", name, names, DEPTH)
    return names


def _contents(cell: Any) -> Any:
    try:
        return cell.cell_contents
    except ValueError:  # a variable the enclosing function has not bound yet
        return None


def _walk(value: Any, kind: str, name: str, names: dict[int, tuple[str, str]], depth: int) -> None:
    if len(names) >= MAX_NAMES:
        return
    if isinstance(value, torch.Tensor):
        names.setdefault(id(value), (kind, name[:MAX_NAME]))
    elif isinstance(value, nn.Module):  # one in a global or a plain list: .to() does not reach it
        for inner, tensor in [*value.named_parameters(), *value.named_buffers()][:MAX_ITEMS]:
            _walk(tensor, "module", f"{name}.{inner}", names, 0)
    elif depth and isinstance(value, (list, tuple)):
        for i, item in enumerate(value[:MAX_ITEMS]):
            _walk(item, kind, f"{name}[{i}]", names, depth - 1)
    elif depth and isinstance(value, dict):
        for key, item in list(value.items())[:MAX_ITEMS]:
            shown = repr(key) if isinstance(key, (str, int)) else "…"
            _walk(item, kind, f"{name}[{shown}]", names, depth - 1)


# -- watching a forward op by op ---------------------------------------------------------------------------
class _Watch(TorchDispatchMode):
    """Runs a forward op by op and notes each op that mixes tensors that followed the module with
    tensors left behind; a left-behind tensor is traced to the named one it came from (`mask.bool()[:n]`
    to `mask`) or to the op that made it. Subclasses say what followed and how an op runs."""

    def __init__(self, names: dict[int, tuple[str, str]]) -> None:
        super().__init__()
        self.names = names
        self.origins: dict[int, tuple[str, str]] = {}  # id of a left-behind tensor -> where it came from
        self.keep: list[torch.Tensor] = []  # every tensor an id above refers to, so no id is reused
        self.found: dict[tuple[str, str], dict[str, Any]] = {}

    @classmethod
    def _should_skip_dynamo(cls) -> bool:
        """False: torch otherwise wraps a mode's __torch_dispatch__ to keep torch.compile out of it, and
        that wrapper imports torch._dynamo on the first op (~1.9 s in every sandbox). Nothing here compiles."""
        return False

    def followed(self, t: torch.Tensor) -> bool:
        raise NotImplementedError

    def run(self, func: Any, args: Any, kwargs: dict[str, Any], followed: bool) -> Any:
        raise NotImplementedError

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        kwargs = kwargs or {}
        tensors = _tensors((args, kwargs))
        behind = [t for t in tensors if not self.followed(t)]
        mixed = _mixed(func, args, kwargs)
        if any(self.followed(t) for t in mixed):
            for t in mixed:
                if t.dim() and not self.followed(t):
                    self.note(func, t)
        out = self.run(func, args, kwargs, followed=len(behind) < len(tensors))
        origin = self.origin(max(behind, key=torch.Tensor.dim)) if behind else ("forward", "")
        for t in _tensors(out):
            if not self.followed(t) and id(t) not in self.origins:
                self.origins[id(t)] = origin
                self.keep.append(t)
        return out

    def origin(self, t: torch.Tensor) -> tuple[str, str]:
        return self.origins.get(id(t)) or self.names.get(id(t)) or ("unknown", "")

    def note(self, func: Any, t: torch.Tensor) -> None:
        origin = self.origin(t)
        if origin not in self.found and len(self.found) < MAX_FOUND:
            self.found[origin] = {"kind": origin[0], "name": origin[1], "shape": list(t.shape),
                                  "op": str(func)[:MAX_NAME]}

    def report(self, error: BaseException | None = None) -> dict[str, Any]:
        return {"found": list(self.found.values()), "error": type(error).__name__ if error else ""}


class _Moved(_Watch):
    """On the stand-in device: what followed is a StandIn, or a parameter the module had before a move
    that replaced it by one (CUDA moves a parameter in place, so a list that holds it sees it moved)."""

    def __init__(self, names: dict[int, tuple[str, str]]) -> None:
        super().__init__(names)
        self.moved_in_place: dict[int, torch.Tensor] = {}

    def move(self, module: nn.Module) -> None:
        """module.to(stand-in), noting the parameters it replaced."""
        before = dict(module.named_parameters())
        module.to(STAND_IN)
        after = dict(module.named_parameters())
        self.moved_in_place = {id(p): p for name, p in before.items() if isinstance(after.get(name), StandIn)}

    def followed(self, t: torch.Tensor) -> bool:
        return isinstance(t, StandIn) or id(t) in self.moved_in_place

    def run(self, func: Any, args: Any, kwargs: dict[str, Any], followed: bool) -> Any:
        """The op on the real data; its outputs go to the stand-in device as they would go to CUDA: where
        `device=` says, else where its inputs are."""
        device = kwargs.get("device")
        if device is not None:
            followed = torch.device(device) == STAND_IN
            kwargs = {**kwargs, "device": torch.device("cpu")} if followed else kwargs
        wrappers = {id(t.inner): t for t in _tensors((args, kwargs)) if isinstance(t, StandIn)}
        out = func(*_mapped(_unwrap, args), **_mapped(_unwrap, kwargs))

        def place(t: Any) -> Any:
            if not isinstance(t, torch.Tensor):
                return t
            if id(t) in wrappers:  # an in-place op returns the tensor it changed
                return wrappers[id(t)]
            return StandIn(t) if followed else t

        return _mapped(place, out)


class _Scan(_Watch):
    """On the CPU: what followed is the input, a parameter or buffer, or made during the forward from
    those or from nothing (a tensor made here without `device=` cannot be told from one made with it)."""

    def __init__(self, names: dict[int, tuple[str, str]], known: list[torch.Tensor]) -> None:
        super().__init__(names)
        self.known = {id(t) for t in known}
        self.keep.extend(known)

    def followed(self, t: torch.Tensor) -> bool:
        return id(t) in self.known

    def run(self, func: Any, args: Any, kwargs: dict[str, Any], followed: bool) -> Any:
        out = func(*args, **kwargs)
        made_from_behind = not followed and bool(_tensors((args, kwargs)))
        if not made_from_behind:
            for t in _tensors(out):
                self.known.add(id(t))
                self.keep.append(t)
        return out


# An op's arguments and results as the dispatcher passes them: tensors and plain values in lists, tuples
# and dicts. Walked here rather than with torch.utils._pytree, whose generality (namedtuples, registered
# classes) cost two thirds of a watched forward of the book's small modules.
def _tensors(tree: Any) -> list[torch.Tensor]:
    found: list[torch.Tensor] = []

    def walk(value: Any) -> None:
        if isinstance(value, torch.Tensor):
            found.append(value)
        elif type(value) in (list, tuple):
            for item in value:
                walk(item)
        elif type(value) is dict:
            for item in value.values():
                walk(item)

    walk(tree)
    return found


def _mapped(fn: Callable[[Any], Any], tree: Any) -> Any:
    """`tree` with fn applied to each of its leaves (what is not a list, tuple or dict)."""
    kind = type(tree)
    if kind in (list, tuple):
        return kind(_mapped(fn, item) for item in tree)
    if kind is dict:
        return {key: _mapped(fn, item) for key, item in tree.items()}
    return fn(tree)


def _mixed(func: Any, args: Any, kwargs: dict[str, Any]) -> list[torch.Tensor]:
    """The tensors of an op that CUDA wants on one device."""
    if func in _CROSS_DEVICE:
        return []
    if func in _INDEXING:
        args = (args[0], *args[2:])
    return _tensors((args, kwargs))


def _unwrap(t: Any) -> Any:
    return t.inner if isinstance(t, StandIn) else t


# -- the probes --------------------------------------------------------------------------------------------
def moved(module: nn.Module, x: torch.Tensor) -> dict[str, Any]:
    """`module.to(stand-in)` and its forward on x there. An error means the forward cannot run there
    (a wrapper refuses `.tolist()`, say): it is reported by its type, for the judge to `scan` instead."""
    watch = _Moved(reachable(module))
    module.eval()
    try:
        with torch.no_grad(), watch:
            watch.move(module)
            module(x.to(STAND_IN))
    except Exception as exc:
        return watch.report(exc)
    return watch.report()


def scan(module: nn.Module, x: torch.Tensor) -> dict[str, Any]:
    """The module's forward on x on the CPU, noting tensors that came from outside it."""
    watch = _Scan(reachable(module), [x, *module.parameters(), *module.buffers()])
    module.eval()
    with torch.no_grad(), watch:
        module(x)
    return watch.report()
