"""One bug, one charge (design.md section 7): a bug costs points in the exercise it belongs to and nowhere else.

Every named mistake (tests/corpus/mutations.py, BELONGS_TO) is the reference with one bug in it. Graded on
the whole ch03 set, it loses points in its own exercise, and every other exercise keeps full marks: each
check judges its own unit against the student's other parts as they are. Where a check passes over a bug
that is another exercise's, it says so: 3.3 confirms 12 heads through a forward with a masking bug and
leaves the bug, named, to the mask exercise; a bug inside the attention that no model names (the future let
through, keys from the query projection) leaves 3.3 whole too.
"""
from __future__ import annotations

from typing import Callable

import pytest

from conftest import CORPUS, EXERCISES, SOLUTION, check, grade, mutant, mutations, select
from helpers import accelerator
from grader.results import RunResult

NAMED = [(exercise, bug) for exercise, bugs in mutations.BELONGS_TO.items() for bug, _, _ in bugs]


@pytest.fixture(scope="module")
def graded(launcher, tmp_path_factory) -> Callable[[str, str], RunResult]:
    """Grade each single-bug file once on ch03, for the whole module, with the device comparison on (on the
    CPU where there is no GPU): a bug of another exercise must not cost it either."""
    cache: dict[tuple[str, str], RunResult] = {}

    def run(exercise: str, bug: str) -> RunResult:
        if (exercise, bug) not in cache:
            path = tmp_path_factory.mktemp(bug) / "submission.py"
            path.write_text(mutant(mutations.BELONGS_TO[exercise], bug), encoding="utf-8")
            with pytest.MonkeyPatch.context() as env:
                env.setenv("GRADER_ACCELERATOR", accelerator() or "cpu")
                cache[exercise, bug] = grade(path, select("ch03"), launcher, seed=0)
        return cache[exercise, bug]

    return run


def test_every_exercise_of_the_set_has_named_mistakes() -> None:
    assert set(mutations.BELONGS_TO) == {e.id for e in EXERCISES.values() if e.group == "ch03"}


@pytest.mark.parametrize("exercise, bug", NAMED, ids=[f"{e}-{b}" for e, b in NAMED])
def test_a_named_mistake_costs_points_in_its_own_exercise_only(graded, exercise: str, bug: str) -> None:
    run = graded(exercise, bug)
    scores = {e.id: (e.score, e.max_score) for e in run.exercises}
    own = scores.pop(exercise)
    assert own[0] < own[1], f"{bug} costs nothing in {exercise}"
    assert all(score == most for score, most in scores.values()), {
        (e.id, c.id): c.message for e in run.exercises if e.id != exercise for c in e.checks if c.score < c.max_score}


@pytest.mark.parametrize("bug", [b for b, _, _ in mutations.MASK_BUGS if b != "mask_not_sliced"])
def test_gpt2_heads_pass_a_masking_bug_with_a_note_naming_it(graded, bug: str) -> None:
    """A 12-head module whose attention has one of the usual bugs has the right configuration: `heads`
    passes, and its message names the bug, in the mask exercise's words, as the mask exercise's."""
    heads = check(graded("mask", bug), "3.3", "heads")
    assert (heads.status, heads.message_key) == ("passed", "3.3.heads.ok_buggy"), heads.message
    assert heads.evidence["diagnosis"] == f"mask.bug.{bug}"
    assert "which the mask exercise charges" in heads.message and "因果掩码练习" in heads.messages["zh"]


def test_gpt2_context_passes_an_unsliced_mask_with_a_note(graded) -> None:
    """A mask that is not cut to the sequence runs only on its whole 1024 tokens: the context is right, and
    the note says what the mask exercise charges."""
    context = check(graded("mask", "mask_not_sliced"), "3.3", "context")
    assert (context.status, context.message_key) == ("passed", "3.3.context.mask_ok_unsliced"), context.message
    assert "only runs on all 1024 tokens" in context.message and "self.mask.bool()[:num_tokens" in context.message
    assert check(graded("mask", "mask_not_sliced"), "3.3", "heads").status == "passed"


# Bugs inside the GPT-2-sized module's attention that no model of the judge names (issue 49, point 5): the
# heads share one mask that lets the future through (-1e-9 for -1e9), or the keys and values are computed with
# the query projection. Edits of MultiHeadAttention alone; each is the mask exercise's.
MHA_SCORES = ("attn_scores = queries @ keys.transpose(2, 3)\n"
              "        mask_bool = self.mask.bool()[:num_tokens, :num_tokens]\n"
              "        attn_scores = attn_scores.masked_fill(mask_bool, -torch.inf)")
MHA_PROJECTIONS = ("        keys = self.W_key(x)\n        queries = self.W_query(x)\n"
                   "        values = self.W_value(x)\n\n        keys = keys.view(")
INSIDE = {
    "future_let_through": (MHA_SCORES, MHA_SCORES.replace("-torch.inf", "-1e-9"), "causal", "mask.causal.leak"),
    "keys_from_query": (MHA_PROJECTIONS, MHA_PROJECTIONS.replace("W_key", "W_query").replace("W_value", "W_query"),
                        "reference", "mask.reference.mismatch"),
}


@pytest.mark.parametrize("bug", list(INSIDE))
def test_a_bug_inside_the_gpt2_attention_costs_the_mask_exercise_alone(launcher, tmp_path, monkeypatch,
                                                                       bug: str) -> None:
    """3.3 is the configuration, confirmed with the judge's weights whatever the attention inside computes:
    all six points, and the heads say the bug is the mask exercise's; every other exercise keeps full marks."""
    old, new, charged, key = INSIDE[bug]
    path = tmp_path / "submission.py"
    path.write_text(mutations.apply(SOLUTION.read_text(encoding="utf-8"), old, new), encoding="utf-8")
    monkeypatch.setenv("GRADER_ACCELERATOR", accelerator() or "cpu")
    run = grade(path, select("ch03"), launcher, seed=0)
    scores = {e.id: (e.score, e.max_score) for e in run.exercises}
    own = scores.pop("mask")
    assert own[0] < own[1], f"{bug} costs nothing in mask"
    assert all(score == most for score, most in scores.values()), {
        (e.id, c.id): c.message for e in run.exercises if e.id != "mask" for c in e.checks if c.score < c.max_score}
    assert check(run, "mask", charged).message_key == key
    heads = check(run, "3.3", "heads")
    assert heads.message_key == "3.3.heads.ok_split", heads.message
    assert "which the mask exercise charges" in heads.messages["en"] and "由因果掩码练习扣分" in heads.messages["zh"]


@pytest.mark.parametrize("bug", ["no_out_proj", "mask_parameter", "qkv_bias"])
def test_a_configuration_slip_is_charged_by_the_count_alone(graded, bug: str) -> None:
    """No out_proj, a mask held as a Parameter, biases on q/k/v: the count says so; the weights still map, so
    `heads` confirms 12 heads and the mask exercise compares the attention with the reference."""
    run = graded("3.3", bug)
    assert check(run, "3.3", "parameters").message_key == f"3.3.count.{bug}"
    assert check(run, "3.3", "heads").message_key == "3.3.heads.ok"
    assert check(run, "mask", "reference").message_key == "mask.reference.ok"


@pytest.mark.parametrize("bug", ["diagonal_zero", "no_scaling", "mask_not_sliced"])
def test_the_wrapper_is_judged_against_its_own_heads(graded, bug: str) -> None:
    """Heads with a masking bug (or that run only on their whole context): the 3.2 answer keeps 2 heads of
    one dimension, and the wrapper gives its own heads' outputs side by side."""
    run = graded("mask", bug)
    assert check(run, "3.2", "answer").message_key == "3.2.answer.ok"
    assert check(run, "3.2", "concat").message_key == "3.2.concat.ok"


def test_heads_in_a_plain_list_are_the_device_exercises_bug_alone(grade_file, monkeypatch) -> None:
    """A wrapper that keeps its heads in a plain list computes the right thing: 3.2 and the mask exercise
    judge it through the heads its forward uses; only `device` charges that .to() and parameters() miss
    them, and says what to use."""
    monkeypatch.delenv("GRADER_ACCELERATOR", raising=False)
    run = grade_file(CORPUS / "heads_in_plain_list.py", "3.2,mask,device")
    scores = {e.id: (e.score, e.max_score) for e in run.exercises}
    assert scores["3.2"] == (6, 6) and scores["mask"] == (12, 12), {
        (e.id, c.id): c.message for e in run.exercises for c in e.checks if c.score < c.max_score}
    answer = check(run, "3.2", "answer")
    assert answer.message == "mha_2d keeps 2 heads and gives context vectors of shape [2, 6, 2]."
    assert answer.messages["zh"] == "mha_2d 保持 2 个头，输出形状为 [2, 6, 2] 的上下文向量。"
    assert check(run, "mask", "reference").message_key == "mask.reference.ok"
    registered = check(run, "device", "registered")
    assert (registered.status, registered.message_key) == ("failed", "device.registered.module"), registered.message
    assert registered.messages["en"].startswith("MultiHeadAttentionWrapper.forward uses heads[0].")
    assert "Keep submodules as attributes or in nn.ModuleList" in registered.messages["en"]
    assert "请把子模块设为属性或放进 nn.ModuleList" in registered.messages["zh"]


PROJECTION = "        self.out_proj = nn.Linear(d_out * num_heads, d_out * num_heads)\n"
HEADS = "        self.heads = nn.ModuleList(\n"


@pytest.mark.parametrize("first", [False, True], ids=["heads_first", "projection_first"])
def test_a_wrapper_that_projects_after_cat_is_judged_through_its_heads(grade_file, monkeypatch,
                                                                       first: bool) -> None:
    """The book's bonus wrapper applies out_proj after torch.cat: built with d_out=1, num_heads=2 it gives
    2-dim context vectors. 3.2 judges its heads and width, the mask exercise the masking inside the heads;
    each sets the projection to the identity and says so in a note. A masking bug in its heads is still the
    mask exercise's, named. Where __init__ makes the projection first, the heads still give the input width."""
    monkeypatch.delenv("GRADER_ACCELERATOR", raising=False)
    source = (CORPUS / "learner_wrapper_out_proj.py").read_text(encoding="utf-8")
    assert PROJECTION in source and HEADS in source
    if first:
        source = source.replace(PROJECTION, "").replace(HEADS, PROJECTION + HEADS)
    run = grade_file(source, "3.2,mask")
    scores = {e.id: (e.score, e.max_score) for e in run.exercises}
    assert scores == {"3.2": (6, 6), "mask": (12, 12)}, {
        (e.id, c.id): c.message for e in run.exercises for c in e.checks if c.score < c.max_score}
    concat = check(run, "3.2", "concat")
    assert concat.message_key == "3.2.concat.ok_projected"
    assert "with its projection after torch.cat (out_proj, as the book's bonus wrapper has one)" in concat.message
    assert "投影（out_proj，与书中附加材料的包装类一样）被评分器设为恒等映射" in concat.messages["zh"]
    reference = check(run, "mask", "reference")
    assert reference.message_key == "mask.reference.ok_projected"
    assert "MultiHeadAttentionWrapper's projection after torch.cat (out_proj) set to the identity" in reference.message
    assert "在 torch.cat 之后的投影（out_proj）被设为恒等映射" in reference.messages["zh"]
    buggy = grade_file(source.replace("diagonal=1)", "diagonal=0)"), "3.2,mask")
    assert check(buggy, "3.2", "concat").message_key == "3.2.concat.ok_projected"
    mismatch = check(buggy, "mask", "reference")
    assert (mismatch.status, mismatch.evidence["diagnosis"]) == ("failed", "mask.bug.diagonal_zero"), mismatch.message
