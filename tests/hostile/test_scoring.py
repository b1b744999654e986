"""Hostile scoring: submissions that earn points by computing nothing, and children that answer the
judge's probes with values of the wrong type or shape.

* A check whose premise cannot be established fails: weights that cannot be matched to their roles
  (by name, or by what each weight does), or an output that is the same whatever the input. "Skipped"
  is only for missing hardware, so a class that computes nothing scores 0 (attacks/zero_work.py), while
  an honest class whose weights have unusual names still gets full marks (corpus/mask_ok_unnamed_weights.py).
* Every answer from the child is held to the protocol's schema (grader/judge/protocol.py) before a check reads
  it, and the judge's own evidence code survives any output a forward may return: an ill-typed answer is
  the submission's failure (exit 1), never a grader error (exit 2), and the answers beside it keep their
  points.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from conftest import CORPUS, ROOT, check, statuses
from grader.judge import protocol
from grader.results import RunResult
from helpers import accelerator, no_traceback
from helpers import grade as run_cli
from exercise.test_gpt_data import LECTURE

from .test_attacks import ALL_31, ALL_32, Hostile, after, all_checks, hostile, no_grader_errors  # noqa: F401

GPT_ATTENTION = (ROOT / "solutions" / "gpt_attention.py").read_text(encoding="utf-8")
ANSWERS = "3.1,3.2,3.3,mask"


def clean(run: RunResult) -> None:
    """No check is ours to blame: the run is graded, never a grader fault."""
    no_grader_errors(run)
    assert not run.grader_fault


def failed(run: RunResult, exercise: str, *check_ids: str) -> None:
    for check_id in check_ids or tuple(statuses(run, exercise)):
        result = check(run, exercise, check_id)
        assert result.status == "failed", (exercise, check_id, result.status, result.message_key, result.message)


def all_passed(run: RunResult, exercise: str) -> None:
    wrong = {c: s for c, s in statuses(run, exercise).items() if s != "passed"}
    assert statuses(run, exercise) and not wrong, (exercise, wrong)


# -- item 8: a class that computes nothing scores nothing ------------------------------------------------------
def test_zero_work_scores_nothing_on_ch03(hostile: Hostile) -> None:
    """Zeros of the right shape from every class, weights named a, b, c (counted like GPT-2's attention,
    two heads in a ModuleList): every check fails; only the GPU comparison may be skipped, for want of a GPU."""
    run = hostile.grade(hostile.attack("zero_work"), "ch03")
    clean(run)
    assert run.score == 0, [(c.id, c.status, c.message_key) for c in all_checks(run) if c.score]
    for c in all_checks(run):
        if c.id == "accelerator" and not accelerator():
            assert (c.status, c.message_key) == ("skipped", "device.accelerator.none")
        else:
            assert c.status == "failed", (c.id, c.status, c.message_key)
    constant = {(e.id, c.id) for e in run.exercises for c in e.checks if c.message_key == "check.constant"}
    assert {("3.2", "answer"), ("3.3", "parameters"), ("3.3", "context"), ("mask", "causal"),
            ("mask", "reference"), ("device", "registered")} <= constant, constant
    assert "returns the same output whatever the input" in check(run, "mask", "normalised").message
    assert "无论输入是什么" in check(run, "mask", "normalised").messages["zh"]


ZERO_WORK_GPT = '''
import torch
import torch.nn as nn
from torch.nn import functional as F

n_embd, block_size = 32, 8


class Head(nn.Module):
    def __init__(self, head_size):
        super().__init__()
        self.a = nn.Linear(n_embd, head_size, bias=False)
        self.b = nn.Linear(n_embd, head_size, bias=False)
        self.c = nn.Linear(n_embd, head_size, bias=False)
        self.register_buffer("tril", torch.tril(torch.ones(block_size, block_size)))
        self.head_size = head_size

    def forward(self, x):
        return torch.zeros(*x.shape[:-1], self.head_size)


class BigramLanguageModel(nn.Module):
    def __init__(self, vocab_size):
        super().__init__()
        self.table = nn.Embedding(vocab_size, vocab_size)
        self.shift = nn.Parameter(torch.zeros(vocab_size))
        self.vocab_size = vocab_size

    def forward(self, idx, targets=None):
        logits = torch.zeros(*idx.shape, self.vocab_size)
        if targets is None:
            return logits, None
        logits = logits.view(-1, self.vocab_size)
        return logits, F.cross_entropy(logits, targets.view(-1))

    def generate(self, idx, max_new_tokens):
        return torch.cat([idx, torch.zeros(idx.shape[0], max_new_tokens, dtype=torch.long)], dim=1)


class LayerNorm1d:
    def __init__(self, dim, eps=1e-5):
        self.gamma, self.beta = torch.ones(dim), torch.zeros(dim)

    def __call__(self, x):
        return self.gamma * torch.zeros_like(x) + self.beta

    def parameters(self):
        return [self.gamma, self.beta]
'''


def test_zero_work_scores_nothing_on_the_gpt_classes(hostile: Hostile) -> None:
    """The lecture's classes computing nothing: constant logits (which start at exactly ln V, the loss an
    untrained model should have), a head of zeros whose weights cannot be matched, a layer norm of
    zeros whose gamma and beta act on nothing."""
    run = hostile.grade(ZERO_WORK_GPT, "gpt.head,gpt.bigram,gpt.layernorm")
    clean(run)
    assert run.score == 0 and all(c.status == "failed" for c in all_checks(run)), [
        (c.id, c.status, c.message_key) for c in all_checks(run)]
    assert check(run, "gpt.head", "reference").message_key == "gpt.head.unmapped"
    for exercise, check_id in (("gpt.bigram", "forward"), ("gpt.bigram", "init"), ("gpt.bigram", "generate"),
                               ("gpt.head", "causal"), ("gpt.head", "short"), ("gpt.layernorm", "affine")):
        assert check(run, exercise, check_id).message_key == "check.constant", (exercise, check_id)


def test_honest_classes_with_unusual_weight_names_get_full_marks(hostile: Hostile) -> None:
    """The fair side of the same rule: weights named a, b, c (or p, r, s and mix), in no particular order,
    are matched to their roles by what they do, and a correct class passes every check that maps them."""
    run = hostile.grade((CORPUS / "mask_ok_unnamed_weights.py").read_text(encoding="utf-8"), "3.2,3.3,mask")
    clean(run)
    assert run.full_marks, [(c.id, c.status, c.message) for c in all_checks(run) if c.status != "passed"]


def test_unmappable_weights_fail_the_reference_check(hostile: Hostile) -> None:
    """A working MultiHeadAttention with an extra weight no role accounts for cannot be compared with the
    reference: that check fails (it used to be skipped, which counted as full marks)."""
    extra = "\n\n_init = MultiHeadAttention.__init__\n\n\ndef _with_extra(self, *args, **kwargs):\n" \
            "    _init(self, *args, **kwargs)\n    self.spare = torch.nn.Parameter(torch.rand(3, 3))\n\n\n" \
            "MultiHeadAttention.__init__ = _with_extra\n"
    run = hostile.grade(after(extra), "mask")
    clean(run)
    result = check(run, "mask", "reference")
    assert (result.status, result.message_key) == ("failed", "mask.reference.unmapped"), result
    assert "MultiHeadAttention" in result.message and result.messages["zh"]
    assert {c: s for c, s in statuses(run, "mask").items() if c != "reference"} == dict.fromkeys(
        ("causal", "first_token", "short", "normalised", "finite"), "passed")


# -- item 9: outputs the judge's evidence code must survive ----------------------------------------------------
ODD_RETURNS = {
    "empty_last_dim": "torch.zeros(*x.shape[:-1], 0)",
    "empty_in_a_list": "[torch.zeros(*x.shape[:-1], 0)]",
    "scalar": "torch.tensor(0.5)",
    "flat": "torch.zeros(x.shape[-1])",
    "ints": "torch.ones(*x.shape[:-1], 3, dtype=torch.long)",
    "bools": "torch.ones(*x.shape[:-1], 3, dtype=torch.bool)",
    "nan": "torch.full(x.shape, float('nan'))",
    "list": "[1, 2, 3]",
    "dict": "{'context': 1}",
    "string": "'context'",
}


@pytest.mark.parametrize("odd", list(ODD_RETURNS))
def test_odd_forward_output_fails_only_its_own_checks(hostile: Hostile, odd: str) -> None:
    """MultiHeadAttention.forward returns an odd value: 3.3 and mask (which run it) fail, no check is a
    grader error, and 3.1 and 3.2 (other classes) keep every point."""
    attack = hostile.attack("odd_forward_output", cls="MultiHeadAttention", method="forward",
                            **{"return": ODD_RETURNS[odd]})
    run = hostile.grade(after(attack), ANSWERS)
    clean(run)
    assert statuses(run, "3.1") == ALL_31 and statuses(run, "3.2") == ALL_32
    failed(run, "3.3", "heads", "context")
    failed(run, "mask")


@pytest.mark.parametrize("odd", ["empty_last_dim", "scalar", "ints", "string"])
@pytest.mark.parametrize("cls, method, exercise", [
    ("Head", "forward", "gpt.head"),
    ("LayerNorm1d", "__call__", "gpt.layernorm"),
])
def test_odd_lecture_output_fails_only_its_own_checks(hostile: Hostile, odd: str, cls: str, method: str,
                                                      exercise: str) -> None:
    attack = hostile.attack("odd_forward_output", cls=cls, method=method, **{"return": ODD_RETURNS[odd]})
    run = hostile.grade(after(attack, GPT_ATTENTION), "gpt.trick,gpt.head,gpt.layernorm")
    clean(run)
    failed(run, exercise)
    for other in {"gpt.trick", "gpt.head", "gpt.layernorm"} - {exercise}:
        all_passed(run, other)


@pytest.mark.parametrize("odd", ["empty_last_dim", "flat", "scalar"])
def test_odd_trick_version_fails_only_its_check(hostile: Hostile, odd: str) -> None:
    """xbow2 returns an empty, flat or 0-dim tensor: only the matrix version fails."""
    attack = f"\n\ndef xbow2(x):\n    return {ODD_RETURNS[odd]}\n"
    run = hostile.grade(after(attack, GPT_ATTENTION), "gpt.trick")
    clean(run)
    assert statuses(run, "gpt.trick") == {"loop": "passed", "matrix": "failed", "softmax": "passed"}


def test_top_level_trick_tensors_of_another_rank_fail(hostile: Hostile) -> None:
    """The lecture's top-level style with a 1-D x and xbow: its version is not (B, T, C), so it fails by
    name instead of breaking the judge's model of the mean."""
    run = hostile.grade("import torch\nx = torch.randn(8)\nxbow = x.cumsum(0) / torch.arange(1, 9)\n", "gpt.trick")
    clean(run)
    result = check(run, "gpt.trick", "loop")
    assert (result.status, result.message_key) == ("failed", "gpt.trick.shape"), result


def test_odd_logits_fail_only_the_bigram(hostile: Hostile) -> None:
    attack = hostile.attack("odd_forward_output", cls="BigramLanguageModel", method="forward",
                            **{"return": "(torch.zeros(*x.shape, 0), torch.tensor(0.5))"})
    run = hostile.grade(after(attack, LECTURE), "gpt.tokenizer,gpt.bigram")
    clean(run)
    all_passed(run, "gpt.tokenizer")
    failed(run, "gpt.bigram")


# -- item 9: well-framed, ill-typed answers ----------------------------------------------------------------------------
DESCRIPTIONS = ["shape_strings", "negative_shape", "huge_shape", "flag_strings", "missing_key", "list_for_mapping",
                "int_info"]


@pytest.mark.parametrize("what", DESCRIPTIONS)
def test_ill_typed_module_description_is_a_protocol_failure(hostile: Hostile, what: str) -> None:
    """The child describes every MultiHeadAttention it builds out of protocol (sizes as strings, negative or
    absurd sizes, a flag as a string, a missing key, a list of ints for records, an int for the whole
    description): every check that builds one fails with check.protocol; 3.1 and 3.2 keep every point."""
    run = hostile.grade(after(hostile.attack("ill_typed_answers", what=what)), ANSWERS)
    clean(run)
    assert statuses(run, "3.1") == ALL_31 and statuses(run, "3.2") == ALL_32
    for exercise in ("3.3", "mask"):
        for result in next(e for e in run.exercises if e.id == exercise).checks:
            assert (result.status, result.message_key) == ("failed", "check.protocol"), (exercise, result)
    assert "MultiHeadAttention" in check(run, "mask", "causal").message


@pytest.mark.parametrize("what", ["state_int", "describe_int"])
def test_ill_typed_probe_answer_fails_the_check_that_asked(hostile: Hostile, what: str) -> None:
    """`state` or `describe` answered with an int: 3.1's parameters check, the one that reads v1's tensors
    and description, fails with check.protocol; nothing else is lost."""
    run = hostile.grade(after(hostile.attack("ill_typed_answers", what=what)), ANSWERS)
    clean(run)
    result = check(run, "3.1", "parameters")
    assert (result.status, result.message_key) == ("failed", "check.protocol"), result
    assert statuses(run, "3.1") == {**ALL_31, "parameters": "failed"} and statuses(run, "3.2") == ALL_32
    all_passed(run, "3.3")
    all_passed(run, "mask")


@pytest.mark.parametrize("what", ["inventory_int", "bad_bindings"])
def test_ill_typed_inventory_is_a_protocol_failure(hostile: Hostile, what: str) -> None:
    """The list of the submission's objects is one answer: an int for it, or bindings whose cell is a
    string and name an int, fails every check with check.protocol (the judge cannot know what was bound)."""
    run = hostile.grade(after(hostile.attack("ill_typed_answers", what=what)), "3.1,3.3")
    clean(run)
    assert all((c.status, c.message_key) == ("failed", "check.protocol") for c in all_checks(run)), [
        (c.id, c.status, c.message_key) for c in all_checks(run)]


def test_ill_typed_variables_fail_only_what_reads_them(hostile: Hostile) -> None:
    """`variables` answered with an int: the vocabulary check (which reads `chars`) fails with
    check.protocol; encode and decode, found in the inventory, keep their points."""
    run = hostile.grade(after(hostile.attack("ill_typed_answers", what="variables_int"), LECTURE), "gpt.tokenizer")
    clean(run)
    assert check(run, "gpt.tokenizer", "vocab").message_key == "check.protocol"
    assert statuses(run, "gpt.tokenizer") == {"vocab": "failed", "roundtrip": "passed", "ids": "passed"}


@pytest.mark.parametrize("attack, values", [
    ("odd_forward_output", {"cls": "MultiHeadAttention", "method": "forward",
                            "return": ODD_RETURNS["empty_last_dim"]}),
    ("ill_typed_answers", {"what": "int_info"}),
    ("ill_typed_answers", {"what": "shape_strings"}),
])
def test_cli_exits_1_not_2(hostile: Hostile, tmp_path: Path, attack: str, values: dict[str, str]) -> None:
    """From the command line, such a submission is graded (exit 1), not a grader failure (exit 2)."""
    path = tmp_path / "ill_typed.py"
    path.write_text(after(hostile.attack(attack, **values)), encoding="utf-8")
    result = run_cli("3.3,mask", path, "--json", "-", cwd=tmp_path)
    no_traceback(result)
    assert result.code == 1, (result.code, result.stderr[-2000:])


# -- the schema itself ---------------------------------------------------------------------------------------------
HONEST_MODULE = {"kind": "module", "class": "M", "training": False,
                 "parameters": [{"name": "w", "shape": [2, 3], "dtype": "torch.float32", "requires_grad": True}],
                 "buffers": [{"name": "mask", "shape": [4, 4], "dtype": "torch.float32", "persistent": True}],
                 "plain_tensors": [], "modules": [{"name": "lin", "class": "Linear"}]}


def test_the_schema_accepts_what_the_honest_child_sends() -> None:
    assert protocol.handle({"__ref__": 3, "info": HONEST_MODULE}) == (3, HONEST_MODULE)
    entry = {"ref": 0, "bindings": [{"cell": 1, "name": "f"}], "kind": "function", "class": "f", "params": ["x"],
             "defined_here": True}
    assert protocol.inventory_entry(entry) is entry


@pytest.mark.parametrize("change", [
    {"parameters": 5},
    {"parameters": [{"name": "w", "shape": "2x3", "dtype": "f", "requires_grad": True}]},
    {"parameters": [{"name": "w", "shape": [-1], "dtype": "f", "requires_grad": True}]},
    {"parameters": [{"name": "w", "shape": [True], "dtype": "f", "requires_grad": True}]},
    {"parameters": [{"name": "w", "shape": [2**40, 2**40], "dtype": "f", "requires_grad": True}]},
    {"parameters": [{"name": 7, "shape": [1], "dtype": "f", "requires_grad": True}]},
    {"parameters": [{"name": "w", "shape": [1], "dtype": "f"}]},
    {"modules": [{"name": "lin"}]},
    {"kind": "spaceship"},
    {"training": 1},
])
def test_the_schema_refuses_ill_typed_descriptions(change: dict[str, object]) -> None:
    with pytest.raises(protocol.Invalid):
        protocol.handle({"__ref__": 3, "info": {**HONEST_MODULE, **change}})


def test_the_schema_refuses_ill_typed_answers() -> None:
    for bad in (lambda: protocol.tensors({"w": [1.0]}),
                lambda: protocol.values({"other": 1}, ["x"]), lambda: protocol.values(5, ["x"]),
                lambda: protocol.name_list(["ok", 3]), lambda: protocol.handle({"__ref__": -1, "info": HONEST_MODULE}),
                lambda: protocol.inventory_entry({"ref": 0, "bindings": [{"cell": "1", "name": "f"}],
                                                  "kind": "object", "class": "C", "defined_here": True})):
        with pytest.raises(protocol.Invalid):
            bad()
