"""Device placement: `registered` catches a plain-tensor mask on any machine (the hostile corpus hides masks
elsewhere) and passes every correct style, whatever moves its tensors; `accelerator` is skipped
(0 of 0 points) without a GPU, and GRADER_ACCELERATOR=cpu makes it run anywhere, so its pass and
its failure (a module whose .to() changes what it computes) are tested without a GPU."""
from __future__ import annotations

from pathlib import Path

import pytest
import torch

import mutations
from conftest import CORPUS, SOLUTION, Grade, check
from grader.exercises.device import reordered
from helpers import attack, hardware_accelerator

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


MASK_LINE = "        mask_bool = self.mask.bool()[:num_tokens, :num_tokens]\n"
FILL_LINE = "        attn_scores = attn_scores.masked_fill(mask_bool, -torch.inf)\n"
VALUES_INIT = "        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)\n"
# Right on a GPU, each in its own way: edits of the reference (every class that has the line).
MOVING = {
    "made_with_device": [(MASK_LINE, "        mask_bool = torch.triu(torch.ones(num_tokens, num_tokens, "
                                     "device=x.device), diagonal=1).bool()\n")],
    "moved_to_device": [(MASK_LINE, "        mask_bool = torch.triu(torch.ones(num_tokens, num_tokens), "
                                    "diagonal=1).bool().to(x.device)\n")],
    # CUDA reads a 0-dim CPU tensor as a number
    "cpu_scalar_tensor": [(FILL_LINE, "        attn_scores = torch.where(mask_bool, torch.tensor(-torch.inf), "
                                      "attn_scores)\n")],
    # data-dependent ops, which the meta device cannot run
    "item_and_nonzero": [(MASK_LINE, MASK_LINE + "        assert mask_bool.nonzero().shape[0] == "
                                                 "int(mask_bool.sum().item())\n")],
    # .tolist() refuses the stand-in device's tensors: the check falls back to scanning a CPU forward
    "tolist": [(MASK_LINE, MASK_LINE + "        assert len(x[0].tolist()) == num_tokens\n")],
    # .to() moves a parameter in place, so a list holding it sees it moved
    "parameter_in_a_list": [(VALUES_INIT, VALUES_INIT + "        self.value_weights = [self.W_value.weight]\n"),
                            ("        values = self.W_value(x)\n", "        values = x @ self.value_weights[0].T\n")],
}


@pytest.mark.parametrize("path", [*sorted(CORPUS.glob("mask_ok_*.py")), CORPUS / "book_style.py",
                                  CORPUS / "book_style.ipynb"], ids=lambda p: p.name)
def test_correct_mask_styles_pass_registered(grade_file: Grade, path: Path) -> None:
    c = check(grade_file(path, "device"), "device", "registered")
    assert (c.status, c.message_key) == ("passed", "device.registered.ok"), c.message


@pytest.mark.parametrize("style", sorted(MOVING))
def test_tensors_that_follow_the_input_pass_registered(grade_file: Grade, style: str) -> None:
    source = SOLUTION.read_text(encoding="utf-8")
    for old, new in MOVING[style]:
        source = mutations.apply(source, old, new)
    c = check(grade_file(source, "device"), "device", "registered")
    assert (c.status, c.message_key) == ("passed", "device.registered.ok"), c.message


def test_plain_tensor_mask_fails_registered(grade_file: Grade) -> None:
    c = check(grade_file(CORPUS / "plain_tensor_mask.py", "device"), "device", "registered")
    assert (c.status, c.message_key) == ("failed", "device.registered.plain")
    assert "CausalAttention.mask is a plain tensor attribute" in c.message
    assert "self.register_buffer('mask', ...)" in c.message


def test_accelerator_compared_on_this_machines_device(grade_file: Grade, monkeypatch: pytest.MonkeyPatch) -> None:
    """On CUDA or MPS the reference gives the CPU's outputs there (2 points); without one the comparison
    is skipped and worth 0 points."""
    monkeypatch.delenv("GRADER_ACCELERATOR", raising=False)
    c = check(grade_file(SOLUTION, "device"), "device", "accelerator")
    device = hardware_accelerator()
    if device is None:
        assert (c.status, c.message_key) == ("skipped", "device.accelerator.none")
        assert c.score == c.max_score == 0
    else:
        assert (c.status, c.message_key) == ("passed", "device.accelerator.ok"), c.message
        assert c.score == c.max_score == 2 and f"On {device}" in c.message


def test_accelerator_override_reference_passes(grade_file: Grade, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRADER_ACCELERATOR", "cpu")
    c = check(grade_file(SOLUTION, "device"), "device", "accelerator")
    assert (c.status, c.message_key) == ("passed", "device.accelerator.ok")
    assert c.max_score > 0 and "On cpu" in c.message


def test_accelerator_comparison_fails_a_class_that_computes_nothing(grade_file: Grade,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Zeros of the right shape are the same on every device: the comparison gives them no points."""
    monkeypatch.setenv("GRADER_ACCELERATOR", "cpu")
    c = check(grade_file(attack("zero_work"), "device"), "device", "accelerator")
    assert (c.status, c.message_key, c.score) == ("failed", "check.constant", 0), c.message


def test_accelerator_override_catches_perturbing_to(grade_file: Grade, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRADER_ACCELERATOR", "cpu")
    c = check(grade_file(PERTURBED, "device"), "device", "accelerator")
    assert (c.status, c.message_key) == ("failed", "device.accelerator.mismatch")
    assert "SelfAttention_v2 on cpu differs from the CPU" in c.message


# Mask bugs whose output is NaN on every device: a fully masked first row (the diagonal masked too), and
# MultiHeadAttention's softmax over its heads, where a masked position is -inf in every head.
NAN_ON_EVERY_DEVICE = {
    "diagonal_zero": ("diagonal=1)", "diagonal=0)"),
    "softmax_over_heads": (mutations.MHA_SOFTMAX, mutations.MHA_SOFTMAX.replace("dim=-1)", "dim=1)")),
}


@pytest.mark.parametrize("bug", sorted(NAN_ON_EVERY_DEVICE))
def test_nan_where_the_cpu_has_it_is_agreement(grade_file: Grade, monkeypatch: pytest.MonkeyPatch, bug: str) -> None:
    """NaN at the same places on both devices is the mask exercise's bug, not a difference between devices:
    the comparison passes, and the mask exercise charges it."""
    monkeypatch.setenv("GRADER_ACCELERATOR", "cpu")
    run = grade_file(mutations.apply(SOLUTION.read_text(encoding="utf-8"), *NAN_ON_EVERY_DEVICE[bug]), "device,mask")
    c = check(run, "device", "accelerator")
    assert (c.status, c.message_key, c.score) == ("passed", "device.accelerator.ok", 2), c.message
    assert "give the same outputs as on the CPU" in c.messages["en"] and "的输出与 CPU 相同" in c.messages["zh"]
    mask = next(e for e in run.exercises if e.id == "mask")
    assert mask.score < mask.max_score


def test_nan_where_the_cpu_has_none_is_a_difference(grade_file: Grade, monkeypatch: pytest.MonkeyPatch) -> None:
    """The other way round it is not: a .to() that poisons a weight with NaN differs from the CPU."""
    monkeypatch.setenv("GRADER_ACCELERATOR", "cpu")
    c = check(grade_file(PERTURBED.replace("add_(0.5)", "fill_(float('nan'))"), "device"), "device", "accelerator")
    assert (c.status, c.message_key, c.score) == ("failed", "device.accelerator.mismatch", 0), c.message
    assert "SelfAttention_v2 on cpu differs from the CPU (largest difference nan)" in c.messages["en"]
    assert "SelfAttention_v2 在 cpu 上与 CPU 的输出不同（最大差值 nan）" in c.messages["zh"]


CONFIGURED = (CORPUS / "config_constructor.py").read_text(encoding="utf-8")


def test_a_class_built_otherwise_is_a_note_and_the_others_are_checked(grade_file: Grade) -> None:
    """MultiHeadAttention(cfg) cannot be built with the book's chapter 3 arguments: that is a note on a
    passing check, and CausalAttention is still judged, to a failure when its mask is a plain attribute."""
    c = check(grade_file(CONFIGURED, "device"), "device", "registered")
    assert (c.status, c.message_key) == ("passed", "device.registered.ok"), c.message
    assert "MultiHeadAttention could not be built with the book's arguments (TypeError" in c.message
    assert "MultiHeadAttention 无法用书中的参数构建" in c.messages["zh"]
    plain = mutations.apply(CONFIGURED, 'self.register_buffer("mask", torch.triu(',
                            "self.mask = (torch.triu(")
    c = check(grade_file(plain, "device"), "device", "registered")
    assert (c.status, c.message_key) == ("failed", "device.registered.plain")
    assert "CausalAttention.mask is a plain tensor attribute" in c.message


def test_the_comparison_notes_a_class_built_otherwise_too(grade_file: Grade, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRADER_ACCELERATOR", "cpu")
    c = check(grade_file(CONFIGURED, "device"), "device", "accelerator")
    assert (c.status, c.message_key) == ("passed", "device.accelerator.ok"), c.message
    assert "On cpu, CausalAttention give" in c.message and "MultiHeadAttention could not be built" in c.message


def test_no_class_that_builds_fails_with_the_constructors_error(grade_file: Grade) -> None:
    only_mha = CONFIGURED.split("class MultiHeadAttention")[0].replace("class CausalAttention(nn.Module):\n    def __init__(self, d_in",
                                                                       "class CausalAttention(nn.Module):\n    def __init__(self, cfg, d_in")
    c = check(grade_file(only_mha, "device"), "device", "registered")
    assert (c.status, c.message_key) == ("failed", "check.not_understood"), c.message  # the constructor's error,
    assert "TypeError" in c.message and "did not understand cfg." in c.message  # and the name not understood


@pytest.mark.parametrize("mask", [
    torch.triu(torch.ones(8, 8), diagonal=1),  # the book's
    torch.tril(torch.ones(8, 8, dtype=torch.bool)),  # the positions kept, as bool
    torch.triu(torch.full((8, 8), -torch.inf), diagonal=1),  # added to the scores
    torch.triu(torch.ones(1, 1, 8, 8), diagonal=1),  # with room for batch and heads
], ids=["triu", "bool_tril", "additive", "four_dims"])
def test_a_mask_is_reordered_with_the_tokens_whatever_its_encoding(mask: torch.Tensor) -> None:
    """The judge reorders a mask it cannot read: entry (i, j) follows tokens i and j, so each token of a
    6-token input still sees the tokens it saw, and what lies past the input stays where it was."""
    order = torch.tensor([2, 0, 5, 1, 4, 3])
    got = reordered(mask, order)
    assert torch.equal(got[..., :6, :6], mask[..., order, :][..., :, order]) and not torch.equal(got, mask)
    assert torch.equal(got[..., 6:, 6:], mask[..., 6:, 6:])


@pytest.mark.parametrize("tensor", [torch.randn(8, 8), torch.randn(8, 5), torch.ones(4, 4), torch.ones(8)],
                         ids=["square_weight", "weight", "shorter_than_the_input", "vector"])
def test_no_other_tensor_is_reordered(tensor: torch.Tensor) -> None:
    assert reordered(tensor, torch.tensor([1, 0, 5, 4, 3, 2])) is tensor


BOUNDED_SDPA = (CORPUS / "mask_ok_sdpa_bounded.py").read_text(encoding="utf-8")


def test_a_causal_kernel_with_no_mask_that_refuses_long_inputs_keeps_its_points(grade_file: Grade,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """scaled_dot_product_attention(..., is_causal=True) keeps no mask, and a forward that refuses more tokens
    than its context looks, on the CPU, like one whose mask is kept outside the module: the class's own text
    says it makes its mask for each input, and a GPU run would pass it."""
    monkeypatch.delenv("GRADER_ACCELERATOR", raising=False)
    c = check(grade_file(BOUNDED_SDPA, "device"), "device", "registered")
    assert (c.status, c.message_key, c.score) == ("passed", "device.registered.ok", 4), c.message
    assert c.messages["en"].startswith("Every tensor of CausalAttention, MultiHeadAttention is a parameter or buffer")
    assert c.messages["zh"].startswith("CausalAttention, MultiHeadAttention 的所有张量都是参数或缓冲区")


def test_a_mask_kept_outside_a_bounded_forward_still_fails(grade_file: Grade) -> None:
    """The same forward with its mask in a global, and the child's own reports silenced: its text makes no
    mask, so the judge's measurement stands, and says where to keep it."""
    source = BOUNDED_SDPA.replace("is_causal=True)", "attn_mask=_CAUSAL[:x.shape[1], :x.shape[1]])")
    source += '''
_CAUSAL = torch.tril(torch.ones(1024, 1024, dtype=torch.bool))

import grader.sandbox.placement as _placement
_placement.moved = _placement.scan = lambda module, x: {"found": [], "error": ""}
'''
    c = check(grade_file(source, "device"), "device", "registered")
    assert (c.status, c.message_key, c.score) == ("failed", "device.registered.kept", 0), c.message
    assert "keeps its mask where .to(device) does not look" in c.messages["en"]
    assert "把掩码放在了 .to(device) 不会查看的地方" in c.messages["zh"]
