"""The `gpt` set on learners' code as they wrote it (issue 38, points 5 to 7): the text as Python read it
for them, the split under the names they gave its parts, and the lecture's classes built from the
signatures they wrote."""
from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from conftest import Grade, check, statuses
from grader.checks import signatures
from grader.exercises import _text
from grader.judge.launcher import ZygoteLauncher
from grader.load.submission import Cell
from exercise.test_gpt_attention import HEAD_LECTURE, SCALE, all_passed, edit, failed_with
from exercise.test_gpt_data import LECTURE, mutate
from exercise.test_gpt_text import OWN_TEXT, beside, full_marks, graded, script, vocab_message

# -- 5. the text the student read, as Python read it ------------------------------------------------------
CRLF = OWN_TEXT.replace("\n", "\r\n").encode("utf-8")  # saved on Windows
BOM = b"\xef\xbb\xbf" + OWN_TEXT.encode("utf-8")  # saved by Notepad as "UTF-8 with BOM"
FRENCH = "Là où la volonté est, le chemin est déjà là, voilà !\n" * 40  # saved as Latin-1
READS = [
    # (case, file, its bytes, the cell that reads it, distinct characters of what Python gave the code)
    ("crlf-open", "tinyShakespeare.txt", CRLF,
     "# the file came from a Windows machine\nwith open('tinyShakespeare.txt', 'r', encoding='utf-8') as f:\n"
     "    text = f.read()\n", 18),
    ("crlf-read_text", "input.txt", CRLF,
     "from pathlib import Path\ntext = Path('input.txt').read_text()  # 读取数据\n", 18),
    ("bom-utf-8-sig", "input.txt", BOM,
     "from pathlib import Path\ntext = Path('input.txt').read_text(encoding='utf-8-sig')\n", 18),
    ("latin-1", "input.txt", FRENCH.encode("latin-1"),
     "text = open('input.txt', encoding='latin-1').read()\n", len(set(FRENCH))),
]


@pytest.mark.parametrize("case, name, raw, read, size", READS, ids=[r[0] for r in READS])
def test_the_text_is_the_file_as_the_code_read_it(launcher: ZygoteLauncher, tmp_path: Path, case: str, name: str,
                                                  raw: bytes, read: str, size: int) -> None:
    (tmp_path / name).write_bytes(raw)
    run = graded(launcher, beside(tmp_path, {}, script(read)))
    full_marks(run)
    assert vocab_message(run) == f"chars holds the {size} distinct characters of {name} in sorted order."
    assert f"{name} 中的 {size} 个不同字符" in check(run, "gpt.tokenizer", "vocab").messages["zh"]
    assert check(run, "gpt.split", "data").message.startswith("data holds the ")
    assert f" ids of {name}, in order" in check(run, "gpt.split", "data").message


def test_a_crlf_text_too_large_to_send_is_read_as_open_read_it(launcher: ZygoteLauncher, tmp_path: Path) -> None:
    """The learner's tinyShakespeare.txt with Windows line endings (1.1 MB: its `text` cannot be sent): its
    vocabulary has no '\\r', which the file's bytes have; the judge reads the file as open() did."""
    big = "".join(f"{i % 9973} Speak, speak; I charge thee, speak!\n" for i in range(30_000))
    (tmp_path / "tinyShakespeare.txt").write_bytes(big.replace("\n", "\r\n").encode("utf-8"))
    read = "with open('tinyShakespeare.txt', 'r', encoding='utf-8') as f:\n    text = f.read()\nprint(len(text))\n"
    run = graded(launcher, beside(tmp_path, {}, script(read)))
    full_marks(run)
    assert vocab_message(run) == \
        f"chars holds the {len(set(big))} distinct characters of tinyShakespeare.txt in sorted order."


def test_newline_kept_as_the_code_asked_is_judged_with_it(launcher: ZygoteLauncher, tmp_path: Path) -> None:
    """open(..., newline='') keeps '\\r\\n': the text the code holds has the '\\r', and so does the judged one."""
    (tmp_path / "input.txt").write_bytes(CRLF)
    read = "with open('input.txt', encoding='utf-8', newline='') as f:\n    text = f.read()\n"
    run = graded(launcher, beside(tmp_path, {}, script(read)))
    full_marks(run)
    assert vocab_message(run) == "chars holds the 19 distinct characters of input.txt in sorted order."


def test_the_readings_are_those_python_gives_and_cost_the_judge_little() -> None:
    """The codecs the code names are tried, in a few readings each; none the judge cannot afford (a
    quadratic decoder on a crafted megabyte) or that is no text codec."""
    cells = [Cell(1, "raw = open('input.txt', 'rb').read().decode('Latin_1')\n", "gpt.py"),
             Cell(2, "t = open('x', encoding='punycode').read()  # quadratic to decode\nu = b.decode('base64')\n"
                     "v = open('y', encoding='no-such-codec').read()\n", "gpt.py")]
    sb = SimpleNamespace(submission=SimpleNamespace(cells=cells))
    assert _text.named_encodings(sb) == ["iso8859-1", "utf-8"]  # type: ignore[arg-type]
    assert _text.readings(b"\xef\xbb\xbfa\r\nb", ["utf-8-sig", "utf-8"]) == \
        ["a\nb", "a\r\nb", "\ufeffa\nb", "\ufeffa\r\nb"]


# -- 6. splits by what they are ----------------------------------------------------------------------------
SPLIT_EXERCISES = "gpt.split,gpt.batch"
TEST_DATA = mutate("val_data = data[n:]", "test_data = data[n:]  # 10% for testing",
                   mutate("data = train_data if split == 'train' else val_data",
                          "data = train_data if split == 'train' else test_data"))
# the parts under short names, drawn through a dict: only what they hold says which is which
DICT_SPLIT = mutate("train_data = data[:n]\nval_data = data[n:]\n",
                    "train, test = data[:n], data[n:]\nsplits = {'train': train, 'val': test}\n",
                    mutate("data = train_data if split == 'train' else val_data", "data = splits[split]"))


def test_a_test_data_split_is_the_lectures_split(grade_file: Grade) -> None:
    run = grade_file(TEST_DATA, SPLIT_EXERCISES)
    for exercise in ("gpt.split", "gpt.batch"):
        assert set(statuses(run, exercise).values()) == {"passed"}, [
            (c.id, c.message) for e in run.exercises for c in e.checks]
    c = check(run, "gpt.split", "val")
    assert c.message == "test_data is data[n:], the last 1535 ids, and shares no position with train_data."
    assert c.messages["zh"] == "test_data 是 data[n:]，即最后 1535 个编号，与 train_data 没有重叠。"
    assert c.evidence["object"] == {"name": "test_data", "cell": 3}
    assert "every row from get_batch('val') one of test_data" in check(run, "gpt.batch", "split").message


def test_a_split_in_a_dict_is_found_by_what_its_parts_are(grade_file: Grade) -> None:
    run = grade_file(DICT_SPLIT, SPLIT_EXERCISES)
    for exercise in ("gpt.split", "gpt.batch"):
        assert set(statuses(run, exercise).values()) == {"passed"}, [
            (c.id, c.message) for e in run.exercises for c in e.checks]
    assert check(run, "gpt.split", "train").message.startswith("train is data[:n], the first 90% of data")
    assert check(run, "gpt.split", "val").message.startswith("test is data[n:], the last 1535 ids")
    assert "test 是 data[n:]" in check(run, "gpt.split", "val").messages["zh"]


def test_a_leak_under_another_name_is_named_by_that_name(grade_file: Grade) -> None:
    run = grade_file(TEST_DATA.replace("test_data = data[n:]", "test_data = data[:n]"), SPLIT_EXERCISES)
    c = check(run, "gpt.split", "val")
    assert (c.status, c.message_key) == ("failed", "gpt.split.val.leak"), c.message
    assert "test_data is the same slice as train_data (data[:n])" in c.messages["en"]
    assert "Use test_data = data[n:] for validation." in c.messages["en"]
    assert "test_data 与 train_data 是同一段" in c.messages["zh"] and "test_data = data[n:]" in c.messages["zh"]
    assert check(run, "gpt.batch", "split").message_key == "gpt.batch.split.ok"  # the split's bug, not get_batch's


# -- 7. constructors as the student wrote them ---------------------------------------------------------------
HEAD = "gpt.head"
KNOWN = {"head_size": 16, "n_embd": 32, "block_size": 8, "dropout": 0.0}


def test_arguments_follow_the_names_the_student_gave() -> None:
    assert signatures.arguments(["n_embd", "head_size"], KNOWN, ("head_size",)) == \
        signatures.Arguments(kwargs={"n_embd": 32, "head_size": 16})
    call = signatures.arguments(["head_size", "N_Embed", "block_size", "bias"], KNOWN, ("head_size",))
    assert call.args == () and call.kwargs == {"head_size": 16, "N_Embed": 32, "block_size": 8}
    assert call.not_understood == ("bias",)  # passed over: it may have a default
    assert signatures.arguments(["emb", "head_size"], KNOWN).not_understood == ("emb",)


def test_a_signature_understood_by_no_name_is_called_as_the_lecture_calls_it() -> None:
    assert signatures.arguments(["size"], KNOWN, ("head_size",)) == \
        signatures.Arguments(args=(16,), not_understood=("size",))
    assert signatures.arguments([], KNOWN, ("head_size",)).args == (16,)  # names the child could not read


# The sizes moved into the constructor; the notebook builds no Head, so only the class can be judged.
N_EMBD_FIRST = edit(edit(HEAD_LECTURE, "def __init__(self, head_size):", "def __init__(self, n_embed, head_size):"),
                    "nn.Linear(n_embd, head_size", "nn.Linear(n_embed, head_size")
ALL_SIZES = edit(edit(HEAD_LECTURE, "n_embd = 32\nblock_size = 8\ndropout = 0.2\n",
                      "# 하이퍼파라미터는 생성자로 전달\n"),  # the sizes go to the constructor
                 "def __init__(self, head_size):", "def __init__(self, head_size, n_embd, block_size, dropout=0.1):")


@pytest.mark.parametrize("source", [N_EMBD_FIRST, ALL_SIZES], ids=["n_embed-first", "all-sizes"])
def test_a_head_is_built_from_its_own_signature(grade_file: Grade, source: str) -> None:
    run = grade_file(source, HEAD)
    all_passed(run, HEAD)
    assert check(run, HEAD, "reference").evidence["object"]["name"] == "Head"


def test_the_bug_inside_a_head_of_another_signature_is_named(grade_file: Grade) -> None:
    run = grade_file(edit(ALL_SIZES, SCALE, "wei = q @ k.transpose(-2, -1)"), HEAD)
    c = failed_with(run, HEAD, "reference", "gpt.head.reference.unscaled")
    assert c.messages["en"].startswith("Your head is causal and right except for the scale")
    assert statuses(run, HEAD)["causal"] == statuses(run, HEAD)["short"] == "passed"


def test_parameters_not_understood_are_named(grade_file: Grade) -> None:
    source = edit(edit(HEAD_LECTURE, "def __init__(self, head_size):", "def __init__(self, emb, hs):"),
                  "nn.Linear(n_embd, head_size, bias=False)", "nn.Linear(emb, hs, bias=False)")
    run = grade_file(source, HEAD)
    for check_id in ("causal", "reference", "short"):
        c = failed_with(run, HEAD, check_id, "gpt.head.signature")
        assert c.messages["en"].startswith("Head(emb, hs) could not be built (TypeError: ")
        assert "did not understand emb, hs. Name them as the lecture does" in c.messages["en"]
        assert "无法理解 emb, hs" in c.messages["zh"]
        assert c.evidence["object"]["name"] == "Head"


def test_a_get_batch_ignoring_the_split_is_told_with_the_students_names(grade_file: Grade) -> None:
    """get_batch reads only train_data: the held-out part is the rest of data, found by its value."""
    run = grade_file(TEST_DATA.replace("data = train_data if split == 'train' else test_data", "data = train_data"),
                     SPLIT_EXERCISES)
    assert check(run, "gpt.split", "val").status == "passed"
    c = check(run, "gpt.batch", "split")
    assert (c.status, c.message_key) == ("failed", "gpt.batch.split.wrong_split"), c.message
    assert "drew a row from train_data instead of test_data" in c.messages["en"]
    assert "data = train_data if split == 'train' else test_data." in c.messages["en"]
    assert "从 train_data 而不是 test_data 中抽取" in c.messages["zh"]
    assert "else test_data。" in c.messages["zh"]

