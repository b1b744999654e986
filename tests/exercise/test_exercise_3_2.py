"""Exercise 3.2 (two heads, 2-dim context vectors via d_out=1): the answer and concat checks pass the
reference and fail each named wrong answer with a message that names the mistake; a book-style
answer is found by the object it built even after its name is rebound."""
from __future__ import annotations

import pytest

from conftest import CORPUS, SOLUTION, Grade, check, mutant, mutations, statuses

CAT = "return torch.cat([head(x) for head in self.heads], dim=-1)"


def test_reference_passes(grade_file: Grade) -> None:
    assert statuses(grade_file(SOLUTION, "3.2"), "3.2") == {"answer": "passed", "concat": "passed"}


@pytest.mark.parametrize("bug, key, named", [
    ("changed_num_heads", "3.2.answer.changed_heads", "has 1 head: the exercise keeps num_heads=2"),
    ("four_dim", "3.2.answer.wrong_width", "gives 4-dim context vectors"),
])
def test_wrapper_bug_is_named(grade_file: Grade, bug: str, key: str, named: str) -> None:
    run = grade_file(mutant(mutations.WRAPPER_BUGS, bug), "3.2")
    c = check(run, "3.2", "answer")
    assert (c.status, c.message_key) == ("failed", key)
    assert named in c.message
    assert check(run, "3.2", "concat").status == "passed"  # the class is untouched


def test_concat_on_wrong_dim_fails(grade_file: Grade) -> None:
    source = mutations.apply(SOLUTION.read_text(encoding="utf-8"), CAT, CAT.replace("dim=-1", "dim=1"))
    c = check(grade_file(source, "3.2"), "3.2", "concat")
    assert (c.status, c.message_key) == ("failed", "3.2.concat.mismatch")
    assert "torch.cat(..., dim=-1)" in c.message


def test_book_style_answer_found_though_name_rebound(grade_file: Grade) -> None:
    # book_style.py binds mha to the 3.2 wrapper, then rebinds mha to the 3.3 MultiHeadAttention
    run = grade_file(CORPUS / "book_style.py", "3.2")
    answer = check(run, "3.2", "answer")
    assert (answer.status, answer.message_key) == ("passed", "3.2.answer.ok")
    assert "mha keeps 2 heads" in answer.message and "[2, 6, 2]" in answer.message
    assert check(run, "3.2", "concat").status == "passed"


def test_heads_that_cannot_be_matched_fail_answer(grade_file: Grade) -> None:
    """A wrapper of the right shape whose heads' weights match no role, by name or by what they do (here
    each head skips the softmax), is not shown to be two attention heads: `answer` fails. Its
    concatenation is still right: `concat` judges the wrapper against its own heads, whatever they compute."""
    source = SOLUTION.read_text(encoding="utf-8")
    for old, new in (("W_query", "a"), ("W_key", "b"), ("W_value", "c")):
        source = source.replace(old, new)
    tail = "\n        attn_weights = self.dropout(attn_weights)\n\n        context_vec = attn_weights @ values\n"
    softmax = "        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)"
    source = mutations.apply(source, softmax + tail, "        attn_weights = attn_scores / keys.shape[-1]**0.5" + tail)
    run = grade_file(source, "3.2")
    c = check(run, "3.2", "answer")
    assert (c.status, c.message_key) == ("failed", "3.2.answer.unmapped"), c.message
    assert "could not be matched" in c.message and c.messages["zh"]
    assert check(run, "3.2", "concat").message_key == "3.2.concat.ok"


def test_concat_is_judged_against_the_wrappers_own_heads(grade_file: Grade) -> None:
    """Heads that skip the softmax are the mask exercise's to charge: concatenating them is still right.
    Concatenating them in the other order is not, and the message quotes no size the student never wrote."""
    source = mutations.apply(SOLUTION.read_text(encoding="utf-8"),
                             "        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)\n"
                             "        attn_weights = self.dropout(attn_weights)\n\n        context_vec = attn_weights @ values\n",
                             "        attn_weights = attn_scores\n        context_vec = attn_weights @ values\n")
    assert check(grade_file(source, "3.2"), "3.2", "concat").message_key == "3.2.concat.ok"
    reversed_heads = mutations.apply(SOLUTION.read_text(encoding="utf-8"), CAT, CAT.replace("self.heads]", "self.heads[::-1]]"))
    c = check(grade_file(reversed_heads, "3.2"), "3.2", "concat")
    assert (c.status, c.message_key) == ("failed", "3.2.concat.mismatch")
    assert "not its own heads' outputs concatenated" in c.message
    assert "d_in" not in c.message and "d_out" not in c.message
