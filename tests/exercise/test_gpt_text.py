"""The `gpt` checks judge against the text the submission read, and show characters plainly.

Contract (exercises/_text.py, `source_text`): the text is the file the code opened beside it (its own
input.txt, or `data/input.txt` where it names that folder), the bundled input.txt only where it has
none, or its own `text` string when that is what its vocabulary and `data` were built from. Messages
name that text, list characters with repr and name whitespace, and never show empty quotes.
"""
from __future__ import annotations

from pathlib import Path

import nbformat

from conftest import check, grade, select
from grader.judge.launcher import ZygoteLauncher
from grader.results import RunResult

EXERCISES = "gpt.tokenizer,gpt.split"
OWN_TEXT = "To be, or not to be: that is the question.\n" * 40  # 18 distinct characters, 1,720 in all
TOKENIZER = """\
chars = sorted(list(set(text)))
vocab_size = len(chars)
stoi = { ch: i for i, ch in enumerate(chars) }
itos = { i: ch for i, ch in enumerate(chars) }
encode = lambda s: [stoi[c] for c in s]
decode = lambda l: ''.join([itos[i] for i in l])
"""
SPLIT = """\
import torch
data = torch.tensor(encode(text), dtype=torch.long)
n = int(0.9*len(data))
train_data = data[:n]
val_data = data[n:]
"""


def script(read: str = "with open('input.txt', 'r', encoding='utf-8') as f:\n    text = f.read()\n",
           tokenizer: str = TOKENIZER, after: str = "") -> str:
    return read + tokenizer + SPLIT + after


def graded(launcher: ZygoteLauncher, submission: Path) -> RunResult:
    """As `grade gpt FILE` grades it: with the files beside it."""
    return grade(submission, select(EXERCISES), launcher, seed=3, beside=True)


def beside(folder: Path, files: dict[str, str], code: str, name: str = "gpt.py") -> Path:
    for relative, content in files.items():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_text(content, encoding="utf-8")
    (folder / name).write_text(code, encoding="utf-8")
    return folder / name


def full_marks(run: RunResult) -> None:
    failing = [(e.id, c.id, c.message) for e in run.exercises for c in e.checks if c.status != "passed"]
    assert not failing, failing


def vocab_message(run: RunResult) -> str:
    return check(run, "gpt.tokenizer", "vocab").message


# -- which text -------------------------------------------------------------------------------------------------
def test_a_script_beside_its_own_input_txt_is_judged_on_that_text(launcher: ZygoteLauncher, tmp_path: Path) -> None:
    run = graded(launcher, beside(tmp_path, {"input.txt": OWN_TEXT}, script()))
    full_marks(run)
    assert vocab_message(run) == "chars holds the 18 distinct characters of input.txt in sorted order."
    assert "the 1720 ids of input.txt" in check(run, "gpt.split", "data").message


def test_a_notebook_reading_data_input_txt_is_judged_on_that_file(launcher: ZygoteLauncher, tmp_path: Path) -> None:
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("import os\ntext = open(os.path.join('data', 'input.txt'), encoding='utf-8').read()"),
        nbformat.v4.new_code_cell(TOKENIZER), nbformat.v4.new_code_cell(SPLIT)])
    run = graded(launcher, beside(tmp_path, {"data/input.txt": OWN_TEXT, "input.txt": "another text"},
                                  nbformat.writes(notebook), name="lecture.ipynb"))
    full_marks(run)
    assert vocab_message(run) == "chars holds the 18 distinct characters of data/input.txt in sorted order."


def test_the_bundled_text_is_the_fallback(launcher: ZygoteLauncher, tmp_path: Path) -> None:
    run = graded(launcher, beside(tmp_path, {"notes.md": "mine"}, script()))
    full_marks(run)
    assert vocab_message(run) == "chars holds the 61 distinct characters of input.txt in sorted order."


def test_a_text_cut_short_is_judged_as_read(launcher: ZygoteLauncher, tmp_path: Path) -> None:
    """The submission's `text` differs from every file (a slice of it): its vocabulary agrees with `text`."""
    read = "with open('input.txt', encoding='utf-8') as f:\n    text = f.read()[:300]\n"
    run = graded(launcher, beside(tmp_path, {}, script(read)))
    full_marks(run)
    assert vocab_message(run).endswith("distinct characters of `text` in sorted order.")
    assert "the 300 ids of `text`" in check(run, "gpt.split", "data").message


def test_a_text_rebound_later_does_not_change_the_judged_text(launcher: ZygoteLauncher, tmp_path: Path) -> None:
    run = graded(launcher, beside(tmp_path, {"input.txt": OWN_TEXT}, script(after="text = 'hello'\n")))
    full_marks(run)
    assert vocab_message(run) == "chars holds the 18 distinct characters of input.txt in sorted order."


def test_a_text_too_large_to_send_is_found_by_its_vocabulary(launcher: ZygoteLauncher, tmp_path: Path) -> None:
    """The lecture's tinyshakespeare is 1.1 MB, more than one variable may carry out of the sandbox."""
    big = "".join(f"{i % 9973} Speak, speak; I charge thee, speak!\n" for i in range(30_000))
    assert len(big) > 1_100_000
    run = graded(launcher, beside(tmp_path, {"input.txt": big}, script()))
    full_marks(run)
    assert vocab_message(run) == f"chars holds the {len(set(big))} distinct characters of input.txt in sorted order."


# -- characters in messages ------------------------------------------------------------------------------------
def test_missing_whitespace_is_named_and_nothing_extra_is_none(launcher: ZygoteLauncher, tmp_path: Path) -> None:
    tokenizer = TOKENIZER.replace("sorted(list(set(text)))", "sorted(set(text) - {' ', '\\n'})")
    run = graded(launcher, beside(tmp_path, {"input.txt": OWN_TEXT}, script(tokenizer=tokenizer)))
    c = check(run, "gpt.tokenizer", "vocab")
    assert (c.status, c.message_key) == ("failed", "gpt.tokenizer.vocab.wrong_set")
    assert "but input.txt has 18 distinct ones (missing: '\\n' (a newline), ' ' (a space); not in the text: none)" \
        in c.message
    assert "缺少：'\\n'（换行符）、' '（空格）；文本中没有的：无" in c.messages["zh"]
    assert "''" not in c.messages["en"] + c.messages["zh"]


def test_a_round_trip_that_ends_early_names_the_end(launcher: ZygoteLauncher, tmp_path: Path) -> None:
    tokenizer = TOKENIZER.replace("decode = lambda l: ''.join([itos[i] for i in l])",
                                  "decode = lambda l: ''.join([itos[i] for i in l])[:-1]")
    run = graded(launcher, beside(tmp_path, {"input.txt": OWN_TEXT}, script(tokenizer=tokenizer)))
    c = check(run, "gpt.tokenizer", "roundtrip")
    assert (c.status, c.message_key) == ("failed", "gpt.tokenizer.roundtrip.mismatch")
    assert "but the round trip gives the end of the string" in c.message
    assert "往返后却是 字符串末尾" in c.messages["zh"]
    assert "''" not in c.messages["en"] + c.messages["zh"]


def test_an_empty_decode_is_said_in_words(launcher: ZygoteLauncher, tmp_path: Path) -> None:
    tokenizer = TOKENIZER.replace("decode = lambda l: ''.join([itos[i] for i in l])", "decode = lambda l: ''")
    run = graded(launcher, beside(tmp_path, {"input.txt": OWN_TEXT}, script(tokenizer=tokenizer)))
    c = check(run, "gpt.tokenizer", "ids")
    assert (c.status, c.message_key) == ("failed", "gpt.tokenizer.ids.decode_wrong")
    assert " gave an empty string, but " in c.message and "得到 空字符串" in c.messages["zh"]
    assert "''" not in c.messages["en"] + c.messages["zh"]
