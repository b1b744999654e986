"""What a check asks of the objects a submission made: build one, call it, load weights into it, read its
tensors. Each question is one probe of the submission's sandbox (grader.judge.client.SandboxClient, which this
is a part of), and each answer is held to the protocol (grader.judge.protocol) before a check reads it: one that
does not fit stops the child and is the submission's failure.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, TypeVar

import torch

from grader import wire
from grader.judge import protocol
from grader.judge.probes import (BadReturn, ChildCrashed, Obj, ProtocolViolation, StudentError, clean_error,
                                  describe_value, show_args)

T = TypeVar("T")

# The most a call's answer carries (tensor bytes): the output of a forward and the like. No exercise's honest
# answer comes near it (attention weights beside a GPT-2-sized output at 1024 tokens are 96 MiB), and what
# a judge holds per answer stays a fraction of the wire's cap, which only the lecture's data needs
# (the variables probe) and a module's weights may (state).
ANSWER_BYTES = 128 * 2**20


class Asking:
    """The questions; SandboxClient asks them of its live child."""

    generation: int  # how many children the sandbox has started: a handle is good only in the one that gave it

    if TYPE_CHECKING:
        def _ensure_child(self) -> object: ...

        def _kill(self, grace: float = 0.0) -> dict[str, int]: ...

        def _probe(self, op: str, label: str, timeout: float | None = None, hangs: str | None = None, *,
                   most: int = wire.MAX_PAYLOAD, **args: Any) -> Any: ...

    def _ref(self, obj: Obj) -> dict[str, int]:
        if obj.generation != self.generation:
            raise ChildCrashed(f"{obj.name}", {"restarted": 1})
        return {"__ref__": obj.ref}

    def _obj(self, value: Any, label: str) -> Obj:
        """A handle on what the child returned: anything but an object it kept is the submission's bad
        return; a handle whose description does not fit the protocol, a protocol violation."""
        if not (isinstance(value, dict) and "__ref__" in value):
            raise BadReturn(label, describe_value(value))
        ref, info = self._valid(label, protocol.handle, value)
        return Obj(ref, info, self.generation)

    def _valid(self, label: str, validate: Callable[..., T], value: Any, *args: Any) -> T:
        """validate(value, *args), or the child is stopped: an answer that does not fit the protocol
        (grader.judge.protocol) is the submission's failure, `check.protocol`."""
        try:
            return validate(value, *args)
        except protocol.Invalid as exc:
            self._kill()
            raise ProtocolViolation(label, str(exc)) from None

    def construct(self, cls: Obj, *args: Any, label: str | None = None, **kwargs: Any) -> Obj:
        label = label or f"{cls.cls}({show_args(args, kwargs)})"
        self._ensure_child()
        value = self._probe("construct", label, None, f"{cls.cls}.__init__", ref=self._ref(cls)["__ref__"],
                            args=list(args), kwargs=kwargs)
        return self._obj(value, label)

    def variables(self, names: list[str], cell: int | None = None) -> dict[str, Any]:
        """The submission's top-level values of these names (those it bound), now or as `cell` left them;
        a value that could not be sent comes back as {"__unreadable__": why}. A claim to check, like
        every answer."""
        self._ensure_child()
        label = f"reading your variables ({', '.join(names)})"
        value = self._probe("variables", label, names=list(names), cell=cell)
        return self._valid(label, protocol.values, value, names)

    def call(self, target: Obj, *args: Any, method: str | None = None, label: str | None = None,
             timeout: float | None = None, device: str | None = None,
             load_first: dict[str, torch.Tensor] | None = None, **kwargs: Any) -> Any:
        """The call's answer. `load_first`: tensors loaded into the target before the call, in the same round
        trip, as load_state would load them (a load that raises is reported as load_state reports it)."""
        label = label or f"{target.name}{'.' + method if method else ''}({show_args(args, kwargs)})"
        self._ensure_child()
        args = tuple(self._ref(a) if isinstance(a, Obj) else a for a in args)
        value = self._probe("call", label, timeout, f"{target.cls}.{method or '__call__'}", most=ANSWER_BYTES,
                            ref=self._ref(target)["__ref__"], args=list(args), kwargs=kwargs, method=method,
                            device=device, **_loading_first(load_first))
        return self._loaded(target, load_first, value)

    def call_module(self, target: Obj, *args: Any, label: str | None = None, **kwargs: Any) -> Obj:
        label = label or f"{target.name}({show_args(args, kwargs)})"
        return self._obj(self.call(target, *args, label=label, **kwargs), label)

    def forward(self, module: Obj, x: torch.Tensor, label: str | None = None, timeout: float | None = None,
                device: str | None = None, load_first: dict[str, torch.Tensor] | None = None) -> torch.Tensor:
        """Call the module on x (in eval mode, no grad), after loading `load_first` into it where given (see
        call); its output must be one floating tensor."""
        label = label or f"{module.cls}.forward (input {tuple(x.shape)})"
        return _floating(self.call(module, x, label=label, timeout=timeout, device=device, load_first=load_first),
                         label)

    def forward_each(self, module: Obj, inputs: list[torch.Tensor], label: str | None = None,
                     load_first: dict[str, torch.Tensor] | None = None
                     ) -> tuple[list[torch.Tensor], StudentError | None]:
        """forward on each input in turn, in one round trip: the outputs up to the first call that raised, and
        that call's StudentError (labelled as forward labels it, or `label`), or None; the inputs after it are
        not run. `load_first`: tensors loaded into the module before the first input, as `call` loads them."""
        labels = [label or f"{module.cls}.forward (input {tuple(x.shape)})" for x in inputs]
        label = label or f"{module.cls}.forward (inputs {', '.join(str(tuple(x.shape)) for x in inputs)})"
        self._ensure_child()
        value = self._loaded(module, load_first, self._probe(
            "forward_each", label, None, f"{module.cls}.__call__", most=ANSWER_BYTES,
            ref=self._ref(module)["__ref__"], inputs=list(inputs), **_loading_first(load_first)))
        def ran(value: Any, where: str) -> dict[str, Any]:
            """The outputs of the inputs before the one that raised, if one did (clean_error reads any why)."""
            answer = protocol.record({"outputs": protocol.listed})(value, where)
            if len(answer["outputs"]) > len(inputs) or (len(answer["outputs"]) < len(inputs)) != \
                    (answer.get("raised") is not None):
                raise protocol.Invalid(f"{where}: {len(answer['outputs'])} outputs of {len(inputs)} inputs")
            return answer

        answer = self._valid(label, ran, value, "forward_each")
        outputs, raised = answer["outputs"], answer.get("raised")
        error = None if raised is None else StudentError(labels[len(outputs)], clean_error(raised))
        return [_floating(out, each) for out, each in zip(outputs, labels)], error

    def load_state(self, module: Obj, tensors: dict[str, torch.Tensor]) -> None:
        label = self._loading(module)
        loaded = self._probe("load_state", label, None, ref=self._ref(module)["__ref__"], tensors=tensors)
        self._valid(label, protocol.name_list, loaded)

    @staticmethod
    def _loading(module: Obj) -> str:
        return f"loading weights into {module.cls}"

    def _loaded(self, target: Obj, load_first: dict[str, torch.Tensor] | None, value: Any) -> Any:
        """The answer of a probe that loaded `load_first` before it called; a load that raised is reported as
        load_state reports it, never as the call's own error."""
        if load_first is not None and isinstance(value, dict) and set(value) == {"__unloaded__"}:
            raise StudentError(self._loading(target), clean_error(value["__unloaded__"]))
        return value

    def state(self, module: Obj, names: list[str] | None = None) -> dict[str, torch.Tensor]:
        label = f"reading the tensors of {module.name}"
        value = self._probe("state", label, None, ref=self._ref(module)["__ref__"], names=names)
        return self._valid(label, protocol.tensors, value)

    def submodule(self, module: Obj, name: str) -> Obj:
        """The module that `module` holds under `name`, as its description names it (`heads.0`, also for a
        head kept in a plain list: grader.sandbox.inventory.held_modules)."""
        label = f"{module.name}.{name}"
        return self._obj(self._probe("submodule", label, None, ref=self._ref(module)["__ref__"], name=name), label)

    def describe(self, obj: Obj) -> dict[str, Any]:
        """The object's description now; {} for one the child does not describe."""
        label = f"describing {obj.name}"
        value = self._probe("describe", label, None, ref=self._ref(obj)["__ref__"])
        return {} if value is None else self._valid(label, protocol.description, value)

    def left_behind(self, module: Obj, x: torch.Tensor, move: bool = True) -> tuple[list[dict[str, Any]], str]:
        """(the tensors the forward on x mixed with the module's after .to(device) left them on the CPU,
        and the type of error that stopped the forward on the stand-in device, or ""): a claim for the
        device check (grader.sandbox.placement). With move the module is moved for good: pass a fresh one."""
        label = f"{module.cls}.to(device).forward (input {tuple(x.shape)})"
        finding = protocol.record({"kind": protocol.text, "name": protocol.text, "shape": protocol.shape,
                                   "op": protocol.text})
        value = self._probe("left_behind", label, None, f"{module.cls}.__call__", ref=self._ref(module)["__ref__"],
                            x=x, move=move)
        report = self._valid(label, protocol.record({"found": protocol.each(finding), "error": protocol.text}),
                             value, "left_behind")
        return report["found"], report["error"]


def _loading_first(load_first: dict[str, torch.Tensor] | None) -> dict[str, Any]:
    """A probe's argument for tensors to load before its call; none where there is nothing to load."""
    return {} if load_first is None else {"load_first": load_first}


def _floating(out: Any, label: str) -> torch.Tensor:
    """A forward's output: one floating tensor, the first of an (output, attention weights) style return."""
    if isinstance(out, list) and out and isinstance(out[0], torch.Tensor):
        out = out[0]
    if not isinstance(out, torch.Tensor) or not out.is_floating_point():
        raise BadReturn(label, describe_value(out))
    return out
