"""The causal-mask exercise: correct styles pass, each named bug fails the right checks with the right diagnosis.

The mask checks work by behaviour, not by reading code, so the only way to know they are right is to
run them on many correct styles (tests/corpus/mask_ok_*.py) and on the reference with one known bug
each (tests/corpus/mutations.py). A wrong diagnosis sends a student after the wrong line, so the
named bug (evidence["diagnosis"]) is asserted as exactly as the message key. The judge-side model of
the correct computation is also compared with solutions/chapter3.py, since every diagnosis rests on it.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Callable

import pytest
import torch

from conftest import CORPUS, EXERCISES, SOLUTION, Grade, check, grade, mutant, mutations, statuses
from grader.exercises import mask
from grader.exercises._attention import book_state, random_roles, reference_output
from grader.messages import catalogue
from grader.results import RunResult
from grader.solutions import chapter3

CHECKS = ("causal", "first_token", "short", "normalised", "finite", "reference")
OK_KEYS = {
    "causal": "mask.causal.ok",
    "first_token": "mask.first.ok",
    "short": "mask.short.ok",
    "normalised": "mask.normalised.ok",
    "finite": "mask.finite.ok",
    "reference": "mask.reference.ok",
}
OK_FILES = sorted(CORPUS.glob("mask_ok_*.py"))


def _diag(bug: str) -> str:
    return f"mask.bug.{bug}"


# bug -> {failing check: (message_key, evidence["diagnosis"] or None)}; every other check must pass.
BUG_FAILURES: dict[str, dict[str, tuple[str, str | None]]] = {
    "diagonal_zero": {
        "first_token": ("mask.first.nan", _diag("diagonal_zero")),
        "normalised": ("mask.normalised.wrong", _diag("diagonal_zero")),
        "finite": ("mask.finite.wrong", _diag("diagonal_zero")),
        "reference": ("mask.reference.mismatch", _diag("diagonal_zero")),
    },
    "inverted_mask": {
        "causal": ("mask.causal.leak", _diag("inverted_mask")),
        "first_token": ("mask.first.leak", _diag("inverted_mask")),
        "reference": ("mask.reference.mismatch", _diag("inverted_mask")),
    },
    "mask_not_applied": {
        "causal": ("mask.causal.leak", _diag("mask_not_applied")),
        "first_token": ("mask.first.leak", _diag("mask_not_applied")),
        "reference": ("mask.reference.mismatch", _diag("mask_not_applied")),
    },
    "softmax_wrong_dim": {
        "causal": ("mask.causal.leak", _diag("softmax_wrong_dim")),
        "first_token": ("mask.first.leak", _diag("softmax_wrong_dim")),
        "normalised": ("mask.normalised.wrong", _diag("softmax_wrong_dim")),
        "reference": ("mask.reference.mismatch", _diag("softmax_wrong_dim")),
    },
    "mask_after_softmax_no_renorm": {
        "causal": ("mask.causal.leak", _diag("mask_after_softmax_no_renorm")),
        "first_token": ("mask.first.leak", _diag("mask_after_softmax_no_renorm")),
        "normalised": ("mask.normalised.wrong", _diag("mask_after_softmax_no_renorm")),
        "reference": ("mask.reference.mismatch", _diag("mask_after_softmax_no_renorm")),
    },
    "no_scaling": {"reference": ("mask.reference.mismatch", _diag("no_scaling"))},
    "scale_by_d_out": {"reference": ("mask.reference.mismatch", _diag("scale_by_d_out"))},
    # Without the split transpose, MultiHeadAttention cannot run 8 tokens at all; only the reference
    # check's num_heads-token input runs, and it names the bug.
    "no_split_transpose": {
        "causal": ("check.raised", None),
        "first_token": ("check.raised", None),
        "short": ("check.raised", None),
        "normalised": ("check.raised", None),
        "finite": ("check.raised", None),
        "reference": ("mask.reference.mismatch", _diag("no_split_transpose")),
    },
    "no_merge_transpose": {
        "causal": ("mask.causal.leak", _diag("no_merge_transpose")),
        "first_token": ("mask.first.leak", _diag("no_merge_transpose")),
        "normalised": ("mask.normalised.wrong", _diag("no_merge_transpose")),
        "reference": ("mask.reference.mismatch", _diag("no_merge_transpose")),
    },
    "mask_not_sliced": {
        "short": ("mask.short.raised", None),
        "reference": ("check.raised", None),  # its first input is shorter than the context too
    },
    # keys @ queries.T: still causal and normalised, only the values are wrong
    "query_key_swapped": {"reference": ("mask.reference.mismatch", _diag("query_key_swapped"))},
    # MultiHeadAttention's softmax over the heads: NaN wherever a row of scores holds -inf. A short sequence
    # still works: its first outputs are NaN on the whole sequence, which `finite` charges, not `short`.
    "softmax_heads_dim": {
        "first_token": ("mask.first.nan", _diag("softmax_heads_dim")),
        "normalised": ("mask.normalised.wrong", _diag("softmax_heads_dim")),
        "finite": ("mask.finite.wrong", _diag("softmax_heads_dim")),
        "reference": ("mask.reference.mismatch", _diag("softmax_heads_dim")),
    },
    "mask_shifted": {
        "causal": ("mask.causal.leak", _diag("mask_shifted")),
        "first_token": ("mask.first.leak", _diag("mask_shifted")),
        "reference": ("mask.reference.mismatch", _diag("mask_shifted")),
    },
    # the scale changes with the length: the first tokens alone give other outputs, and the mask is sliced
    "scale_by_tokens": {
        "short": ("mask.short.unsliced", _diag("scale_by_tokens")),
        "reference": ("mask.reference.mismatch", _diag("scale_by_tokens")),
    },
}


@pytest.fixture(scope="module")
def graded_bug(launcher, tmp_path_factory) -> Callable[[str], RunResult]:
    """Grade each mutant once for the whole module (the mask exercise only)."""
    cache: dict[str, RunResult] = {}

    def run(bug: str) -> RunResult:
        if bug not in cache:
            path = tmp_path_factory.mktemp(bug) / "submission.py"
            path.write_text(mutant(mutations.MASK_BUGS, bug), encoding="utf-8")
            cache[bug] = grade(path, [EXERCISES["mask"]], launcher, seed=0)
        return cache[bug]

    return run


def only_classes(*names: str) -> str:
    """The reference module cut down to the named classes."""
    src = SOLUTION.read_text(encoding="utf-8")
    tree = ast.parse(src)
    parts = [ast.get_source_segment(src, n) for n in tree.body if isinstance(n, ast.ClassDef) and n.name in names]
    assert len(parts) == len(names)
    return "import torch\nimport torch.nn as nn\n\n\n" + "\n\n\n".join(parts) + "\n"  # type: ignore[arg-type]


# -- correct styles ------------------------------------------------------------------------------------
def test_corpus_has_mask_styles() -> None:
    assert len(OK_FILES) >= 11


@pytest.mark.parametrize("path", OK_FILES, ids=lambda p: p.stem)
def test_correct_style_passes_every_mask_check(grade_file: Grade, path: Path) -> None:
    run = grade_file(path, "mask")
    got = {c.id: (c.status, c.message_key) for e in run.exercises for c in e.checks}
    assert got == {cid: ("passed", key) for cid, key in OK_KEYS.items()}


# -- named bugs ----------------------------------------------------------------------------------------
def test_every_mask_bug_has_expectations() -> None:
    assert {bug for bug, _, _ in mutations.MASK_BUGS} == set(BUG_FAILURES)


@pytest.mark.parametrize("bug", list(BUG_FAILURES))
def test_bug_fails_exactly_its_checks(graded_bug: Callable[[str], RunResult], bug: str) -> None:
    run = graded_bug(bug)
    expected = BUG_FAILURES[bug]
    assert {cid for cid, s in statuses(run, "mask").items() if s != "passed"} == set(expected)
    for cid in CHECKS:
        result = check(run, "mask", cid)
        if cid in expected:
            key, diagnosis = expected[cid]
            assert (result.status, result.message_key) == ("failed", key), result.message
            assert result.evidence.get("diagnosis") == diagnosis, result.message
        else:
            assert (result.status, result.message_key) == ("passed", OK_KEYS[cid])


# bug -> words that name the mistake, in the message a student reads in each language
NAMED: dict[str, dict[str, tuple[str, ...]]] = {
    "diagonal_zero": {"en": ("hides each token from itself", "diagonal=1"), "zh": ("对自身也遮住", "diagonal=1")},
    "inverted_mask": {"en": ("The mask is inverted",), "zh": ("掩码反了",)},
    "mask_not_applied": {"en": ("The mask is not applied", "masked_fill_"),
                         "zh": ("掩码没有生效", "masked_fill_")},
    "softmax_wrong_dim": {"en": ("softmax runs over the wrong dim", "dim=-1"),
                          "zh": ("softmax 的维度不对", "dim=-1")},
    "no_scaling": {"en": ("not scaled", "keys.shape[-1]**0.5"), "zh": ("没有缩放", "keys.shape[-1]**0.5")},
    "scale_by_d_out": {"en": ("scaled by sqrt(d_out)", "sqrt(head_dim)"),
                       "zh": ("除以了 sqrt(d_out)", "sqrt(head_dim)")},
    "no_split_transpose": {"en": ("After .view(b, num_tokens, num_heads, head_dim)", ".transpose(1, 2)"),
                           "zh": (".view(b, num_tokens, num_heads, head_dim) 之后", ".transpose(1, 2)")},
    "no_merge_transpose": {"en": ("Merging the heads needs .transpose(1, 2)",),
                           "zh": ("合并各头时", ".transpose(1, 2)")},
    "mask_after_softmax_no_renorm": {"en": ("applied after the softmax without renormalising",),
                                     "zh": ("softmax 之后应用却没有重新归一化",)},
    "query_key_swapped": {"en": ("queries and keys are swapped",), "zh": ("queries 和 keys 互换了",)},
    # named as CausalAttention's wrong dim is, and which dim it took
    "softmax_heads_dim": {"en": ("softmax runs over the wrong dim", "dim=1", "is the heads", "dim=-1"),
                          "zh": ("softmax 的维度不对", "dim=1 是头的维度", "dim=-1")},
    "mask_shifted": {"en": ("shifted by a row", "sees the next one", "diagonal=1"),
                     "zh": ("错开了一行", "下一个 Token", "diagonal=1")},
    "scale_by_tokens": {"en": ("scaled by the number of tokens", "keys.shape[-1]**0.5"),
                        "zh": ("Token 数量的平方根", "keys.shape[-1]**0.5")},
}


def test_every_diagnosed_bug_has_its_words() -> None:
    assert set(NAMED) == {bug for bug, failures in BUG_FAILURES.items() if any(d for _, d in failures.values())}


@pytest.mark.parametrize("bug", list(NAMED))
def test_the_message_names_the_mistake_in_both_languages(graded_bug: Callable[[str], RunResult], bug: str) -> None:
    """What a student reads, not only the key: each check that diagnoses the bug says which mistake it is,
    in English and in Chinese, in the words of the catalogue's diagnosis."""
    run = graded_bug(bug)
    diagnosed = [cid for cid, (_, diagnosis) in BUG_FAILURES[bug].items() if diagnosis]
    assert diagnosed
    for cid in diagnosed:
        result = check(run, "mask", cid)
        for lang, words in NAMED[bug].items():
            assert catalogue.text(_diag(bug), lang) in result.messages[lang], (cid, lang, result.messages[lang])
            for word in words:
                assert word in result.messages[lang], (cid, lang, word, result.messages[lang])


@pytest.mark.parametrize("bug", ["scale_by_d_out", "no_split_transpose", "no_merge_transpose",
                                 "softmax_heads_dim"])
def test_mha_only_bug_is_reported_on_multi_head_attention(graded_bug, bug: str) -> None:
    result = check(graded_bug(bug), "mask", "reference")
    assert result.evidence["class"] == "MultiHeadAttention"
    assert result.message.startswith("MultiHeadAttention:")


def test_diagnosis_is_rendered_into_the_message(graded_bug) -> None:
    result = check(graded_bug("no_scaling"), "mask", "reference")
    assert "keys.shape[-1]**0.5" in result.message


def test_unsliced_mask_is_told_to_slice(graded_bug) -> None:
    result = check(graded_bug("mask_not_sliced"), "mask", "short")
    assert "Slice the mask" in result.message
    assert "[:num_tokens, :num_tokens]" in result.message
    assert check(graded_bug("mask_not_sliced"), "mask", "causal").status == "passed"


SLICE = "mask_bool = self.mask.bool()[:num_tokens, :num_tokens]"


@pytest.mark.parametrize("wrong, key", [
    # the top-right corner: right on the whole context, too much hidden on fewer tokens (all of row 0)
    ("mask_bool = self.mask.bool()[:num_tokens, -num_tokens:]", "mask.short.unsliced"),
    # one entry, not a slice: nothing hidden on fewer tokens, an IndexError on the whole context
    ("mask_bool = self.mask.bool()[num_tokens, num_tokens]", "mask.short.raised"),
])
def test_a_mask_not_cut_to_the_sequence_fails_short(grade_file: Grade, wrong: str, key: str) -> None:
    """Shapes are not enough: the first tokens of a sequence, run alone, must give the first outputs of the
    whole sequence, and every length up to the context must run."""
    result = check(grade_file(only_classes("CausalAttention").replace(SLICE, wrong), "mask"), "mask", "short")
    assert (result.status, result.message_key) == ("failed", key), result.message
    assert "self.mask.bool()[:num_tokens, :num_tokens]" in result.message


UPPER_WITH_DIAGONAL = [[int(j >= i) for j in range(mask.CONTEXT)] for i in range(mask.CONTEXT)]
ALL_ONES = [[1] * mask.CONTEXT for _ in range(mask.CONTEXT)]


@pytest.mark.parametrize("bug, matrix", [
    ("inverted_mask", UPPER_WITH_DIAGONAL),  # each token sees itself and the future only
    ("mask_not_applied", ALL_ONES),
])
def test_leak_matrix_is_measured_visibility(graded_bug, bug: str, matrix: list[list[int]]) -> None:
    assert check(graded_bug(bug), "mask", "causal").evidence["matrix"] == matrix


@pytest.mark.parametrize("bug", [b for b, fails in BUG_FAILURES.items()
                                 if fails.get("causal", ("",))[0] == "mask.causal.leak"])
def test_leak_message_names_the_first_future_position(graded_bug, bug: str) -> None:
    result = check(graded_bug(bug), "mask", "causal")
    matrix = result.evidence["matrix"]
    n = mask.CONTEXT
    leaks = [(i, j) for i in range(n) for j in range(i + 1, n) if matrix[i][j] == 1]
    assert leaks, "a leak must show as a 1 above the diagonal"
    i, j = map(int, re.search(r"output (\d+) changes when token (\d+)", result.message).groups())  # type: ignore[union-attr]
    assert (i, j) == leaks[0]
    assert f"({len(leaks)} of {n * (n - 1) // 2} future positions leak)" in result.message


# -- which classes are graded ------------------------------------------------------------------------
def test_causal_attention_alone_is_graded_on_that_class(grade_file: Grade) -> None:
    run = grade_file(only_classes("CausalAttention"), "mask")
    got = {c.id: (c.status, c.message_key) for e in run.exercises for c in e.checks}
    assert got == {cid: ("passed", key) for cid, key in OK_KEYS.items()}
    for cid in ("causal", "first_token", "normalised", "finite", "reference"):
        message = check(run, "mask", cid).message
        assert "(CausalAttention)" in message and "MultiHead" not in message


def test_buggy_causal_attention_alone_is_diagnosed(grade_file: Grade) -> None:
    src = only_classes("CausalAttention").replace("diagonal=1)", "diagonal=0)")
    result = check(grade_file(src, "mask"), "mask", "finite")
    assert (result.status, result.message_key) == ("failed", "mask.finite.wrong")
    assert result.evidence["class"] == "CausalAttention"
    assert result.evidence["diagnosis"] == "mask.bug.diagonal_zero"


def test_a_check_that_runs_other_lengths_builds_its_own_instance(grade_file: Grade) -> None:
    """The checks that run the context length share one instance per class; "short" and "reference"
    build their own. A class that refuses a sequence shorter than one it has seen runs fine from a fresh
    start, shortest first, and must be judged so, whatever length another check ran first."""
    line = "mask_bool = self.mask.bool()[:num_tokens, :num_tokens]"
    guard = ("assert num_tokens >= getattr(self, 'longest', 0), 'shorter than before'\n"
             "        self.longest = num_tokens\n        " + line)
    src = only_classes("CausalAttention").replace(line, guard)
    assert guard in src
    got = {c.id: c.status for e in grade_file(src, "mask").exercises for c in e.checks}
    assert got == dict.fromkeys(CHECKS, "passed")


def test_no_causal_class_is_not_found(grade_file: Grade) -> None:
    run = grade_file(only_classes("SelfAttention_v1", "SelfAttention_v2"), "mask")
    for cid in CHECKS:
        result = check(run, "mask", cid)
        assert (result.status, result.message_key) == ("failed", "check.not_found")
        assert "no CausalAttention, MultiHeadAttentionWrapper or MultiHeadAttention class" in result.message


# -- the judge-side model (no sandbox) -----------------------------------------------------------------
@pytest.mark.parametrize("name, args, num_heads, bias", [
    ("CausalAttention", (5, 4, 8, 0.0), 1, False),
    ("CausalAttention", (5, 4, 8, 0.0, True), 1, True),
    ("MultiHeadAttention", (5, 8, 8, 0.0, 2), 2, False),
    ("MultiHeadAttention", (6, 12, 8, 0.0, 4), 4, False),
    ("MultiHeadAttention", (6, 12, 8, 0.0, 3, True), 3, True),
])
@pytest.mark.parametrize("tokens", [1, 3, 8])
def test_attend_without_bug_equals_reference(name: str, args: tuple, num_heads: int, bias: bool,
                                             tokens: int) -> None:
    rng = torch.Generator().manual_seed(tokens)
    d_in, d_out = args[0], args[1]
    roles = random_roles(rng, d_in, d_out, bias=bias, out_proj=name == "MultiHeadAttention")
    x = torch.randn(2, tokens, d_in, generator=rng)
    expected = reference_output(getattr(chapter3, name), args, book_state(roles), x)
    torch.testing.assert_close(mask.attend(x, roles, num_heads, None), expected)
