"""The sandboxed child: runs the submission's cells and answers the judge's probes.

This is the only place student code runs. Objects stay here; the judge holds integer handles to
them and gets back plain data and tensor bytes (grader.wire). The child never decides a verdict.
"""
from __future__ import annotations

import linecache
import os
import random
import signal
import socket
import sys
import traceback
import types
from pathlib import Path
from typing import Any, Callable

import torch
from torch import nn

from grader import wire
from grader.sandbox import confine, inventory, isolation, limits, package, seccomp

MAX_TEXT = 2000


class Child:
    def __init__(self, sock: socket.socket, submission_file: str) -> None:
        self.sock = sock
        self.module = types.ModuleType("__main__")
        self.module.__file__ = submission_file
        self.namespace = self.module.__dict__
        self.namespace["display"] = _display
        sys.modules["__main__"] = self.module
        self.own_files: set[str] = set()  # the files of the submission's code: its cells', and its own modules'
        self.root = os.path.dirname(submission_file)  # the scratch folder: what its code imports from here is its own
        self.imported_before = inventory.last_module()  # what the child had before any code of the submission
        self.objects: list[Any] = []
        self.refs: dict[int, int] = {}  # id(object) -> handle; self.objects keeps every id alive
        self.history: list[tuple[int, str, Any]] = []  # (cell, name, object) for every binding made
        self.sources: dict[str, list[str]] = {}  # each file's lines, as its cells have run
        self.ops: dict[str, Callable[..., Any]] = {
            "run_cell": self.run_cell,
            "inventory": self.inventory,
            "construct": self.construct,
            "call": self.call,
            "forward_each": self.forward_each,
            "load_state": self.load_state,
            "state": self.state,
            "describe": self.describe,
            "submodule": self.submodule,
            "left_behind": self.left_behind,
            "variables": self.variables,
        }

    def serve(self) -> None:
        while True:
            try:
                request = wire.recv(self.sock)
            except wire.PeerClosed:
                return
            try:
                reply = {"ok": True, "value": self.ops[request["op"]](**request.get("args", {}))}
            except BaseException as exc:  # a student's SystemExit or KeyboardInterrupt is an answer too
                reply = {"ok": False, "error": self.error_info(exc)}
            _flush()
            wire.send(self.sock, reply)

    # -- cells ------------------------------------------------------------------------------------
    def run_cell(self, number: int, source: str, filename: str, first_line: int,
                 writefile: list[Any] | None = None, share: float | None = None) -> dict[str, Any]:
        """Run one cell (a notebook's, or a statement of a module). Past `share` seconds it is interrupted
        as Jupyter's Stop button does it: KeyboardInterrupt in the student's code, what it bound so far
        kept, and the answer says where it stopped."""
        if writefile:
            return self.write_file(*writefile)
        self.own_files.add(filename)
        padded = "\n" * (first_line - 1) + source
        self._remember_source(filename, first_line, source)
        before = {name: id(value) for name, value in self.namespace.items()}
        stopped: dict[str, Any] | None = None
        timer = InterruptAfter(share)
        try:
            code = compile(padded, filename, "exec")
            with timer:
                exec(code, self.namespace)
        except KeyboardInterrupt as exc:
            if not timer.fired:
                raise
            stopped = {"seconds": share, **self.error_info(exc)}
        finally:
            for name, value in list(self.namespace.items()):
                if before.get(name) != id(value) and not name.startswith("__"):
                    self.history.append((number, name, value))
        return {"bound": sorted({n for c, n, _ in self.history if c == number}), "interrupted": stopped}

    def _remember_source(self, filename: str, first_line: int, source: str) -> None:
        """The file's lines as far as its cells have shown them, for tracebacks: a function a module's
        earlier statement defined still shows its source when a later one calls it."""
        lines = self.sources.setdefault(filename, [])
        new = source.splitlines(keepends=True)
        lines.extend([""] * (first_line - 1 + len(new) - len(lines)))
        lines[first_line - 1:first_line - 1 + len(new)] = new
        linecache.cache[filename] = (sum(map(len, lines)), None, lines, filename)

    def write_file(self, name: str, content: str, append: bool) -> dict[str, Any]:
        scratch = Path.cwd().resolve()
        target = (scratch / name).resolve()
        if not name or scratch not in target.parents:
            raise PermissionError(f"%%writefile may only write inside the scratch directory: {name!r}")
        with open(target, "a" if append else "w", encoding="utf-8") as f:
            f.write(content)
        return {"bound": []}

    # -- objects ----------------------------------------------------------------------------------
    def register(self, obj: Any) -> int:
        if id(obj) not in self.refs:
            self.refs[id(obj)] = len(self.objects)
            self.objects.append(obj)
        return self.refs[id(obj)]

    def inventory(self) -> list[dict[str, Any]]:
        """Every module, class and function the cells bound or reach (inventory.reached), with every (cell, name)
        that held it."""
        entries: dict[int, dict[str, Any]] = {}
        inventory.adopt_modules(self.own_files, self.root, self.imported_before)
        for cell, name, obj in inventory.reached(self.history, self.own_files):
            ref = self.refs.get(id(obj))
            if ref not in entries:
                info = inventory.describe(obj, self.own_files)
                if info is None:
                    continue
                ref = self.register(obj)
                entries[ref] = {"ref": ref, "bindings": [], **info}
            entries[ref]["bindings"].append({"cell": cell, "name": name})
        return list(entries.values())

    def construct(self, ref: int, args: list[Any], kwargs: dict[str, Any]) -> Any:
        return self.export(self.objects[ref](*self.resolve(args), **self.resolve(kwargs)))

    def call(self, ref: int, args: list[Any], kwargs: dict[str, Any], method: str | None = None,
             device: str | None = None, grad: bool = False, eval_mode: bool = True,
             load_first: dict[str, torch.Tensor] | None = None) -> Any:
        """The call, after `load_first` was loaded into the target (load_state) where it is given: one round
        trip for the two. A load that raises is answered as {"__unloaded__": why}, so the judge tells it
        from the call's own error."""
        unloaded = self._load_first(ref, load_first)
        if unloaded is not None:
            return unloaded
        target = self.objects[ref]
        if isinstance(target, nn.Module):
            if eval_mode:
                target.eval()
            if device:
                target.to(device)
        fn = getattr(target, method) if method else target
        args, kwargs = self.resolve(args, device), self.resolve(kwargs, device)
        with torch.set_grad_enabled(grad):
            return self.export(fn(*args, **kwargs))

    def forward_each(self, ref: int, inputs: list[Any],
                     load_first: dict[str, torch.Tensor] | None = None) -> dict[str, Any]:
        """The module called on each input in turn, as `call` calls it, in one round trip: the outputs up to the
        first call that raises, and why that one raised (None where none did); the inputs after it are not run.
        `load_first` is loaded before the first, as `call` loads it (a load that raises is answered as there)."""
        unloaded = self._load_first(ref, load_first)
        if unloaded is not None:
            return unloaded
        outputs = []
        for x in inputs:
            try:
                outputs.append(self.call(ref, [x], {}))
            except BaseException as exc:  # as serve() answers one call that raises
                return {"outputs": outputs, "raised": self.error_info(exc)}
        return {"outputs": outputs, "raised": None}

    def _load_first(self, ref: int, tensors: dict[str, torch.Tensor] | None) -> dict[str, Any] | None:
        """For a probe that loads before it calls: {"__unloaded__": why} where the load raised, else None."""
        if tensors is not None:
            try:
                self.load_state(ref, tensors)
            except Exception as exc:
                return {"__unloaded__": self.error_info(exc)}
        return None

    def load_state(self, ref: int, tensors: dict[str, torch.Tensor]) -> list[str]:
        """Copy the judge's tensors in, by the names the module's description gave them (held modules too)."""
        module: nn.Module = self.objects[ref]
        held = inventory.named_state(module)
        with torch.no_grad():
            for name, value in tensors.items():
                if name not in held:
                    raise AttributeError(f"{type(module).__name__} has no parameter or buffer {name!r}")
                held[name].copy_(value)
        return sorted(tensors)

    def state(self, ref: int, names: list[str] | None = None) -> dict[str, torch.Tensor]:
        module: nn.Module = self.objects[ref]
        walk = inventory.held(module)  # once, for all three reads
        found = inventory.named_state(module, walk)
        for item in inventory.plain_tensors(module, walk):
            owner, _, attr = item["name"].rpartition(".")
            found[item["name"]] = getattr(inventory.submodule(module, owner, walk), attr)
        return {n: t for n, t in found.items() if names is None or n in names}

    def variables(self, names: list[str], cell: int | None = None) -> dict[str, Any]:
        """The top-level values bound to `names` (a lecture keeps its answers in plain variables), now or
        as the given cell left them (a later cell may rebind `x`), each checked on its own: one that
        cannot cross the boundary is reported as such, not as a failed read."""
        bound = dict(self.namespace) if cell is None else {n: o for c, n, o in self.history if c == cell}
        found: dict[str, Any] = {}
        for name in names:
            if name not in bound:
                continue
            value = self.export(bound[name])
            try:
                if wire.header_size(wire.encode(value)) > wire.MAX_HEADER // 4:  # room for the others
                    raise ValueError("too large to send as plain data")
            except (wire.WireError, TypeError, ValueError, OverflowError) as exc:
                value = {"__unreadable__": _safe(str, exc)[:MAX_TEXT]}
            found[name] = value
        return found

    def describe(self, ref: int) -> dict[str, Any] | None:
        return inventory.describe(self.objects[ref], self.own_files)

    def submodule(self, ref: int, name: str) -> Any:
        return self.export(inventory.submodule(self.objects[ref], name))

    def left_behind(self, ref: int, x: torch.Tensor, move: bool = True) -> dict[str, Any]:
        """The tensors the module's forward on x uses that .to(device) would leave on the CPU, found on a
        stand-in device (move) or in a CPU forward (grader.sandbox.placement); `move` moves it for good."""
        from grader.sandbox import placement  # here, not at the top: only the device exercise asks

        return (placement.moved if move else placement.scan)(self.objects[ref], x)

    # -- values across the boundary -----------------------------------------------------------------
    def resolve(self, value: Any, device: str | None = None) -> Any:
        if isinstance(value, torch.Tensor):
            return value.to(device) if device else value
        if isinstance(value, dict):
            if set(value) == {"__ref__"}:
                return self.objects[value["__ref__"]]
            return {k: self.resolve(v, device) for k, v in value.items()}
        if isinstance(value, list):
            return [self.resolve(v, device) for v in value]
        return value

    def export(self, value: Any) -> Any:
        if isinstance(value, torch.Tensor):
            return value
        if isinstance(value, nn.Module):
            return {"__ref__": self.register(value), "info": inventory.describe_module(value)}
        if inventory.own_instance(value, self.own_files):
            return {"__ref__": self.register(value), "info": inventory.describe(value, self.own_files)}
        if isinstance(value, (list, tuple)):
            return [self.export(v) for v in value]
        if isinstance(value, dict):
            return {str(k): self.export(v) for k, v in value.items()}
        if value is None or isinstance(value, (bool, int, float, str)):
            return value
        return {"__object__": type(value).__name__, "repr": _safe(repr, value)}

    def error_info(self, exc: BaseException) -> dict[str, Any]:
        # a frame in the student's own module is theirs too
        inventory.adopt_modules(self.own_files, self.root, self.imported_before)
        frames = [
            {"file": f.filename, "line": f.lineno, "function": f.name, "source": (f.line or "")[:300]}
            for f in traceback.extract_tb(exc.__traceback__)
            if f.filename in self.own_files
        ]
        message = exc.msg if isinstance(exc, SyntaxError) else _safe(str, exc)
        info: dict[str, Any] = {
            "type": type(exc).__name__,
            "message": str(message)[:MAX_TEXT],
            "frames": frames[-8:],
        }
        if isinstance(exc, SyntaxError):
            info["line"] = exc.lineno
            info["source"] = (exc.text or "").rstrip()[:300]
        elif frames:
            info["line"] = frames[-1]["line"]
        return info


class InterruptAfter:
    """A context in which SIGALRM, `seconds` on, raises KeyboardInterrupt in whatever runs (None: never).
    `fired` tells that interrupt from a KeyboardInterrupt the student's code raised itself. Code that
    catches it or replaces the handler does not stop: the judge's deadline, a little later, kills it."""

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self.fired = False

    def _fire(self, signum: int, frame: Any) -> None:
        self.fired = True
        raise KeyboardInterrupt

    def __enter__(self) -> "InterruptAfter":
        if self.seconds:
            signal.signal(signal.SIGALRM, self._fire)
            signal.setitimer(signal.ITIMER_REAL, self.seconds)
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.seconds:
            signal.setitimer(signal.ITIMER_REAL, 0)


def _display(*objects: Any, **_: Any) -> None:
    """Jupyter's display(), as plain printing, so notebooks that call it still run."""
    print(*objects)


def _safe(fn: Callable[[Any], str], value: Any) -> str:
    try:
        return str(fn(value))[:MAX_TEXT]
    except BaseException:
        return f"<{type(value).__name__} that cannot be shown>"


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass


def seed_torch(seed: int) -> None:
    """torch.manual_seed, less its cost where torch is built for the CPU alone: it also queues the seed for
    each accelerator (should one start later) with the stack that queued it, and formatting that stack read
    torch's sources (~2 ms a child). torch.accelerator (2.6+) tells without starting a device."""
    accelerator = getattr(torch, "accelerator", None)
    if accelerator is not None and accelerator.current_accelerator() is None:
        torch.random.default_generator.manual_seed(seed)
    else:
        torch.manual_seed(seed)


def start(sock: socket.socket, output: int, config: dict[str, Any]) -> None:
    """Bootstrap a fresh child, then serve probes until the judge closes the connection.

    Order matters: the namespaces and mounts first (the scratch folder moves onto its tmpfs, so the
    working directory is taken after), output capture and caps, then the filesystem and syscall
    confinement, the uid of its own last (what comes before needs root), and only then any submission code.
    """
    scratch = config["scratch"]
    without = config["without"]
    sandbox_limits = limits.Limits.from_json(config["limits"])
    readable = confine.readable_roots(tuple(config["hidden"]))
    walls = isolation.Isolation() if "namespaces" in without else isolation.isolate(
        sock.fileno(), scratch, sandbox_limits.disk_bytes, readable, config.get("pid_one", False))
    os.chdir(scratch)
    os.environ["TMPDIR"] = scratch
    limits.capture_output(output)
    if not walls.protections:  # no namespaces: a root-run grader's child may still drop to a uid of its own
        walls.uid = isolation.own_uid(readable)
    active = walls.protections + limits.apply(sandbox_limits, count_processes=walls.counts_processes)
    sys.path.insert(0, scratch)
    sys.argv = [config["submission"]]  # as `python file.py` gives it: argparse in a script sees no options
    random.seed(config["seed"])
    seed_torch(config["seed"])
    # The exercises' tensors are small: a second thread only spins, taking a core from the judge or from
    # the other submissions of a batch (it halves the CPU a submission costs). Students may change it.
    torch.set_num_threads(1)
    # Full float32 on GPUs, so the device check's tolerance means the same on every card.
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    confine.no_new_privileges()  # a setuid binary can never give the submission back what it lost
    if "landlock" not in without:
        rules = confine.filesystem_rules(scratch, config["hidden"], config.get("accelerator"))
        landlock = confine.restrict_filesystem(rules)
        active += [landlock] if landlock else []
    if walls.uid is not None:
        isolation.become(walls.uid, scratch)
        active.append("unprivileged-user")
    confine.open_to_the_judge()
    isolation.drop_capabilities()
    if "seccomp" not in without and seccomp.install(config.get("accelerator")):
        active.append("seccomp")
    child = Child(sock, config["submission"])
    if config.get("package"):
        package.run_as_package(child.namespace, config["package"], scratch)
    wire.send(sock, {"ok": True, "value": {"protections": active}})
    child.serve()
