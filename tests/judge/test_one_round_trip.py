"""Probes asked together, in one round trip (grader.judge.asking): a load and the call after it (`load_first`), where
the call sees the loaded weights and a load that raises is reported as load_state reports it, never as the call's
own error; and one module on several inputs (`forward_each`), in order, stopping at the first that raises, with
that input's label, after a load of its own where one is given. A reply that does not fit what was asked is the
submission's protocol failure."""
from __future__ import annotations

from pathlib import Path

import pytest
import torch

from grader.judge.client import SandboxClient
from grader.judge.probes import ProtocolViolation, StudentError
from grader.load.submission import load

MODULE = """import torch
from torch import nn


class Scale(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(3))
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        if x.shape[-1] != 3:
            raise ValueError("three features only")
        return x * self.weight + self.calls
"""

# A submission that rewrites the child's own answer to forward_each (code it hosts can): outputs for none of the
# inputs and no error.
FORGED = """
import gc
from grader.sandbox import child as _child
for _server in [o for o in gc.get_objects() if isinstance(o, _child.Child)]:
    _server.ops["forward_each"] = lambda ref, inputs: {"outputs": [], "raised": None}
"""


@pytest.fixture
def scale(launcher, tmp_path: Path, request: pytest.FixtureRequest):
    path = tmp_path / "answer.py"
    path.write_text(MODULE + getattr(request, "param", ""), encoding="utf-8")
    sandbox = SandboxClient(load(path), launcher, seed=0)
    try:
        cls = next(obj for obj in sandbox.inventory() if obj.cls == "Scale")
        yield sandbox, sandbox.construct(cls)
    finally:
        sandbox.close()


def test_the_call_sees_what_was_loaded_first(scale) -> None:
    sandbox, module = scale
    out = sandbox.forward(module, torch.ones(2, 3), load_first={"weight": torch.tensor([1.0, 2.0, 3.0])})
    assert out.tolist() == [[2.0, 3.0, 4.0]] * 2
    assert sandbox.forward(module, torch.ones(1, 3)).tolist() == [[3.0, 4.0, 5.0]]  # it stays loaded


@pytest.mark.parametrize(("tensors", "error"), [({"bias": torch.zeros(3)}, "AttributeError"),
                                                ({"weight": torch.zeros(4)}, "RuntimeError")],
                         ids=["unknown-name", "wrong-shape"])
def test_a_load_that_raises_is_the_loads_failure(scale, tensors: dict[str, torch.Tensor], error: str) -> None:
    sandbox, module = scale
    with pytest.raises(StudentError) as raised:
        sandbox.forward(module, torch.ones(2, 3), load_first=tensors)
    assert raised.value.label == "loading weights into Scale" and raised.value.detail["type"] == error
    with pytest.raises(StudentError) as separate:  # as the probe of its own reports it
        sandbox.load_state(module, tensors)
    assert (separate.value.label, separate.value.detail["type"]) == (raised.value.label, error)


def test_a_call_that_raises_after_a_load_is_the_calls_failure(scale) -> None:
    sandbox, module = scale
    with pytest.raises(StudentError) as raised:
        sandbox.forward(module, torch.ones(2, 4), load_first={"weight": torch.ones(3)})
    assert raised.value.label == "Scale.forward (input (2, 4))"
    assert raised.value.detail["type"] == "ValueError" and "three features" in raised.value.detail["message"]


def test_each_input_in_turn(scale) -> None:
    sandbox, module = scale
    outputs, raised = sandbox.forward_each(module, [torch.zeros(1, 3), torch.zeros(2, 3), torch.zeros(1, 3)])
    assert raised is None and [out.tolist() for out in outputs] == [[[1.0] * 3], [[2.0] * 3] * 2, [[3.0] * 3]]


def test_the_first_input_that_raises_stops_the_rest(scale) -> None:
    sandbox, module = scale
    outputs, raised = sandbox.forward_each(module, [torch.zeros(1, 3), torch.zeros(1, 4), torch.zeros(1, 3)])
    assert [out.tolist() for out in outputs] == [[[1.0] * 3]]
    assert raised is not None and raised.label == "Scale.forward (input (1, 4))"
    assert raised.detail["type"] == "ValueError"
    assert sandbox.forward(module, torch.zeros(1, 3)).tolist() == [[3.0] * 3]  # the third input never ran


def test_each_input_sees_what_was_loaded_first(scale) -> None:
    sandbox, module = scale
    outputs, raised = sandbox.forward_each(module, [torch.ones(1, 3), torch.ones(1, 3)],
                                           load_first={"weight": torch.tensor([1.0, 2.0, 3.0])})
    assert raised is None and [out.tolist() for out in outputs] == [[[2.0, 3.0, 4.0]], [[3.0, 4.0, 5.0]]]


def test_a_load_before_the_inputs_that_raises_is_the_loads_failure(scale) -> None:
    sandbox, module = scale
    with pytest.raises(StudentError) as raised:
        sandbox.forward_each(module, [torch.ones(1, 3)], load_first={"weight": torch.zeros(4)})
    assert raised.value.label == "loading weights into Scale" and raised.value.detail["type"] == "RuntimeError"
    assert sandbox.forward(module, torch.zeros(1, 3)).tolist() == [[1.0] * 3]  # no input ran


@pytest.mark.parametrize("scale", [FORGED], indirect=True)
def test_a_reply_that_does_not_fit_the_inputs_is_a_protocol_failure(scale) -> None:
    sandbox, module = scale
    with pytest.raises(ProtocolViolation) as raised:
        sandbox.forward_each(module, [torch.zeros(1, 3), torch.zeros(1, 3)])
    assert "0 outputs of 2 inputs" in raised.value.detail
