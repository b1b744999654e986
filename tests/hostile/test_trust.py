"""Hostile corpus, round 3: no point on the submission's own word.

The child process runs the submission, so whatever it computes about itself (its inventory, where its
tensors live, which devices it has) is the submission's claim and may be rewritten by the code it hosts.

* A mask kept as a plain attribute fails `registered` although the child's inventory and its stand-in
  device run are rewritten to say every tensor is registered: the judge loads a reordered copy of the
  module's own buffers into a fresh instance, and the output does not follow.
* A child that says it has CUDA, and stays on the CPU when asked to move, gets no GPU points on a machine
  without an accelerator: only the judge decides whether one exists.
* A budget spent before the GPU comparison never charges it where no GPU exists.
"""
from __future__ import annotations

import pytest

from conftest import check
from helpers import WITHOUT_ACCELERATOR

from .test_attacks import Hostile, after, hostile, no_grader_errors  # noqa: F401


@pytest.fixture
def no_override(monkeypatch: pytest.MonkeyPatch) -> None:
    """This machine's own answer: no GRADER_ACCELERATOR naming a device for the comparison."""
    monkeypatch.delenv("GRADER_ACCELERATOR", raising=False)


def test_a_forged_inventory_and_placement_do_not_pass_registered(hostile: Hostile) -> None:
    """The child reports no plain tensor and nothing left behind; the judge's own measurement shows the mask
    is not in the module's buffers, and the check fails with nothing for it."""
    run = hostile.grade(after(hostile.attack("device_mask_forged_report")), "device")
    no_grader_errors(run)
    result = check(run, "device", "registered")
    assert (result.status, result.score) == ("failed", 0), (result.message_key, result.message)
    assert result.message_key == "device.registered.kept", result.message
    assert result.message.startswith("CausalAttention.forward"), result.message
    assert "register_buffer" in result.message


@WITHOUT_ACCELERATOR
def test_a_child_that_claims_a_gpu_gets_no_gpu_points(hostile: Hostile, no_override: None) -> None:
    """cuda: true from the child, and a .to("cuda") that stays on the CPU: the judge has no accelerator, so the
    comparison is skipped and worth 0 of 0, as for an honest submission (38, not 40)."""
    run = hostile.grade(after(hostile.attack("device_claims_gpu")), "device")
    no_grader_errors(run)
    result = check(run, "device", "accelerator")
    assert (result.status, result.message_key) == ("skipped", "device.accelerator.none"), result.message
    assert result.score == result.max_score == 0


@WITHOUT_ACCELERATOR
def test_a_spent_budget_never_charges_the_gpu_comparison(hostile: Hostile, no_override: None) -> None:
    """The budget runs out during `registered` (a deadline there); the GPU comparison after it is skipped, not
    a second deadline: the maximum stays what a machine without an accelerator grades out of."""
    run = hostile.grade(after(hostile.attack("device_slow_forward")), "device", timeout=4)
    registered, accelerator = check(run, "device", "registered"), check(run, "device", "accelerator")
    assert (registered.status, registered.message_key) == ("failed", "check.deadline"), registered.message
    assert (accelerator.status, accelerator.message_key) == ("skipped", "device.accelerator.none"), accelerator.message
    assert accelerator.score == accelerator.max_score == 0
    assert next(e for e in run.exercises if e.id == "device").max_score == registered.max_score
