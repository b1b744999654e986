"""Exercise 3.3 (a GPT-2-small-sized MultiHeadAttention): parameters, heads and context pass the
reference and fail each named wrong answer with a message that names the mistake. The parameter
count is only the child's claim, so a module that lies about it fails `parameters` too (its count is
confirmed only with the judge's weights at work) and `heads`, which runs it with the judge's weights."""
from __future__ import annotations

import pytest

from conftest import SOLUTION, Grade, check, mutant, mutations, statuses

# Claims the reference's parameter names and shapes (2,360,064 in all) but owns none of them as
# real submodules, and its forward is not attention.
LIAR = '''
import torch
import torch.nn as nn


class MultiHeadAttention(nn.Module):
    def __init__(self):
        super().__init__()
        shapes = {"W_query.weight": (768, 768), "W_key.weight": (768, 768), "W_value.weight": (768, 768),
                  "out_proj.weight": (768, 768), "out_proj.bias": (768,)}
        self.claimed = {n: nn.Parameter(torch.randn(*s) * 0.02) for n, s in shapes.items()}

    def named_parameters(self, *args, **kwargs):
        yield from self.claimed.items()

    def get_parameter(self, target):
        return self.claimed[target]

    def forward(self, x):
        return x @ self.claimed["out_proj.weight"].T


def build_gpt2_small_attention(dropout=0.0):
    return MultiHeadAttention()
'''


def test_reference_passes(grade_file: Grade) -> None:
    run = grade_file(SOLUTION, "3.3")
    assert statuses(run, "3.3") == {"parameters": "passed", "heads": "passed", "context": "passed"}


@pytest.mark.parametrize("bug, check_id, key, named", [
    ("qkv_bias", "parameters", "3.3.count.qkv_bias", "the biases of qkv_bias=True"),
    ("no_out_proj", "parameters", "3.3.count.no_out_proj", "the output projection out_proj"),
    ("mask_parameter", "parameters", "3.3.count.mask_parameter", "self.register_buffer('mask', ...)"),
    ("wrong_context", "context", "3.3.context.wrong", "mask is 768×768"),
    ("wrong_heads", "heads", "3.3.heads.wrong_heads", "behaves like 6 heads of 128"),
])
def test_gpt2_bug_is_named(grade_file: Grade, bug: str, check_id: str, key: str, named: str) -> None:
    run = grade_file(mutant(mutations.GPT2_BUGS, bug), "3.3")
    c = check(run, "3.3", check_id)
    assert (c.status, c.message_key) == ("failed", key)
    assert named in c.message


@pytest.mark.parametrize("bug", ["wrong_context", "wrong_heads"])
def test_count_cannot_see_context_or_heads(grade_file: Grade, bug: str) -> None:
    run = grade_file(mutant(mutations.GPT2_BUGS, bug), "3.3")
    assert check(run, "3.3", "parameters").message_key == "3.3.count.ok"


def test_lying_about_parameters_cannot_pass_heads(grade_file: Grade) -> None:
    run = grade_file(LIAR, "3.3")
    count = check(run, "3.3", "parameters")  # the claim alone looks right: the judge's weights show it is not
    assert (count.status, count.message_key) == ("failed", "3.3.count.unconfirmed"), count.message
    heads = check(run, "3.3", "heads")
    assert (heads.status, heads.message_key) == ("failed", "3.3.heads.mismatch")
    assert "differs from a 12-head reference" in heads.message


def _with_mask(register: str, use: str) -> str:
    """The reference with its mask registered and used differently."""
    source = SOLUTION.read_text(encoding="utf-8")
    source = mutations.apply(source, 'self.register_buffer(\n            "mask", torch.triu(torch.ones('
                             'context_length, context_length), diagonal=1)\n        )', register)
    return mutations.apply(source, "mask_bool = self.mask.bool()[:num_tokens, :num_tokens]", use)


@pytest.mark.parametrize("register, use, status, key, named", [
    # GPT-2's own layout: a (1, 1, n, n) buffer named "bias".
    ('self.register_buffer("bias", torch.triu(torch.ones(1, 1, context_length, context_length), diagonal=1))',
     "mask_bool = self.bias.bool()[0, 0, :num_tokens, :num_tokens]",
     "passed", "3.3.context.mask_ok", "causal mask (bias) covers 1024 tokens"),
    ('self.register_buffer("tri", torch.triu(torch.ones(512, 512), diagonal=1))',
     "mask_bool = self.tri.bool()[:num_tokens, :num_tokens]",
     "failed", "3.3.context.wrong", "mask is 512×512"),
])
def test_context_is_read_from_a_mask_under_any_name(grade_file: Grade, register: str, use: str, status: str,
                                                    key: str, named: str) -> None:
    c = check(grade_file(_with_mask(register, use), "3.3"), "3.3", "context")
    assert (c.status, c.message_key) == (status, key)
    assert named in c.message


def test_a_mask_built_in_forward_is_run_on_1024_tokens(grade_file: Grade) -> None:
    source = _with_mask("self.context_length = context_length",
                        "mask_bool = torch.triu(torch.ones(num_tokens, num_tokens, dtype=torch.bool), 1)")
    run = grade_file(source, "3.3")
    c = check(run, "3.3", "context")
    assert (c.status, c.message_key) == ("passed", "3.3.context.ok")
    assert check(run, "3.3", "heads").status == "passed"


def test_a_forward_that_breaks_on_1024_tokens_fails_context(grade_file: Grade) -> None:
    source = _with_mask("self.context_length = context_length",
                        "mask_bool = torch.triu(torch.ones(num_tokens, num_tokens, dtype=torch.bool), 1)\n"
                        "        assert num_tokens <= 512, 'too long'")
    c = check(grade_file(source, "3.3"), "3.3", "context")
    assert (c.status, c.message_key) == ("failed", "check.raised")
    assert "too long" in c.message


def test_the_builder_runs_once_for_all_three_checks(grade_file: Grade) -> None:
    source = mutations.apply(SOLUTION.read_text(encoding="utf-8"), "def build_gpt2_small_attention(",
                             "def build_gpt2_small_attention(*args, **kwargs):\n    print('built')\n"
                             "    return _build(*args, **kwargs)\n\n\ndef _build(")
    run = grade_file(source, "3.3")
    assert statuses(run, "3.3") == {"parameters": "passed", "heads": "passed", "context": "passed"}
    assert run.output_tail.count("built") == 1
