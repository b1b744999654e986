"""Exercise 3.1 (transfer v2's nn.Linear weights into v1): each check passes the reference and
fails each named wrong answer with a message that names the mistake, for a template-style
transfer_weights function and for a book-style notebook with top-level sa_v1/sa_v2 objects."""
from __future__ import annotations

import pytest

from conftest import CORPUS, SOLUTION, Grade, check, mutant, mutations, statuses
from grader.exercises import exercise_3_1

# Book-style answer up to its 3.1 cell (3.2 and 3.3 are not needed here).
BOOK = (CORPUS / "book_style.py").read_text(encoding="utf-8").split("# %% Exercise 3.2")[0]
# Only the two SelfAttention classes: no transfer_weights, no objects.
CLASSES_ONLY = SOLUTION.read_text(encoding="utf-8").split("class CausalAttention")[0]
# SelfAttention_v2.forward without the division by sqrt(d_out) (the text is unique to v2).
V2_SCALED = ("        values = self.W_value(x)\n        attn_scores = queries @ keys.T\n"
             "        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)\n")


def test_reference_passes(grade_file: Grade) -> None:
    run = grade_file(SOLUTION, "3.1")
    assert statuses(run, "3.1") == {"agree": "passed", "parameters": "passed", "classes": "passed"}


@pytest.mark.parametrize("bug, agree_key, params_key, named", [
    ("missing_transpose", "3.1.agree.raised", "3.1.parameters.wrong", "W_query holds sa_v2.W_query.weight without .T"),
    ("value_not_moved", "3.1.agree.mismatch", "3.1.parameters.wrong", "W_value was not moved"),
    ("query_key_swapped", "3.1.agree.mismatch", "3.1.parameters.wrong", "the query and key matrices are swapped"),
    # transfer_weights itself raises (TypeError): both checks say so and name the plain tensor
    ("plain_tensor", "3.1.transfer.raised", "3.1.transfer.raised", "W_query was given a plain tensor"),
    ("nothing_transferred", "3.1.agree.mismatch", "3.1.parameters.wrong", "No weight was transferred"),
])
def test_transfer_bug_is_named(grade_file: Grade, bug: str, agree_key: str, params_key: str, named: str) -> None:
    run = grade_file(mutant(mutations.SA_BUGS, bug), "3.1")
    agree, params = check(run, "3.1", "agree"), check(run, "3.1", "parameters")
    assert (agree.status, agree.message_key) == ("failed", agree_key)
    assert named in agree.message
    assert (params.status, params.message_key) == ("failed", params_key)
    assert named in params.message
    assert check(run, "3.1", "classes").status == "passed"  # the classes themselves are right


def test_the_transfer_runs_once_for_both_checks(grade_file: Grade) -> None:
    """"agree" and "parameters" judge the same transferred pairs: one call per shape, not per check."""
    source = mutations.apply(SOLUTION.read_text(encoding="utf-8"), "def transfer_weights(sa_v1, sa_v2):",
                             "def transfer_weights(sa_v1, sa_v2):\n    print('transferred')")
    run = grade_file(source, "3.1")
    assert set(statuses(run, "3.1").values()) == {"passed"}
    assert run.output_tail.count("transferred") == len(exercise_3_1.SHAPES)


def test_book_style_transfer_passes(grade_file: Grade) -> None:
    run = grade_file(CORPUS / "book_style.py", "3.1")
    assert set(statuses(run, "3.1").values()) == {"passed"}


def test_book_style_square_missing_transpose_is_named(grade_file: Grade) -> None:
    # d_in == d_out: without .T nothing crashes, the outputs are just wrong
    source = mutations.apply(BOOK, "d_in, d_out = 3, 2", "d_in, d_out = 3, 3").replace(".weight.T)", ".weight)")
    run = grade_file(source, "3.1")
    agree, params = check(run, "3.1", "agree"), check(run, "3.1", "parameters")
    assert (agree.status, agree.message_key) == ("failed", "3.1.agree.mismatch")
    assert (params.status, params.message_key) == ("failed", "3.1.parameters.wrong")
    for c in (agree, params):
        assert "without .T" in c.message and "W_query" in c.message


def test_book_style_plain_tensor_is_named(grade_file: Grade) -> None:
    source = mutations.apply(BOOK, "torch.nn.Parameter(sa_v2.W_query.weight.T)", "sa_v2.W_query.weight.T")
    run = grade_file(source, "3.1")
    assert any(r.status == "raised" and (r.error or {}).get("type") == "TypeError" for r in run.cells)
    for check_id in ("agree", "parameters"):
        c = check(run, "3.1", check_id)
        assert c.status == "failed"
        assert "W_query was given a plain tensor" in c.message and "torch.nn.Parameter(" in c.message
    assert check(run, "3.1", "parameters").message_key == "3.1.parameters.wrong"


def test_class_without_scaling_fails_classes(grade_file: Grade) -> None:
    source = mutations.apply(SOLUTION.read_text(encoding="utf-8"), V2_SCALED,
                             V2_SCALED.replace(" / keys.shape[-1]**0.5", ""))
    c = check(grade_file(source, "3.1"), "3.1", "classes")
    assert (c.status, c.message_key) == ("failed", "3.1.classes.mismatch")
    assert "SelfAttention_v2" in c.message and "sqrt(d_out)" in c.message


def test_no_transfer_and_no_objects_is_not_found(grade_file: Grade) -> None:
    run = grade_file(CLASSES_ONLY, "3.1")
    for check_id in ("agree", "parameters"):
        c = check(run, "3.1", check_id)
        assert (c.status, c.message_key) == ("failed", "check.not_found")
        assert "transfer_weights(sa_v1, sa_v2)" in c.message
    assert check(run, "3.1", "classes").status == "passed"


def test_self_attention_model_is_the_reference() -> None:
    """The judge-side model that finds a v2's roles by what its weights do (exercise_3_1.self_attention)
    computes what solutions/ SelfAttention_v2 computes."""
    import torch

    from grader.exercises._attention import book_state, random_roles

    rng = torch.Generator().manual_seed(0)
    for d_in, d_out, bias in ((3, 2, False), (4, 4, True)):
        roles = random_roles(rng, d_in, d_out, bias=bias)
        x = torch.randn(6, d_in, generator=rng)
        expected = exercise_3_1.reference(x, roles)
        assert torch.allclose(exercise_3_1.self_attention(x, [roles]), expected, atol=1e-6)
        assert set(book_state(roles)) == {f"W_{r}.{p}" for r in ("query", "key", "value")
                                          for p in (("weight", "bias") if bias else ("weight",))}


def test_unusual_weight_names_are_matched_by_what_they_do(grade_file: Grade) -> None:
    """SelfAttention_v1/v2 whose matrices are named a, b, c (in no role's order) still compute the
    reference attention: `classes` finds each role by behaviour; one computing something else fails it."""
    renamed = CLASSES_ONLY
    for old, new in (("W_query", "c"), ("W_key", "a"), ("W_value", "b")):
        renamed = renamed.replace(old, new)
    assert check(grade_file(renamed, "3.1"), "3.1", "classes").status == "passed"
    unscaled = renamed.replace("attn_scores / keys.shape[-1]**0.5", "attn_scores")
    c = check(grade_file(unscaled, "3.1"), "3.1", "classes")
    assert (c.status, c.message_key) == ("failed", "3.1.classes.unmapped")


LOWER = (CORPUS / "lower_case_weights.py").read_text(encoding="utf-8")
# SelfAttention_v1's three matrices under names that say nothing (v2 keeps w_query ...), in no role's order.
V1_UNNAMED = [("self.w_query = nn.Parameter", "self.c = nn.Parameter"), ("x @ self.w_query", "x @ self.c"),
              ("self.w_key = nn.Parameter", "self.a = nn.Parameter"), ("x @ self.w_key", "x @ self.a"),
              ("self.w_value = nn.Parameter", "self.b = nn.Parameter"), ("x @ self.w_value", "x @ self.b"),
              ("sa_v1.w_query =", "sa_v1.c ="), ("sa_v1.w_key =", "sa_v1.a ="), ("sa_v1.w_value =", "sa_v1.b =")]


def _edited(source: str, edits: list[tuple[str, str]]) -> str:
    for old, new in edits:
        source = mutations.apply(source, old, new)
    return source


@pytest.mark.parametrize("source", [LOWER, _edited(LOWER, V1_UNNAMED)], ids=["lower_case", "v1_unnamed"])
def test_the_mapping_is_judged_whatever_the_weights_are_called(grade_file: Grade, source: str) -> None:
    """`parameters` asks whether v1's three matrices hold v2's weights transposed, found by their names
    (w_query as well as W_query) or, where the names say nothing, by what each does in v1's class."""
    run = grade_file(source, "3.1")
    assert statuses(run, "3.1") == {"agree": "passed", "parameters": "passed", "classes": "passed"}
    assert check(run, "3.1", "parameters").message_key == "3.1.parameters.ok"


@pytest.mark.parametrize("edits, named", [
    ([(".weight.T)", ".weight)")], "w_query holds sa_v2.w_query.weight without .T"),
    ([("sa_v1.w_query = nn.Parameter(sa_v2.w_query", "sa_v1.w_query = nn.Parameter(sa_v2.w_key"),
      ("sa_v1.w_key = nn.Parameter(sa_v2.w_key", "sa_v1.w_key = nn.Parameter(sa_v2.w_query")],
     "w_query holds sa_v2.w_key.weight.T: the query and key matrices are swapped"),
    (V1_UNNAMED + [("sa_v1.b = nn.Parameter(sa_v2.w_value.weight.T)", "sa_v1.b = nn.Parameter(sa_v2.w_key.weight.T)")],
     "b holds sa_v2.w_key.weight.T instead of sa_v2.w_value.weight.T"),
])
def test_a_wrong_mapping_is_told_in_the_students_names(grade_file: Grade, edits: list[tuple[str, str]],
                                                        named: str) -> None:
    params = check(grade_file(_edited(LOWER, edits), "3.1"), "3.1", "parameters")
    assert (params.status, params.message_key) == ("failed", "3.1.parameters.wrong")
    assert named in params.message and "W_query" not in params.message


def test_nothing_transferred_is_said_so(grade_file: Grade) -> None:
    """A transfer that moves nothing is not "W_query was not moved": no weight was, and the message says
    how to move the first one, in the student's names."""
    run = grade_file(mutant(mutations.SA_BUGS, "nothing_transferred"), "3.1")
    params = check(run, "3.1", "parameters")
    assert "No weight was transferred: v1's matrices (W_query, W_key, W_value)" in params.message
    assert "sa_v1.W_query = torch.nn.Parameter(sa_v2.W_query.weight.T)" in params.message
    assert "was not moved" not in params.message and "没有转移任何权重" in params.messages["zh"]
