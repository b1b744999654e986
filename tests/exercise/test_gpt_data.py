"""The `gpt` set's first four exercises (tokenizer, split, batch, bigram): the lecture's code with its
split fixed, and a differently written answer, get full marks on every seed; each named wrong answer
fails its check with the message that names the mistake."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import Grade, check, statuses
from grader.results import RunResult

EXERCISES = "gpt.tokenizer,gpt.split,gpt.batch,gpt.bigram"
IDS = EXERCISES.split(",")

# The lecture's cells, with the split's bug fixed (val_data = data[n:]).
LECTURE = """\
# %%
with open('input.txt', 'r', encoding='utf-8') as f:
    text = f.read()

# %%
chars = sorted(list(set(text)))
vocab_size = len(chars)
stoi = { ch: i for i, ch in enumerate(chars) }
itos = { i: ch for i, ch in enumerate(chars) }
encode = lambda s: [stoi[c] for c in s]
decode = lambda l: ''.join([itos[i] for i in l])

# %%
import torch
data = torch.tensor(encode(text), dtype=torch.long)
n = int(0.9*len(data))
train_data = data[:n]
val_data = data[n:]

# %%
torch.manual_seed(1337)
batch_size = 4
block_size = 8

def get_batch(split):
    data = train_data if split == 'train' else val_data
    ix = torch.randint(len(data) - block_size, (batch_size,))
    x = torch.stack([data[i:i+block_size] for i in ix])
    y = torch.stack([data[i+1:i+block_size+1] for i in ix])
    return x, y

xb, yb = get_batch('train')

# %%
import torch.nn as nn
from torch.nn import functional as F

class BigramLanguageModel(nn.Module):
    def __init__(self, vocab_size):
        super().__init__()
        self.token_embedding_table = nn.Embedding(vocab_size, vocab_size)

    def forward(self, idx, targets=None):
        logits = self.token_embedding_table(idx)
        if targets is None:
            loss = None
        else:
            B, T, C = logits.shape
            logits = logits.view(B*T, C)
            targets = targets.view(B*T)
            loss = F.cross_entropy(logits, targets)
        return logits, loss

    def generate(self, idx, max_new_tokens):
        for _ in range(max_new_tokens):
            logits, loss = self(idx)
            logits = logits[:, -1, :]
            probs = F.softmax(logits, dim=-1)
            idx_next = torch.multinomial(probs, num_samples=1)
            idx = torch.cat((idx, idx_next), dim=1)
        return idx

m = BigramLanguageModel(vocab_size)
logits, loss = m(xb, yb)
print(decode(m.generate(torch.zeros((1, 1), dtype=torch.long), max_new_tokens=20)[0].tolist()))
"""

# The same answers written otherwise: def functions over dict comprehensions, the vocabulary as a
# string, a tuple split, get_batch by advanced indexing, logits kept (B, T, C) and flattened for the loss.
STYLED = """\
# %%
from pathlib import Path

import torch
import torch.nn as nn
import torch.nn.functional as F

text = Path("input.txt").read_text(encoding="utf-8")
chars = "".join(sorted(set(text)))
vocab_size = len(chars)
char_to_id = {c: i for i, c in enumerate(chars)}
id_to_char = dict(enumerate(chars))


def encode(s):
    return [char_to_id[c] for c in s]


def decode(ids):
    return "".join(id_to_char[i] for i in ids)


# %%
data = torch.tensor(encode(text))
cut = int(len(data) * 0.9)
train_data, val_data = data[:cut], data[cut:]

# %%
batch_size, block_size = 6, 10
splits = {"train": train_data, "val": val_data}


def get_batch(split):
    source = splits[split]
    starts = torch.randint(0, len(source) - block_size, (batch_size, 1))
    positions = starts + torch.arange(block_size)
    return source[positions], source[positions + 1]


# %%
class BigramLanguageModel(nn.Module):
    def __init__(self, vocab_size):
        super().__init__()
        self.table = nn.Embedding(vocab_size, vocab_size)

    def forward(self, idx, targets=None):
        logits = self.table(idx)
        loss = None if targets is None else F.cross_entropy(logits.flatten(0, 1), targets.flatten())
        return logits, loss

    @torch.no_grad()
    def generate(self, idx, max_new_tokens):
        for _ in range(max_new_tokens):
            last = self(idx)[0][:, -1]
            idx = torch.cat([idx, torch.multinomial(last.softmax(-1), 1)], dim=1)
        return idx
"""

# The lecture's later gpt.py: the model reads vocab_size from the notebook instead of taking it.
NO_ARGUMENT = LECTURE.replace("def __init__(self, vocab_size):", "def __init__(self):").replace(
    "m = BigramLanguageModel(vocab_size)", "m = BigramLanguageModel()")


def mutate(old: str, new: str, source: str = LECTURE) -> str:
    assert source.count(old) == 1, old
    return source.replace(old, new)


def notebook(source: str) -> str:
    """The `# %%` blocks as the code cells of a notebook, after a markdown cell and the seed's !wget."""
    blocks = ["!wget https://example.invalid/input.txt", *source.split("# %%\n")[1:]]
    cells = [{"cell_type": "markdown", "id": "title", "metadata": {}, "source": "# Let's build GPT"}] + [
        {"cell_type": "code", "id": f"code{i}", "metadata": {}, "execution_count": None, "outputs": [],
         "source": block} for i, block in enumerate(blocks)]
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def no_errors(run: RunResult) -> None:
    errors = [(e.id, c.id, c.message) for e in run.exercises for c in e.checks if c.status == "error"]
    assert not errors and not run.grader_fault


def full_marks(run: RunResult) -> None:
    assert all(r.status == "ok" for r in run.cells), [(r.cell, r.error) for r in run.cells]
    wrong = [(e.id, c.id, c.message) for e in run.exercises for c in e.checks if c.status != "passed"]
    assert not wrong
    assert [e.id for e in run.exercises] == IDS and run.score == run.max_score == 26


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("source, suffix", [(LECTURE, ".py"), (STYLED, ".py"), (NO_ARGUMENT, ".py"),
                                            (notebook(LECTURE), ".ipynb")],
                         ids=["lecture", "styled", "no-argument", "notebook"])
def test_correct_answers_get_full_marks(grade_file: Grade, source: str, suffix: str, seed: int) -> None:
    full_marks(grade_file(source, EXERCISES, suffix=suffix, seed=seed))


def test_correct_answers_pass_with_ok_messages(grade_file: Grade) -> None:
    run = grade_file(LECTURE, EXERCISES)
    assert check(run, "gpt.tokenizer", "vocab").message == \
        "chars holds the 61 distinct characters of input.txt in sorted order."
    assert check(run, "gpt.split", "val").message_key == "gpt.split.val.ok"
    assert "n = int(0.9 * 15345) = 13810" in check(run, "gpt.split", "train").message
    assert "(4, 8)" in check(run, "gpt.batch", "shape").message
    assert "follows the last position's prediction" in check(run, "gpt.bigram", "generate").message
    # the page can point at the cell that bound each answer
    assert check(run, "gpt.split", "val").evidence["object"] == {"name": "val_data", "cell": 3}
    # the notebook's `data`, not get_batch's local of the same name
    assert check(run, "gpt.split", "data").evidence["object"] == {"name": "data", "cell": 3}
    assert check(run, "gpt.bigram", "loss").evidence["object"]["name"] == "BigramLanguageModel"


# (bug, old, new, exercise, check, message key, words of the message)
BUGS = [
    ("vocab_unsorted", "chars = sorted(list(set(text)))", "chars = list(dict.fromkeys(text))",
     "gpt.tokenizer", "vocab", "vocab.not_sorted", "holds the right 61 characters, but not in sorted order"),
    ("decode_off_by_one", "itos = { i: ch for i, ch in enumerate(chars) }",
     "itos = { i: ch for i, ch in enumerate(chars, 1) }",
     "gpt.tokenizer", "ids", "ids.decode_shifted", "decode is off by one"),
    ("encode_off_by_one", "stoi = { ch: i for i, ch in enumerate(chars) }",
     "stoi = { ch: i + 1 for i, ch in enumerate(chars) }",
     "gpt.tokenizer", "ids", "ids.encode_shifted", "encode is off by +1"),
    ("split_leak", "val_data = data[n:]", "val_data = data[:n]",
     "gpt.split", "val", "val.leak",
     "val_data is the same slice as train_data (data[:n]), so the model would be validated on text it trained on"),
    ("split_overlap", "val_data = data[n:]", "val_data = data[n - 100:]",
     "gpt.split", "val", "val.overlap", "overlaps train_data (data[:n]) on 100 positions"),
    ("split_80_20", "n = int(0.9*len(data))", "n = int(0.8*len(data))",
     "gpt.split", "train", "train.fraction", "train_data holds the first 80% of data"),
    ("split_shuffled", "train_data = data[:n]\nval_data = data[n:]",
     "shuffled = data[torch.randperm(len(data))]\ntrain_data = shuffled[:n]\nval_data = shuffled[n:]",
     "gpt.split", "train", "train.shuffled", "it looks shuffled"),
    ("batch_not_shifted", "y = torch.stack([data[i+1:i+block_size+1] for i in ix])",
     "y = torch.stack([data[i:i+block_size] for i in ix])",
     "gpt.batch", "targets", "targets.not_shifted", "y is the same as x, but the targets are the next characters"),
    ("batch_ignores_split", "data = train_data if split == 'train' else val_data", "data = train_data",
     "gpt.batch", "split", "split.wrong_split", "get_batch('val') drew a row from train_data instead of val_data"),
    ("batch_wrong_shape", "x = torch.stack([data[i:i+block_size] for i in ix])",
     "x = torch.stack([data[i:i+block_size+1] for i in ix])",
     "gpt.batch", "shape", "shape.wrong", "gives x of shape (4, 9), but batch_size = 4 and block_size = 8"),
    ("loss_not_reshaped", "            logits = logits.view(B*T, C)\n            targets = targets.view(B*T)\n", "",
     "gpt.bigram", "loss", "loss.not_reshaped", "so reshape them first: logits.view(B*T, C)"),
    ("loss_mean_wrong_dim", "loss = F.cross_entropy(logits, targets)",
     "loss = F.cross_entropy(logits, targets, reduction='none').view(B, T).mean(0)",
     "gpt.bigram", "loss", "loss.not_scalar", "it should be one number, the mean cross-entropy"),
    ("loss_sum", "loss = F.cross_entropy(logits, targets)", "loss = F.cross_entropy(logits, targets, reduction='sum')",
     "gpt.bigram", "loss", "loss.sum", "the cross-entropy averages them"),
    ("loss_softmax_wrong_dim", "loss = F.cross_entropy(logits, targets)",
     "loss = -F.log_softmax(logits, dim=0)[torch.arange(B*T), targets].mean()",
     "gpt.bigram", "loss", "loss.mismatch", "but the cross-entropy of your logits against the targets is"),
    ("init_too_large", "self.token_embedding_table = nn.Embedding(vocab_size, vocab_size)",
     "self.token_embedding_table = nn.Embedding(vocab_size, vocab_size)\n"
     "        self.token_embedding_table.weight.data *= 10",
     "gpt.bigram", "init", "init.far", "a fresh model should find every next token about equally likely"),
    ("generate_only_new", "        return idx\n", "        return idx[:, -max_new_tokens:]\n",
     "gpt.bigram", "generate", "generate.only_new", "only the"),
    ("generate_out_of_range", "nn.Embedding(vocab_size, vocab_size)", "nn.Embedding(65, 65)",
     "gpt.bigram", "generate", "generate.range", "Size the embedding table by the vocab_size argument"),
    ("generate_first_position", "logits = logits[:, -1, :]", "logits = logits[:, 0, :]",
     "gpt.bigram", "generate", "generate.not_last", "each new token should follow from the last position"),
]


@pytest.mark.parametrize("bug, old, new, exercise, check_id, key, words", BUGS, ids=[b[0] for b in BUGS])
def test_named_wrong_answer_fails_with_its_message(grade_file: Grade, bug: str, old: str, new: str, exercise: str,
                                                   check_id: str, key: str, words: str) -> None:
    run = grade_file(mutate(old, new), exercise)
    no_errors(run)
    c = check(run, exercise, check_id)
    assert (c.status, c.message_key) == ("failed", f"{exercise}.{key}"), c.message
    assert words in c.message
    assert c.messages["zh"] and c.messages["zh"] != c.messages["en"]


def test_unsorted_vocabulary_is_charged_once(grade_file: Grade) -> None:
    run = grade_file(mutate("chars = sorted(list(set(text)))", "chars = list(dict.fromkeys(text))"), EXERCISES)
    assert statuses(run, "gpt.tokenizer") == {"vocab": "failed", "roundtrip": "passed", "ids": "failed"}
    assert check(run, "gpt.tokenizer", "ids").message_key == "gpt.tokenizer.ids.encode_wrong"
    # data is the text under the student's own numbering: the split and the rest are not charged again
    for exercise in IDS[1:]:
        assert set(statuses(run, exercise).values()) == {"passed"}, exercise


def test_decode_off_by_one_also_breaks_the_round_trip(grade_file: Grade) -> None:
    run = grade_file(mutate("itos = { i: ch for i, ch in enumerate(chars) }",
                            "itos = { i: ch for i, ch in enumerate(chars, 1) }"), "gpt.tokenizer")
    c = check(run, "gpt.tokenizer", "roundtrip")
    assert (c.status, c.message_key) == ("failed", "check.raised")
    assert c.message.startswith("decode(") and "KeyError" in c.message
    assert "each character's neighbour before in the vocabulary" in check(run, "gpt.tokenizer", "ids").message


def test_leak_is_explained_in_both_languages(grade_file: Grade) -> None:
    run = grade_file(mutate("val_data = data[n:]", "val_data = data[:n]"), "gpt.split")
    assert statuses(run, "gpt.split") == {"data": "passed", "train": "passed", "val": "failed"}
    c = check(run, "gpt.split", "val")
    assert "(a leak). Use val_data = data[n:] for validation." in c.messages["en"]
    assert "数据泄漏" in c.messages["zh"] and "val_data = data[n:]" in c.messages["zh"]
    assert c.evidence["object"] == {"name": "val_data", "cell": 3}
    assert c.evidence["expected_shape"] == [1535] and c.evidence["got_shape"] == [13810]


def test_unreshaped_loss_is_named_wherever_the_loss_is_needed(grade_file: Grade) -> None:
    run = grade_file(mutate("            logits = logits.view(B*T, C)\n            targets = targets.view(B*T)\n", ""),
                     "gpt.bigram")
    assert statuses(run, "gpt.bigram") == {"forward": "passed", "loss": "failed", "init": "failed",
                                           "generate": "passed"}
    c = check(run, "gpt.bigram", "init")
    assert c.message_key == "gpt.bigram.loss.not_reshaped" and "Expected target size" in c.message
    assert c.evidence["error"]["type"] == "RuntimeError"


def test_80_20_split_names_both_fractions(grade_file: Grade) -> None:
    run = grade_file(mutate("n = int(0.9*len(data))", "n = int(0.8*len(data))"), "gpt.split")
    assert check(run, "gpt.split", "data").status == "passed"
    c = check(run, "gpt.split", "val")
    assert (c.status, c.message_key) == ("failed", "gpt.split.val.fraction")
    assert "val_data holds the last 20% of data" in c.message


def test_shuffled_split_fails_both_parts(grade_file: Grade) -> None:
    run = grade_file(mutate("train_data = data[:n]\nval_data = data[n:]",
                            "shuffled = data[torch.randperm(len(data))]\n"
                            "train_data = shuffled[:n]\nval_data = shuffled[n:]"), "gpt.split")
    assert statuses(run, "gpt.split") == {"data": "passed", "train": "failed", "val": "failed"}
    for part in ("train", "val"):
        c = check(run, "gpt.split", part)
        assert c.message_key == f"gpt.split.{part}.shuffled"
        assert f"{part}_data is not a stretch of data in order: it looks shuffled" in c.message


def test_hard_coded_vocabulary_fails_forward_too(grade_file: Grade) -> None:
    run = grade_file(mutate("nn.Embedding(vocab_size, vocab_size)", "nn.Embedding(65, 65)"), "gpt.bigram")
    c = check(run, "gpt.bigram", "forward")
    assert (c.status, c.message_key) == ("failed", "gpt.bigram.forward.shape")
    assert "expected (2, " in c.message


def test_wrong_logits_are_compared_with_the_table(grade_file: Grade) -> None:
    run = grade_file(mutate("logits = self.token_embedding_table(idx)",
                            "logits = self.token_embedding_table(idx) * 2"), "gpt.bigram")
    c = check(run, "gpt.bigram", "forward")
    assert (c.status, c.message_key) == ("failed", "gpt.bigram.forward.values")
    assert c.evidence["expected_shape"] == c.evidence["got_shape"] and c.evidence["got"]
    assert check(run, "gpt.bigram", "loss").message_key == "gpt.bigram.loss.reference"


def test_students_own_input_txt_is_used(grade_file: Grade, tmp_path: Path) -> None:
    own = tmp_path / "mine"
    own.mkdir()
    (own / "input.txt").write_text("To be, or not to be: that is the question.\n" * 40, encoding="utf-8")
    (own / "answer.py").write_text(LECTURE, encoding="utf-8")
    run = grade_file([own / "answer.py", own / "input.txt"], EXERCISES)
    full_marks(run)
    assert "the 18 distinct characters" in check(run, "gpt.tokenizer", "vocab").message


def test_missing_answers_are_reported_not_found(grade_file: Grade) -> None:
    run = grade_file("x = 1\n", EXERCISES)
    no_errors(run)
    results = [c for e in run.exercises for c in e.checks]
    assert results and all((c.status, c.message_key) == ("failed", "check.not_found") for c in results)
    assert "no `encode` and `decode` functions" in check(run, "gpt.tokenizer", "ids").message
    assert "no class BigramLanguageModel" in check(run, "gpt.bigram", "forward").message


def test_variables_are_read_without_any_function(grade_file: Grade) -> None:
    run = grade_file("import torch\ndata = torch.arange(10)\ntrain_data = data[:9]\nval_data = data[9:]\n",
                     "gpt.split")
    assert check(run, "gpt.split", "train").status == "passed"
    assert check(run, "gpt.split", "val").status == "passed"


def test_wrong_vocabulary_size_is_named(grade_file: Grade) -> None:
    run = grade_file(mutate("vocab_size = len(chars)", "vocab_size = 65"), "gpt.tokenizer")
    c = check(run, "gpt.tokenizer", "vocab")
    assert (c.status, c.message_key) == ("failed", "gpt.tokenizer.vocab.size")
    assert "vocab_size is 65, but the vocabulary has 61 characters" in c.message


def test_a_variable_that_cannot_be_sent_is_named(grade_file: Grade) -> None:
    run = grade_file(LECTURE + "\nval_data = val_data.to(torch.complex64)\nz = torch.zeros(2, dtype=torch.complex64)\n",
                     EXERCISES)
    no_errors(run)
    # the checks that need val_data say why they cannot read it; an unreadable variable nobody asks for is
    # no one's business, and the others still grade by behaviour
    c = check(run, "gpt.split", "val")
    assert (c.status, c.message_key) == ("failed", "gpt.split.namespace.unreadable")
    assert "could not read your variable val_data" in c.message
    assert check(run, "gpt.tokenizer", "vocab").status == "passed"
    assert set(statuses(run, "gpt.bigram").values()) == {"passed"}


def test_a_vocab_size_too_large_to_draw_a_table_for_is_named(grade_file: Grade) -> None:
    """BigramLanguageModel() reads vocab_size from the notebook: a value the judge would have to draw a
    (V, V) table of a trillion numbers for fails each bigram check by name, never as a grader error."""
    run = grade_file(NO_ARGUMENT.replace("vocab_size = len(chars)", "vocab_size = 10**6"), "gpt.bigram")
    no_errors(run)
    for c in next(e for e in run.exercises if e.id == "gpt.bigram").checks:
        assert (c.status, c.message_key) == ("failed", "gpt.bigram.vocab_size.too_large"), (c.id, c.message)
    assert "vocab_size is 1000000" in check(run, "gpt.bigram", "forward").message
