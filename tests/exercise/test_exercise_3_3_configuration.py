"""Exercise 3.3, round 5 (issue 49, point 5): 3.3 grades the configuration, never the attention inside it.

A GPT-2-sized module whose attention is none the judge models (heads that share a mask letting the future
through, keys and values computed with the query projection) has the right configuration: the judge loads
weights of its own that show the count's weights at work and 12 heads of 64 on 12 tokens, and the context on
1024 tokens, whatever each head computes (exercises/_split.py). No point rests on the child's word: the
weights must be seen at work where the judge put them, and another split of 768 dims, or a context that does
not reach back, still fails. The first tests run the split weights through small models of such modules, in
this process; the last grade learners' files (tests/corpus/learner_*.py) in the sandbox.
"""
from __future__ import annotations

from typing import Any

import pytest
import torch
import torch.nn.functional as F

from conftest import CORPUS, Grade, check
from grader.exercises._attention import random_roles
from grader.exercises._split import Shown, split_weights

PARAMS = [{"name": n, "shape": s} for n, s in [
    ("W_query.weight", [768, 768]), ("W_key.weight", [768, 768]), ("W_value.weight", [768, 768]),
    ("out_proj.weight", [768, 768]), ("out_proj.bias", [768])]]
LEAK = CORPUS / "learner_gpt2_mask_lets_future_through.py"
KEYS_FROM_QUERY = CORPUS / "learner_gpt2_keys_from_query.py"


def attention(state: dict[str, torch.Tensor], x: torch.Tensor, heads: int = 12, inside: str = "book",
              weights: bool = True, projection: bool = True) -> torch.Tensor:
    """A multi-head module as learners write it, with `heads` heads and one of these insides: the book's, a
    mask filled with -1e-9 (the future let through), keys and values from W_query, scores not scaled or scaled
    by the token count, a window of 8 tokens, no mixing of tokens at all. `weights`/`projection` False: a
    forward that ignores the query/key/value weights (uses x) or never applies out_proj."""
    if weights:
        keys, values = ("W_query", "W_query") if inside == "keys_from_query" else ("W_key", "W_value")
        q, k, v = (F.linear(x, state[f"{name}.weight"]) for name in ("W_query", keys, values))
    else:
        q = k = v = x
    b, n, d = q.shape
    q, k, v = (t.view(b, n, heads, d // heads).transpose(1, 2) for t in (q, k, v))
    future = torch.triu(torch.ones(n, n, dtype=torch.bool), 1)
    hidden = {"window": future | torch.tril(torch.ones(n, n, dtype=torch.bool), -8),
              "no_mixing": ~torch.eye(n, dtype=torch.bool)}.get(inside, future)
    scores = (q @ k.transpose(2, 3)).masked_fill(hidden, -1e-9 if inside == "leak" else -torch.inf)
    scale = {"no_scaling": 1.0, "by_tokens": n ** 0.5}.get(inside, (d // heads) ** 0.5)
    context = (torch.softmax(scores / scale, dim=-1) @ v).transpose(1, 2).reshape(b, n, d)
    return F.linear(context, state["out_proj.weight"], state["out_proj.bias"]) if projection else context


def shown(seed: int, tokens: int = 12, **module: Any) -> Shown:
    rng = torch.Generator().manual_seed(seed)
    split = split_weights(PARAMS, rng, 12, 768, 768, random_roles(rng, 768, 768, out_proj=True))
    assert split is not None
    with torch.no_grad():
        return split.shown(attention(split.state, split.input(rng, tokens), **module), tokens)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("inside", ["book", "leak", "keys_from_query", "no_scaling", "by_tokens"])
def test_12_heads_of_64_show_whatever_each_head_computes(inside: str, seed: int) -> None:
    assert shown(seed, inside=inside) == Shown(at_work=True, twelve=True, sees_first=True)


@pytest.mark.parametrize("heads", [1, 2, 3, 4, 6, 8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 768])
def test_every_other_split_of_768_dims_shows_the_weights_at_work_and_not_12_heads(heads: int) -> None:
    """Heads of another width straddle the judge's blocks (the twins part) or split them (the half-twins'
    halves stop sharing scores): the count is confirmed, the heads are not."""
    for seed in range(2):
        found = shown(seed, heads=heads)
        assert (found.at_work, found.twelve) == (True, False), (heads, seed)


@pytest.mark.parametrize("module", [{"weights": False}, {"projection": False}, {"inside": "no_mixing"}],
                         ids=["ignores_qkv_weights", "never_applies_out_proj", "mixes_no_tokens"])
def test_weights_not_at_work_or_no_attention_show_no_heads(module: dict[str, Any]) -> None:
    for seed in range(2):
        assert not shown(seed, **module).twelve


def test_the_context_shows_on_1024_tokens_only_where_the_last_token_sees_the_first() -> None:
    """One forward of 1024 tokens: the book's attention and one that lets the future through see the first
    token from the last; a window of 8 tokens (12 heads of 64, whatever its mask's size) does not."""
    assert shown(0, 1024, inside="leak").sees_first and shown(0, 1024, inside="by_tokens").sees_first
    window = shown(0, 1024, inside="window")
    assert window.at_work and not window.sees_first
    assert shown(0, 12, inside="window").twelve  # on 12 tokens its heads show: the context is what it lacks


# -- learners' files, in the sandbox ---------------------------------------------------------------------
@pytest.mark.parametrize("path, graded, mask_check, mask_key", [
    (LEAK, "mha_gpt2", "causal", "mask.causal.leak"),
    (KEYS_FROM_QUERY, "MultiHeadAttention", "reference", "mask.reference.mismatch"),
], ids=["future_let_through", "keys_from_query"])
def test_a_bug_inside_the_attention_costs_3_3_nothing(grade_file: Grade, path, graded: str, mask_check: str,
                                                      mask_key: str) -> None:
    run = grade_file(path, "3.3,mask")
    scores = {e.id: (e.score, e.max_score) for e in run.exercises}
    assert scores["3.3"] == (6, 6), {c.id: c.message for e in run.exercises for c in e.checks if c.score < c.max_score}
    assert scores["mask"][0] < scores["mask"][1]
    charged = check(run, "mask", mask_check)
    assert (charged.status, charged.message_key) == ("failed", mask_key), charged.message
    count = check(run, "3.3", "parameters")
    assert count.message_key == "3.3.count.ok"
    assert count.messages["en"] == f"{graded} has 2,360,064 trainable parameters, as GPT-2 small's attention does."
    assert count.messages["zh"] == f"{graded} 有 2,360,064 个可训练参数，与 GPT-2 small 的注意力层一致。"
    heads = check(run, "3.3", "heads")
    assert (heads.status, heads.message_key) == ("passed", "3.3.heads.ok_split"), heads.message
    assert heads.messages["en"].startswith(f"With the grader's weights, {graded} computes 12 heads of 64 dims, 768 "
                                           "in and out, each head alike, but what the heads compute is not the "
                                           "book's attention (largest difference ")
    assert heads.messages["en"].endswith("from a 12-head reference with the same weights), which the mask exercise "
                                         "charges.")
    assert heads.messages["zh"].startswith(f"载入评分器的权重后，{graded} 计算 12 个 64 维的头，输入输出均为 768 维，"
                                           "每个头的计算方式相同")
    assert heads.messages["zh"].endswith("这个错误由因果掩码练习扣分。")
    context = check(run, "3.3", "context")
    assert (context.status, context.message_key) == ("passed", "3.3.context.mask_ok"), context.message
    assert context.messages["en"] == f"{graded}'s causal mask (mask) covers 1024 tokens, GPT-2 small's full context."


def _edited(path, old: str, new: str) -> str:
    source = path.read_text(encoding="utf-8")
    assert old in source
    return source.replace(old, new)


def test_a_window_of_8_tokens_fails_the_context_on_1024_tokens(grade_file: Grade) -> None:
    """A mask that also hides every token more than 8 back (1024 by 1024 all the same): the mask exercise,
    on 8 tokens, cannot see it; 3.3's one forward on 1024 tokens does."""
    ones = "torch.ones(context_length, context_length)"
    source = _edited(KEYS_FROM_QUERY, f"torch.triu({ones}, diagonal=1))",
                     f"torch.triu({ones}, diagonal=1) + torch.tril({ones}, diagonal=-8))")
    run = grade_file(source, "3.3")
    assert check(run, "3.3", "parameters").status == check(run, "3.3", "heads").status == "passed"
    context = check(run, "3.3", "context")
    assert (context.status, context.message_key) == ("failed", "3.3.context.split_unshown"), context.message
    assert context.messages["en"] == (
        "MultiHeadAttention is not shown to handle a 1024-token context: with the grader's weights loaded, its "
        "output on 1024 tokens does not show those weights at work over the whole sequence: the last token's "
        "output does not follow the first token.")
    assert context.messages["zh"].startswith("无法证明 MultiHeadAttention 能处理 1024 个 Token 的上下文")
    assert "最后一个 Token 的输出不随第一个 Token 而变" in context.messages["zh"]


def test_another_head_count_is_the_heads_checks_alone(grade_file: Grade) -> None:
    """6 heads of 128 and keys from the query projection: the weights are at work (the count) over the whole
    context, and the heads are not 12 of 64."""
    run = grade_file(_edited(KEYS_FROM_QUERY, "num_heads=12)", "num_heads=6)"), "3.3")
    assert {c.id: c.message_key for e in run.exercises for c in e.checks} == {
        "parameters": "3.3.count.ok", "heads": "3.3.heads.mismatch", "context": "3.3.context.mask_ok"}


def test_an_out_proj_never_applied_leaves_the_count_unconfirmed(grade_file: Grade) -> None:
    """With the future let through and no out_proj at work, the judge's weights are not seen where it put
    them: nothing of the configuration is confirmed, as before."""
    run = grade_file(_edited(LEAK, "return self.out_proj(context_vec)", "return context_vec"), "3.3")
    assert {c.id: (c.status, c.message_key) for e in run.exercises for c in e.checks} == {
        "parameters": ("failed", "3.3.count.unconfirmed"), "heads": ("failed", "3.3.heads.mismatch"),
        "context": ("failed", "3.3.context.unconfirmed")}
