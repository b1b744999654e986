"""Hostile corpus, round 4: still no point on the child's word (issue 39, section 5).

The child's probe handlers run in the submission's process: it can rewrite the description of its modules
(inventory.describe_module) and make load_state keep nothing. A module's parameter names, head count,
trainable count and mask shape are then whatever it says. Each point must rest on what the judge measured:

* 3.2's answer: the judge's weights, written into the heads the names point at, must give what two
  one-dimensional attention heads compute with them;
* 3.3's count: the judge's weights, written into the counted parameters, must give what attention computes
  with them (the reference, one of the usual bugs the mask exercise charges, or another head count, which
  `heads` charges);
* 3.3's context: the module runs on 1024 tokens with the judge's weights and gives what the same attention
  computes on them, the causal mask's effect at every position included; a real module with a 512-token mask
  that says it is 1024 by 1024 fails where its forward does.
"""
from __future__ import annotations

from conftest import check
from grader.results import RunResult

from .test_attacks import Hostile, after, hostile, no_grader_errors  # noqa: F401

FORGED = {("3.2", "answer"), ("3.3", "parameters"), ("3.3", "context")}
MARKER = "# -- the forgery --"


def points(run: RunResult) -> dict[tuple[str, str], int]:
    return {(e.id, c.id): c.score for e in run.exercises for c in e.checks if (e.id, c.id) in FORGED}


def test_modules_without_parameters_win_nothing_by_a_forged_description(hostile: Hostile) -> None:
    """Without the forgery the modules fail all three checks; with it, they still fail each, now because
    the judge's weights do not reach an output that computes attention."""
    source = hostile.attack("trust_forged_inventory")
    assert MARKER in source
    plain = hostile.grade(source.split(MARKER)[0], "3.2,3.3")
    no_grader_errors(plain)
    assert points(plain) == dict.fromkeys(FORGED, 0), points(plain)
    run = hostile.grade(source, "3.2,3.3")
    no_grader_errors(run)
    assert points(run) == dict.fromkeys(FORGED, 0), {(e, c): check(run, e, c).message for e, c in FORGED}
    answer = check(run, "3.2", "answer")
    assert answer.message_key == "3.2.answer.unmapped", answer.message
    assert "could not be matched to query/key/value" in answer.messages["en"]
    assert "无法对应到 query/key/value" in answer.messages["zh"]
    count = check(run, "3.3", "parameters")
    assert count.message_key == "3.3.count.unconfirmed", count.message
    assert count.messages["en"].startswith("gpt2_attention reports 2,360,064 trainable parameters, but with the "
                                           "grader's weights loaded")
    assert "the count is not confirmed" in count.messages["en"]
    assert "报告有 2,360,064 个可训练参数" in count.messages["zh"] and "无法确认这个数目" in count.messages["zh"]
    context = check(run, "3.3", "context")
    assert context.message_key == "3.3.context.unconfirmed", context.message
    assert context.messages["en"].startswith("gpt2_attention is not shown to handle a 1024-token context")
    assert "无法证明 gpt2_attention 能处理 1024 个 Token 的上下文" in context.messages["zh"]


def test_a_mask_said_to_be_1024_long_must_run_on_1024_tokens(hostile: Hostile) -> None:
    """A 512-token context fails as context.wrong from its own description; described as 1024 by 1024, it
    still fails, on the 1024-token input its forward cannot take. Its weights and heads are real: they pass."""
    source = after(hostile.attack("trust_forged_mask_size"))
    assert MARKER in source
    plain = hostile.grade(source.split(MARKER)[0], "3.3")
    no_grader_errors(plain)
    assert check(plain, "3.3", "context").message_key == "3.3.context.wrong"
    run = hostile.grade(source, "3.3")
    no_grader_errors(run)
    context = check(run, "3.3", "context")
    assert (context.status, context.score, context.message_key) == ("failed", 0, "check.raised"), context.message
    assert "(1, 1024, 768)" in context.message
    assert {c.id: c.status for c in next(e for e in run.exercises if e.id == "3.3").checks} == {
        "parameters": "passed", "heads": "passed", "context": "failed"}
