"""gpt.trick, gpt.head and gpt.layernorm: the lecture's code passes, each named wrong answer fails its
check with the message that names it.

Wrong answers are text edits of the lecture's code below (`edit` fails loudly when the text drifts).
The lecture's LayerNorm1d is a plain class: the sandbox gives the judge a handle on an object of a class
the submission wrote, so it can call it and set its gamma and beta.
"""
from __future__ import annotations

import nbformat
import pytest
import torch

from conftest import ROOT, Grade, check, statuses
from grader.exercises import gpt_head, gpt_layernorm
from grader.exercises._attention import random_roles, reference_output
from grader.results import CheckResult, RunResult
from grader.solutions import gpt_attention

TRICK, HEAD, NORM = "gpt.trick", "gpt.head", "gpt.layernorm"
SOLUTION = ROOT / "solutions" / "gpt_attention.py"


def edit(src: str, old: str, new: str) -> str:
    assert old in src, f"edit target not in the lecture's code: {old!r}"
    return src.replace(old, new)


def failed_with(run: RunResult, exercise: str, check_id: str, key: str) -> CheckResult:
    c = check(run, exercise, check_id)
    assert (c.status, c.message_key) == ("failed", key), (c.status, c.message_key, c.message)
    return c


def all_passed(run: RunResult, exercise: str) -> None:
    bad = {c.id: (c.message_key, c.message) for e in run.exercises if e.id == exercise for c in e.checks
           if c.status != "passed"}
    assert not bad and statuses(run, exercise), bad


# -- the lecture's code ----------------------------------------------------------------------------------
TRICK_CELLS = """\
# %%
import torch
from torch.nn import functional as F
torch.manual_seed(1337)
B, T, C = 4, 8, 2
x = torch.randn(B, T, C)
# %%
xbow = torch.zeros((B, T, C))
for b in range(B):
    for t in range(T):
        xprev = x[b, :t+1]
        xbow[b, t] = torch.mean(xprev, 0)
# %%
wei = torch.tril(torch.ones(T, T))
wei = wei / wei.sum(1, keepdim=True)
xbow2 = wei @ x
# %%
tril = torch.tril(torch.ones(T, T))
wei = torch.zeros((T, T))
wei = wei.masked_fill(tril == 0, float('-inf'))
wei = F.softmax(wei, dim=-1)
xbow3 = wei @ x
# %%
torch.manual_seed(1337)
B, T, C = 4, 8, 32
x = torch.randn(B, T, C)
"""

TRICK_FUNCTIONS = """\
import torch
from torch.nn import functional as F

def xbow(x):
    B, T, C = x.shape
    out = torch.zeros((B, T, C))
    for b in range(B):
        for t in range(T):
            out[b, t] = torch.mean(x[b, :t+1], 0)
    return out

def xbow2(x):
    T = x.shape[1]
    wei = torch.tril(torch.ones(T, T))
    wei = wei / wei.sum(1, keepdim=True)
    return wei @ x

def xbow3(x):
    T = x.shape[1]
    tril = torch.tril(torch.ones(T, T))
    wei = torch.zeros((T, T))
    wei = wei.masked_fill(tril == 0, float('-inf'))
    wei = F.softmax(wei, dim=-1)
    return wei @ x
"""

HEAD_LECTURE = """\
import torch
import torch.nn as nn
from torch.nn import functional as F

n_embd = 32
block_size = 8
dropout = 0.2

class Head(nn.Module):
    \"\"\" one head of self-attention \"\"\"

    def __init__(self, head_size):
        super().__init__()
        self.key = nn.Linear(n_embd, head_size, bias=False)
        self.query = nn.Linear(n_embd, head_size, bias=False)
        self.value = nn.Linear(n_embd, head_size, bias=False)
        self.register_buffer('tril', torch.tril(torch.ones(block_size, block_size)))
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        B, T, C = x.shape
        k = self.key(x)
        q = self.query(x)
        wei = q @ k.transpose(-2, -1) * k.shape[-1]**-0.5
        wei = wei.masked_fill(self.tril[:T, :T] == 0, float('-inf'))
        wei = F.softmax(wei, dim=-1)
        wei = self.dropout(wei)
        v = self.value(x)
        out = wei @ v
        return out
"""
SCALE = "wei = q @ k.transpose(-2, -1) * k.shape[-1]**-0.5"
MASK = "        wei = wei.masked_fill(self.tril[:T, :T] == 0, float('-inf'))\n"
SOFTMAX = "        wei = F.softmax(wei, dim=-1)\n"

LAYERNORM_LECTURE = """\
import torch

class LayerNorm1d:

  def __init__(self, dim, eps=1e-5, momentum=0.1):
    self.eps = eps
    self.gamma = torch.ones(dim)
    self.beta = torch.zeros(dim)

  def __call__(self, x):
    xmean = x.mean(1, keepdim=True)
    xvar = x.var(1, keepdim=True)
    xhat = (x - xmean) / torch.sqrt(xvar + self.eps)
    self.out = self.gamma * xhat + self.beta
    return self.out

  def parameters(self):
    return [self.gamma, self.beta]

torch.manual_seed(1337)
module = LayerNorm1d(100)
x = torch.randn(32, 100)
x = module(x)
"""
LAYERNORM_MODULE = """\
import torch
import torch.nn as nn

class LayerNorm1d(nn.Module):
    def __init__(self, dim, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.gamma = nn.Parameter(torch.ones(dim))
        self.beta = nn.Parameter(torch.zeros(dim))

    def forward(self, x):
        xmean = x.mean(1, keepdim=True)
        xvar = x.var(1, keepdim=True)
        return self.gamma * (x - xmean) / torch.sqrt(xvar + self.eps) + self.beta
"""


# -- the references and the judge's models ------------------------------------------------------------------
def test_the_lecture_versions_are_the_prefix_mean() -> None:
    x = torch.randn(3, 7, 5)
    expected = torch.stack([x[:, : t + 1].mean(1) for t in range(7)], dim=1)
    for version in (gpt_attention.prefix_mean, gpt_attention.xbow, gpt_attention.xbow2, gpt_attention.xbow3):
        assert torch.allclose(version(x), expected, atol=1e-6), version.__name__


def test_head_model_is_the_reference_head() -> None:
    rng = torch.Generator().manual_seed(0)
    roles = random_roles(rng, 32, 16)
    x = torch.randn(2, 8, 32, generator=rng)
    state = {"key.weight": roles.k, "query.weight": roles.q, "value.weight": roles.v,
             "tril": torch.tril(torch.ones(8, 8))}
    expected = reference_output(gpt_attention.Head, (16, 32, 8, 0.0), state, x)
    assert torch.allclose(gpt_head.attend(x, roles), expected, atol=1e-6)
    assert not torch.allclose(gpt_head.attend(x, roles, "unscaled"), expected, atol=1e-3)


def test_layernorm_models_are_the_reference() -> None:
    x = gpt_layernorm.rows(torch.Generator().manual_seed(0))
    right = gpt_layernorm.accepted(x)
    assert torch.allclose(right["unbiased"], gpt_layernorm.normalise(x), atol=1e-6)
    assert torch.allclose(right["biased"], gpt_layernorm.normalise(x, unbiased=False), atol=1e-6)
    assert not torch.allclose(right["biased"], right["unbiased"], atol=1e-3)


def test_solution_file_gets_full_marks(grade_file: Grade) -> None:
    run = grade_file(SOLUTION, f"{TRICK},{HEAD},{NORM}")
    assert run.full_marks, [(c.id, c.message) for e in run.exercises for c in e.checks if c.status != "passed"]
    assert run.max_score == 18


# -- gpt.trick ---------------------------------------------------------------------------------------------
def test_trick_lecture_cells_pass_though_x_is_rebound(grade_file: Grade) -> None:
    run = grade_file(TRICK_CELLS, TRICK)
    all_passed(run, TRICK)
    c = check(run, TRICK, "matrix")
    assert "from your x of cell 1" in c.message
    assert c.evidence["object"] == {"name": "xbow2", "cell": 3}


def test_trick_functions_are_called_on_a_fresh_x(grade_file: Grade) -> None:
    run = grade_file(TRICK_FUNCTIONS, TRICK)
    all_passed(run, TRICK)
    assert "on a fresh x of shape [4, 8, 2]" in check(run, TRICK, "loop").message


TRICK_BUGS = [
    # (check, old, new, message key, words of the message)
    ("loop", "torch.mean(x[b, :t+1], 0)", "torch.mean(x[b], 0)", "not_causal", "all 8 tokens"),
    ("matrix", "wei = wei / wei.sum(1, keepdim=True)\n    return", "return", "not_normalised", "sum to 1"),
    ("matrix", "wei / wei.sum(1, keepdim=True)", "wei / wei.sum(0, keepdim=True)", "wrong_dim", "wrong dim"),
    ("matrix", "wei = torch.tril(torch.ones(T, T))", "wei = torch.triu(torch.ones(T, T))", "future", "upside down"),
    ("softmax", "wei = wei.masked_fill(tril == 0, float('-inf'))", "wei.masked_fill(tril == 0, float('-inf'))",
     "not_causal", "masked_fill returns a new tensor"),
    ("softmax", "F.softmax(wei, dim=-1)", "F.softmax(wei, dim=0)", "wrong_dim", "dim=-1"),
]


@pytest.mark.parametrize("check_id,old,new,key,words", TRICK_BUGS, ids=[f"{b[0]}-{b[3]}" for b in TRICK_BUGS])
def test_trick_wrong_version_is_named(grade_file: Grade, check_id: str, old: str, new: str, key: str,
                                      words: str) -> None:
    run = grade_file(edit(TRICK_FUNCTIONS, old, new), TRICK)
    c = failed_with(run, TRICK, check_id, f"gpt.trick.{key}")
    assert words in c.message and c.messages["zh"] != c.messages["en"]
    assert c.evidence["expected_shape"] == [4, 8, 2]
    assert {k: v for k, v in statuses(run, TRICK).items() if k != check_id} == {
        k: "passed" for k in statuses(run, TRICK) if k != check_id}


def test_trick_wrong_top_level_version_is_named(grade_file: Grade) -> None:
    run = grade_file(edit(TRICK_CELLS, "xprev = x[b, :t+1]", "xprev = x[b]"), TRICK)
    c = failed_with(run, TRICK, "loop", "gpt.trick.not_causal")
    assert "future leaks into the past" in c.message
    assert statuses(run, TRICK)["matrix"] == statuses(run, TRICK)["softmax"] == "passed"


def test_trick_wrong_shape(grade_file: Grade) -> None:
    run = grade_file(edit(TRICK_FUNCTIONS, "    return wei @ x\n\ndef xbow3", "    return (wei @ x)[..., 0]\n\ndef xbow3"),
                     TRICK)
    c = failed_with(run, TRICK, "matrix", "gpt.trick.shape")
    assert "[4, 8]" in c.message and "[4, 8, 2]" in c.message


def test_trick_missing_version(grade_file: Grade) -> None:
    source = TRICK_CELLS.split("# %%\ntril =")[0]
    run = grade_file(source, TRICK)
    c = failed_with(run, TRICK, "softmax", "check.not_found")
    assert "xbow3" in c.message and "function xbow3(x)" in c.message
    assert statuses(run, TRICK)["loop"] == "passed"


def test_trick_without_its_x(grade_file: Grade) -> None:
    """x rebound to another shape later in the same notebook cell: the version cannot be checked, and the
    message says why. (In a .py file each statement is a cell of its own: the x bound before is found.)"""
    source = """\
import torch
x = torch.randn(4, 8, 2)
wei = torch.tril(torch.ones(8, 8))
wei = wei / wei.sum(1, keepdim=True)
xbow2 = wei @ x
x = torch.randn(4, 8, 32)
"""
    run = grade_file(nbformat.writes(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)])), TRICK,
                     suffix=".ipynb")
    c = failed_with(run, TRICK, "matrix", "gpt.trick.no_x")
    module = grade_file(source, TRICK)
    assert check(module, TRICK, "matrix").status == "passed", check(module, TRICK, "matrix").message
    assert "rebinds x" in c.message and "[4, 8, 2]" in c.message
    assert c.evidence["object"] == {"name": "xbow2", "cell": 1}


def test_trick_degenerate_x(grade_file: Grade) -> None:
    run = grade_file(edit(TRICK_CELLS, "x = torch.randn(B, T, C)\n# %%\nxbow", "x = torch.ones(B, T, C)\n# %%\nxbow"),
                     TRICK)
    c = failed_with(run, TRICK, "loop", "gpt.trick.x_degenerate")
    assert "torch.randn" in c.message


# -- gpt.head ----------------------------------------------------------------------------------------------
def test_head_lecture_passes(grade_file: Grade) -> None:
    run = grade_file(HEAD_LECTURE, HEAD)
    all_passed(run, HEAD)
    assert "Head(16)" in check(run, HEAD, "reference").message
    assert check(run, HEAD, "causal").evidence["matrix"][0] == [1, 0, 0, 0, 0, 0, 0, 0]


def test_head_size_differs_from_n_embd(grade_file: Grade) -> None:
    run = grade_file(edit(HEAD_LECTURE, "n_embd = 32", "n_embd = 16"), HEAD)
    all_passed(run, HEAD)
    assert "Head(8)" in check(run, HEAD, "reference").message


def test_head_unscaled_is_told_kindly(grade_file: Grade) -> None:
    run = grade_file(edit(HEAD_LECTURE, SCALE, "wei = q @ k.transpose(-2, -1)"), HEAD)
    c = failed_with(run, HEAD, "reference", "gpt.head.reference.unscaled")
    assert c.message.startswith("Your head is causal and right except for the scale")
    assert "saturates" in c.message and "k.shape[-1]**-0.5" in c.message
    assert "缩放" in c.messages["zh"]
    assert statuses(run, HEAD)["causal"] == statuses(run, HEAD)["short"] == "passed"


def test_head_scaled_by_n_embd(grade_file: Grade) -> None:
    run = grade_file(edit(HEAD_LECTURE, SCALE, "wei = q @ k.transpose(-2, -1) * C**-0.5"), HEAD)
    c = failed_with(run, HEAD, "reference", "gpt.head.reference.scale_n_embd")
    assert "C**-0.5" in c.message and "n_embd = 32" in c.message and "16**-0.5" in c.message
    assert statuses(run, HEAD)["causal"] == "passed"


def test_head_without_mask_leaks(grade_file: Grade) -> None:
    run = grade_file(edit(HEAD_LECTURE, MASK, ""), HEAD)
    c = failed_with(run, HEAD, "causal", "gpt.head.causal.leak")
    assert c.message.startswith("Output 0 changes when token 1 changes")
    assert "No mask is applied" in c.message
    assert c.evidence["matrix"][0] == [1] * 8 and c.evidence["class"] == "Head"
    r = failed_with(run, HEAD, "reference", "gpt.head.reference.mismatch")
    assert r.evidence["diagnosis"] == "gpt.head.bug.no_mask"


def test_head_mask_after_softmax(grade_file: Grade) -> None:
    source = edit(HEAD_LECTURE, MASK + SOFTMAX,
                  SOFTMAX + "        wei = wei.masked_fill(self.tril[:T, :T] == 0, 0.0)\n")
    run = grade_file(source, HEAD)
    c = failed_with(run, HEAD, "causal", "gpt.head.causal.leak")
    assert "after the softmax" in c.message
    r = failed_with(run, HEAD, "reference", "gpt.head.reference.mismatch")
    assert r.evidence["diagnosis"] == "gpt.head.bug.mask_after_softmax"


def test_head_mask_after_softmax_with_inf(grade_file: Grade) -> None:
    run = grade_file(edit(HEAD_LECTURE, MASK + SOFTMAX, SOFTMAX + MASK), HEAD)
    c = failed_with(run, HEAD, "causal", "gpt.head.causal.not_finite")
    assert "NaN or infinite" in c.message and "-inf" in c.message
    r = failed_with(run, HEAD, "reference", "gpt.head.reference.mismatch")
    assert r.evidence["diagnosis"] == "gpt.head.bug.mask_after_softmax_inf"


def test_head_unsliced_mask(grade_file: Grade) -> None:
    run = grade_file(edit(HEAD_LECTURE, "self.tril[:T, :T] == 0", "self.tril == 0"), HEAD)
    c = failed_with(run, HEAD, "short", "gpt.head.short.raised")
    assert "self.tril[:T, :T]" in c.message and "1 token " in c.message
    assert statuses(run, HEAD)["causal"] == statuses(run, HEAD)["reference"] == "passed"


def test_head_missing(grade_file: Grade) -> None:
    run = grade_file("import torch\n", HEAD)
    for check_id in ("causal", "reference", "short"):
        c = failed_with(run, HEAD, check_id, "check.not_found")
        assert "no class Head" in c.message


def test_head_of_another_signature_is_judged_by_its_instance(grade_file: Grade) -> None:
    source = edit(HEAD_LECTURE, "def __init__(self, head_size):", "def __init__(self, n_embd, head_size):")
    run = grade_file(source + "\nhead = Head(32, 16)\n", HEAD)
    all_passed(run, HEAD)
    assert check(run, HEAD, "reference").evidence["object"]["name"] == "head"  # the statement that built it


# -- gpt.layernorm -----------------------------------------------------------------------------------------
def test_layernorm_lecture_passes(grade_file: Grade) -> None:
    run = grade_file(LAYERNORM_LECTURE, NORM)
    all_passed(run, NORM)
    assert "unbiased variance" in check(run, NORM, "normalised").message


def test_layernorm_biased_variance_is_accepted(grade_file: Grade) -> None:
    run = grade_file(edit(LAYERNORM_LECTURE, "x.var(1, keepdim=True)", "x.var(1, keepdim=True, unbiased=False)"), NORM)
    all_passed(run, NORM)
    assert "as in nn.LayerNorm" in check(run, NORM, "normalised").message


def test_layernorm_over_the_batch_is_batchnorm(grade_file: Grade) -> None:
    source = edit(edit(LAYERNORM_LECTURE, "x.mean(1, keepdim=True)", "x.mean(0, keepdim=True)"),
                  "x.var(1, keepdim=True)", "x.var(0, keepdim=True)")
    run = grade_file(source, NORM)
    c = failed_with(run, NORM, "normalised", "gpt.layernorm.normalised.dim0")
    assert "BatchNorm" in c.message and "x.mean(1, keepdim=True)" in c.message
    failed_with(run, NORM, "eps", "gpt.layernorm.normalised.dim0")  # named again, not blamed on eps
    assert statuses(run, NORM)["affine"] == "passed"  # gamma and beta are judged on its own normalisation


def test_layernorm_without_eps(grade_file: Grade) -> None:
    run = grade_file(edit(LAYERNORM_LECTURE, "torch.sqrt(xvar + self.eps)", "torch.sqrt(xvar)"), NORM)
    c = failed_with(run, NORM, "eps", "gpt.layernorm.eps.no_eps")
    assert "0/0" in c.message and "torch.sqrt(xvar + self.eps)" in c.message
    assert statuses(run, NORM)["normalised"] == statuses(run, NORM)["affine"] == "passed"


def test_layernorm_eps_outside_the_root(grade_file: Grade) -> None:
    run = grade_file(edit(LAYERNORM_LECTURE, "torch.sqrt(xvar + self.eps)", "(torch.sqrt(xvar) + self.eps)"), NORM)
    failed_with(run, NORM, "eps", "gpt.layernorm.eps.outside")


def test_layernorm_ignoring_gamma_and_beta(grade_file: Grade) -> None:
    run = grade_file(edit(LAYERNORM_LECTURE, "self.out = self.gamma * xhat + self.beta", "self.out = xhat"), NORM)
    c = failed_with(run, NORM, "affine", "gpt.layernorm.affine.ignored")
    assert "self.gamma * xhat + self.beta" in c.message
    assert statuses(run, NORM)["normalised"] == "passed"


def test_layernorm_swapping_gamma_and_beta(grade_file: Grade) -> None:
    run = grade_file(edit(LAYERNORM_LECTURE, "self.gamma * xhat + self.beta", "self.beta * xhat + self.gamma"), NORM)
    c = failed_with(run, NORM, "affine", "gpt.layernorm.affine.swapped")
    assert "gamma and beta are swapped" in c.messages["en"] and "self.gamma * xhat + self.beta" in c.messages["en"]
    assert "gamma 和 beta 用反了" in c.messages["zh"] and "self.gamma * xhat + self.beta" in c.messages["zh"]
    failed_with(run, NORM, "eps", "gpt.layernorm.eps.rows_wrong")


def test_layernorm_wrong_initial_gamma(grade_file: Grade) -> None:
    run = grade_file(edit(LAYERNORM_LECTURE, "self.gamma = torch.ones(dim)", "self.gamma = torch.zeros(dim)"), NORM)
    c = failed_with(run, NORM, "affine", "gpt.layernorm.affine.init")
    assert "gamma starts as ones" in c.message


def test_layernorm_as_a_module(grade_file: Grade) -> None:
    run = grade_file(LAYERNORM_MODULE, NORM)
    all_passed(run, NORM)


def test_layernorm_module_ignoring_gamma_and_beta(grade_file: Grade) -> None:
    run = grade_file(edit(LAYERNORM_MODULE, "self.gamma * (x - xmean) / torch.sqrt(xvar + self.eps) + self.beta",
                          "(x - xmean) / torch.sqrt(xvar + self.eps)"), NORM)
    failed_with(run, NORM, "affine", "gpt.layernorm.affine.ignored")


def test_layernorm_missing(grade_file: Grade) -> None:
    run = grade_file("import torch\n", NORM)
    assert "no class LayerNorm1d" in failed_with(run, NORM, "normalised", "check.not_found").message


