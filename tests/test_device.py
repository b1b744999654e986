"""Device placement: `registered` catches a plain-tensor mask on any machine; `accelerator` is skipped
(0 of 0 points) without a GPU, and GRADER_ACCELERATOR=cpu makes it run anywhere, so its pass and
its failure (a module whose .to() changes what it computes) are tested without a GPU."""
from __future__ import annotations

import pytest
import torch

from conftest import CORPUS, SOLUTION, Grade, check

# `.to(device)` goes through `_apply`; the reference with SelfAttention_v2 nudging a weight there, so
# the moved copy computes something else.
PERTURBED = SOLUTION.read_text(encoding="utf-8") + '''

def _nudging_apply(self, fn, *args, **kwargs):
    module = nn.Module._apply(self, fn, *args, **kwargs)
    with torch.no_grad():
        self.W_value.weight.add_(0.5)
    return module


SelfAttention_v2._apply = _nudging_apply
'''


def test_reference_registered_passes(grade_file: Grade) -> None:
    c = check(grade_file(SOLUTION, "device"), "device", "registered")
    assert (c.status, c.message_key) == ("passed", "device.registered.ok")


def test_plain_tensor_mask_fails_registered(grade_file: Grade) -> None:
    c = check(grade_file(CORPUS / "plain_tensor_mask.py", "device"), "device", "registered")
    assert (c.status, c.message_key) == ("failed", "device.registered.plain")
    assert "CausalAttention.mask is a plain tensor attribute" in c.message
    assert "self.register_buffer('mask', ...)" in c.message


@pytest.mark.skipif(torch.cuda.is_available(), reason="a GPU is present: the comparison runs")
def test_accelerator_skipped_without_gpu(grade_file: Grade, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GRADER_ACCELERATOR", raising=False)
    c = check(grade_file(SOLUTION, "device"), "device", "accelerator")
    assert (c.status, c.message_key) == ("skipped", "device.accelerator.none")
    assert c.score == c.max_score == 0


def test_accelerator_override_reference_passes(grade_file: Grade, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRADER_ACCELERATOR", "cpu")
    c = check(grade_file(SOLUTION, "device"), "device", "accelerator")
    assert (c.status, c.message_key) == ("passed", "device.accelerator.ok")
    assert c.max_score > 0 and "On cpu" in c.message


def test_accelerator_override_catches_perturbing_to(grade_file: Grade, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRADER_ACCELERATOR", "cpu")
    c = check(grade_file(PERTURBED, "device"), "device", "accelerator")
    assert (c.status, c.message_key) == ("failed", "device.accelerator.mismatch")
    assert "SelfAttention_v2 on cpu differs from the CPU" in c.message
