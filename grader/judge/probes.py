"""What a probe of the child gives the judge: a handle on an object in the child, or why there is no answer.

Everything here reads what the child sent without trusting it: a value's kind is told from what the
judge decoded, never from the child's own fields, and an error report keeps only short strings and
small numbers.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import torch


class ProbeFailure(Exception):
    """A probe ended without an answer; `label` names what the judge was asking the submission to do."""

    def __init__(self, label: str, detail: Any = None) -> None:
        super().__init__(label)
        self.label = label
        self.detail = detail


class StudentError(ProbeFailure):
    """The submission's code raised; `detail` is the cleaned error dict (type, message, line, frames)."""


class NotUnderstood(StudentError):
    """A constructor that refused the book's call (a TypeError) and takes parameters the judge did not all
    understand by name (`unknown`), so it was called as the book calls its class, positionally."""

    def __init__(self, label: str, detail: Any, unknown: tuple[str, ...]) -> None:
        super().__init__(label, detail)
        self.unknown = unknown


class ProbeTimeout(ProbeFailure):
    """The probe passed its own deadline (`detail`: seconds)."""


class BudgetExhausted(ProbeFailure):
    """The whole submission's time budget is spent (`detail`: seconds)."""


class ChildCrashed(ProbeFailure):
    """The child process ended (`detail`: its exit status dict)."""


class ProtocolViolation(ProbeFailure):
    """The child sent something malformed or oversized and was killed (`detail`: why)."""


class AnswerTooLarge(ProtocolViolation):
    """The child's answer was larger than the judge reads for that probe, and was refused unread (`detail`:
    its size and the cap, in MiB). The child is stopped as for a violation, but an honest submission can
    get here (a lecture's data of a text past the caps), so its message says too large, never an attack."""


class BadReturn(ProbeFailure):
    """The submission answered with the wrong kind of value (`detail`: what it returned)."""


@dataclass
class Obj:
    """A handle on an object that lives in the child."""

    ref: int
    info: dict[str, Any]
    generation: int
    bindings: list[dict[str, Any]] = field(default_factory=list)

    @property
    def cls(self) -> str:
        return str(self.info.get("class", "?"))

    @property
    def kind(self) -> str:
        return str(self.info.get("kind", "?"))

    @property
    def name(self) -> str:
        """The last name the submission bound it to (what a student would call it)."""
        return str(self.bindings[-1]["name"]) if self.bindings else self.cls


def describe_value(value: Any) -> str:
    """What a value the child returned is, for a message: its kind, read without trusting its fields."""
    if isinstance(value, torch.Tensor):
        return f"tensor{tuple(value.shape)} of {value.dtype}"
    if isinstance(value, dict) and isinstance(value.get("__object__"), str):
        return value["__object__"][:100]
    if isinstance(value, dict) and "__ref__" in value:
        info = value.get("info")
        cls = info.get("class") if isinstance(info, dict) else None
        return cls[:100] if isinstance(cls, str) else "module"
    if isinstance(value, list):
        return f"a sequence of {len(value)}"
    return type(value).__name__ if value is not None else "None"


def show_args(args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    parts = [_show(a) for a in args] + [f"{k}={_show(v)}" for k, v in kwargs.items()]
    return ", ".join(parts)


def _show(value: Any) -> str:
    if isinstance(value, torch.Tensor):
        return f"<{tuple(value.shape)}>"
    if isinstance(value, Obj):
        return value.name
    return repr(value)


def clean_error(raw: Any) -> dict[str, Any]:
    """The child's error report is untrusted: keep only short strings and small ints."""
    if not isinstance(raw, dict):
        return {"type": "Error", "message": "", "frames": []}

    def text(v: Any, n: int = 2000) -> str:
        return v[:n] if isinstance(v, str) else ""

    def number(v: Any) -> int | None:
        return v if type(v) is int and 0 <= v < 10**7 else None

    listed = raw.get("frames")
    frames = [
        {"file": text(f.get("file"), 200), "line": number(f.get("line")),
         "function": text(f.get("function"), 200), "source": text(f.get("source"), 300)}
        for f in (listed if isinstance(listed, list) else [])[:8]
        if isinstance(f, dict)
    ]
    cleaned: dict[str, Any] = {"type": text(raw.get("type"), 100) or "Error",
                               "message": text(raw.get("message")), "frames": frames}
    if number(raw.get("line")) is not None:
        cleaned["line"] = raw["line"]
    if raw.get("source"):
        cleaned["source"] = text(raw.get("source"), 300)
    return cleaned
