"""Chapter 3, round 4 (issue 38, points 9 to 12): learners' files whose verdicts named the wrong thing.

Each file under tests/corpus/learner_*.py is one pattern seen in public learners' code, written small: a
softmax over the heads, scaling by the token count, an out_proj defined and never applied, a 12-head wrapper
built for 3.3 beside the 2-head one, a global mask read by a forward that also holds an unused plain tensor.
What a student reads is asserted in both languages. The wrapper with a projection after torch.cat (point 8)
is in test_one_charge.py, with the other bugs judged where they belong.
"""
from __future__ import annotations

import torch

from conftest import CORPUS, Grade, check
from grader.exercises._attention import bug_of


def test_a_softmax_over_the_heads_is_named_and_leaves_the_configuration_confirmed(grade_file: Grade) -> None:
    """dim=1 of (b, heads, n, n) turns every row with a masked score into NaN; the last token's row has none,
    so its numbers still show 12 heads of 64: 3.3 passes with a note, and the mask exercise names the dim."""
    run = grade_file(CORPUS / "learner_softmax_over_heads.py", "3.3,mask")
    heads = check(run, "3.3", "heads")
    assert (heads.status, heads.message_key) == ("passed", "3.3.heads.ok_buggy"), heads.message
    assert heads.evidence["diagnosis"] == "mask.bug.softmax_heads_dim"
    assert "which the mask exercise charges: The softmax runs over the wrong dim: dim=1" in heads.messages["en"]
    assert "由因果掩码练习扣分" in heads.messages["zh"] and "dim=1 是头的维度" in heads.messages["zh"]
    finite = check(run, "mask", "finite")
    assert (finite.status, finite.evidence["diagnosis"]) == ("failed", "mask.bug.softmax_heads_dim")
    assert finite.messages["en"].startswith("MultiHeadAttention:")
    assert "The softmax runs over the wrong dim" in finite.messages["en"]
    assert "softmax 的维度不对" in finite.messages["zh"]
    # a short sequence gives numbers where the whole one gives NaN: that is `finite`'s, not a mask to slice
    assert check(run, "mask", "short").status == "passed"


def test_an_output_without_a_number_confirms_no_configuration() -> None:
    """An all-NaN output is what a softmax over the heads gives, with any number of heads, where every row of
    scores holds a -inf: a bug model that turns all NaN too shows nothing about 12 heads of 64."""
    nan = torch.full((2, 3, 4), float("nan"))
    assert bug_of(nan, lambda bug: torch.full((2, 3, 4), float("nan"))) is None


def test_scaling_by_the_token_count_is_named_not_a_mask_to_slice(grade_file: Grade) -> None:
    """keys.shape[1] is the number of tokens in CausalAttention: the first tokens alone are scaled otherwise
    than in the whole sequence, with a mask that is sliced. The short check names the scaling."""
    run = grade_file(CORPUS / "learner_scale_by_tokens.py", "mask")
    short = check(run, "mask", "short")
    assert (short.status, short.message_key) == ("failed", "mask.short.unsliced"), short.message
    assert short.evidence["diagnosis"] == "mask.bug.scale_by_tokens"
    assert "scaled by the number of tokens (keys.shape[1] is num_tokens)" in short.messages["en"]
    assert "Token 数量的平方根" in short.messages["zh"]
    for lang in ("en", "zh"):
        assert "[:num_tokens, :num_tokens]" not in short.messages[lang]
    reference = check(run, "mask", "reference")
    assert reference.evidence["diagnosis"] == "mask.bug.scale_by_tokens", reference.message


def test_an_out_proj_that_is_never_applied_is_said_so_by_3_3_alone(grade_file: Grade) -> None:
    """What follows the attention is not masking: the mask exercise judges the attention with the identity
    in out_proj, so the bug costs 3.3's heads check only, which says what is wrong."""
    run = grade_file(CORPUS / "learner_out_proj_unused.py", "3.3,mask")
    assert {e.id: e.score for e in run.exercises} == {"3.3": 4, "mask": 12}
    heads = check(run, "3.3", "heads")
    assert (heads.status, heads.message_key) == ("failed", "3.3.heads.out_proj_unused"), heads.message
    assert heads.messages["en"].startswith("mha defines out_proj but its forward never applies it")
    assert "context_vec = self.out_proj(context_vec)" in heads.messages["en"]
    assert "定义了 out_proj，但 forward 中从未使用它" in heads.messages["zh"]
    assert check(run, "3.3", "parameters").status == "passed"


def test_the_3_2_answer_is_the_two_head_wrapper_and_the_message_says_so(grade_file: Grade) -> None:
    """The book's 4-dim demo, then GPT-2's 12 heads built with the same wrapper class: the 12-head object is
    3.3's, not a 3.2 answer. The failure quotes the 2-head one, and says which object was graded."""
    answer = check(grade_file(CORPUS / "learner_wrapper_for_gpt2.py", "3.2"), "3.2", "answer")
    assert (answer.status, answer.message_key) == ("failed", "3.2.answer.wrong_width"), answer.message
    assert answer.messages["en"].startswith("mha gives 4-dim context vectors (shape [2, 6, 4])")
    assert ("Graded as the 3.2 answer: mha, the newest of the submission's wrappers with 2 heads "
            "(it also holds gpt2_attn)." in answer.messages["en"])
    assert answer.messages["zh"].startswith("mha 输出 4 维上下文向量")
    assert "作为 3.2 的答案评分的是 mha" in answer.messages["zh"] and "gpt2_attn" in answer.messages["zh"]
    assert (answer.evidence["graded"], answer.evidence["others"]) == ("mha", ["gpt2_attn"])


def test_device_names_the_global_mask_the_forward_uses_not_an_unused_attribute(grade_file: Grade,
                                                                             monkeypatch) -> None:
    """self.score_mask is a plain tensor, but forward never reads it: it reads the notebook's global `mask`,
    which is what .to(device) leaves on the CPU. The message names that tensor."""
    monkeypatch.delenv("GRADER_ACCELERATOR", raising=False)
    registered = check(grade_file(CORPUS / "learner_global_mask.py", "device"), "device", "registered")
    assert (registered.status, registered.message_key) == ("failed", "device.registered.behind"), registered.message
    assert registered.messages["en"].startswith("CausalAttention.forward uses the global mask")
    assert registered.messages["zh"].startswith("CausalAttention.forward 使用了 全局变量 mask")
    for lang in ("en", "zh"):
        assert "score_mask" not in registered.messages[lang]
