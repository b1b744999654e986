"""The hostile corpus, against the judge's own resources: whatever comes back, the judge is bounded
(docs/design.md, "The judge is bounded whatever comes back"; README, "What the sandbox guarantees").

* Memory: an answer past what a call may answer (grader.judge.asking.ANSWER_BYTES) is refused unread, and one
  under it costs the judge little beside holding it: evidence code converts only what it shows, tensors of
  the shape it asked for, or a chunk at a time.
* CPU: the judge's own work on an answer is bounded by what it asked (an encode of s answers len(s) ids),
  not by what came back, so a submission cannot spend the judge's time past its own budget.
* Depth: an answer nested past grader.wire.MAX_DEPTH is refused before it is parsed, so nothing the judge
  later walks recursively (evidence, results) can raise outside a check.
* Strict JSON: every JSON output parses with a strict reader, NaN and infinities in the evidence included.
* Big honest answers: the lecture's data of a text within the sibling cap is graded; one too large to
  carry is said to be too large, never charged as an attack on the protocol.

Memory is the judge's peak resident size (Linux's VmHWM, reset before grading), CPU its own process time,
both against generous bounds: the machine these run on is shared. What the evidence helpers hold is measured
in an interpreter of its own whose malloc returns every large block when it is freed (see MEASURE_EVIDENCE),
so the verdict depends neither on what ran before it nor on what else is installed.
"""
from __future__ import annotations

import json
import platform
import re
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable, TypeVar

import pytest

import mutations  # tests/corpus, put on sys.path by the root conftest
from conftest import ROOT, check, grade, mutant, select, statuses
from grader.checks import tensors as evidence
from grader import wire
from grader.classes.gradebook import FILENAME
from grader.judge.launcher import ZygoteLauncher, python_env
from grader.results import RunResult, from_json
from grader.judge.asking import ANSWER_BYTES
from exercise.test_gpt_data import LECTURE

from .test_attacks import ALL_31, SOURCE, Hostile, after, hostile  # noqa: F401
from .test_output_sizes import grade_command
from .test_scoring import clean

T = TypeVar("T")
MIB = 2**20
SPLIT = {"data": "passed", "train": "passed", "val": "passed"}


def _status(field: str) -> int:
    """A size from /proc/self/status, in bytes."""
    found = re.search(rf"^{field}:\s+(\d+) kB", Path("/proc/self/status").read_text(), re.MULTILINE)
    assert found, field
    return int(found.group(1)) * 1024


def peak_growth(work: Callable[[], T]) -> tuple[T, int]:
    """(what work() gave, how far this process's resident memory rose above where it was while it ran):
    the peak (VmHWM) is reset first, so what earlier tests held does not count."""
    Path("/proc/self/clear_refs").write_text("5")
    start = _status("VmRSS")
    done = work()
    return done, _status("VmHWM") - start


def message_keys(run: RunResult, exercise: str) -> dict[str, str]:
    return {c.id: c.message_key for e in run.exercises if e.id == exercise for c in e.checks}


# -- memory ---------------------------------------------------------------------------------------------------
def test_a_forward_answer_past_what_a_call_may_answer_is_refused_unread(hostile: Hostile) -> None:
    """MultiHeadAttention.forward answers 256 MiB (the judge grew by 1.8 GiB, 7 times that, converting it
    whole into float64 evidence before any shape was checked): past ANSWER_BYTES, it is refused before the
    judge reads it, said to be too large in both languages, and the judge grows by a fraction of it."""
    source = after(hostile.attack("huge_forward_output", mib=256))
    run, grown = peak_growth(lambda: hostile.grade(source, "3.3,mask"))
    clean(run)
    assert set(statuses(run, "3.3").values()) == set(statuses(run, "mask").values()) == {"failed"}
    assert grown < 128 * MIB, f"the judge grew by {grown / MIB:.0f} MiB for an answer it should not read"
    assert "check.too_large" in {*message_keys(run, "3.3").values(), *message_keys(run, "mask").values()}
    c = check(run, "3.3", "parameters")
    assert f"answered with 256 MiB of data, more than the {ANSWER_BYTES // MIB} MiB" in c.message
    assert "返回了 256 MiB 的数据" in c.messages["zh"]


# The evidence helpers' memory, measured in a fresh interpreter whose malloc maps every block of 128 KiB or more
# on its own and returns it when it is freed (a fixed mmap threshold, set before torch is imported), so that the
# resident peak is the most the calls held at once. Measured in the test's own process, the peak was glibc's as
# much as theirs: once a large block is freed, glibc raises its mmap threshold (up to 32 MiB) and serves the
# 8 MiB chunks from its heap, where what is freed stays resident and leaves holes a later chunk may not fit.
# The same calls, holding 24 MiB at most, measured 12 to 80 MiB by what the process had allocated and freed
# before (NumPy's import, which torch's does where NumPy is installed; the tests run before it) and by which
# thread freed what: "evidence of a 127 MiB answer held 80 MiB" on its own without NumPy, a pass with it.
MEASURE_EVIDENCE = """
import ctypes, json, re, sys
from pathlib import Path

fixed = bool(getattr(ctypes.CDLL(None), "mallopt", lambda *_: 0)(-3, 128 * 1024))  # M_MMAP_THRESHOLD
import torch
from grader.checks import tensors as evidence


def status(field):
    return int(re.search(field + r":\\s+(\\d+) kB", Path("/proc/self/status").read_text()).group(1)) * 1024


got, expected = torch.ones(*json.loads(sys.argv[1])), torch.randn(2, 6, 8)
Path("/proc/self/clear_refs").write_text("5")
start = status("VmRSS")
judged = [evidence.comparison(expected, got), evidence.constant(got), evidence.max_diff(got, expected),
          evidence.close(got, expected), evidence.nan_tokens(got, expected), evidence.sample(got, 4),
          evidence.first_rows(got)[0], evidence.computes_nothing("M", got).evidence["got_shape"]]
grown = status("VmHWM") - start
print(json.dumps({"judged": judged, "grown": grown, "fixed": fixed, "answer": got.nbytes}))
"""


def evidence_held(shape: tuple[int, ...]) -> dict[str, Any]:
    """What MEASURE_EVIDENCE found for an answer of `shape`: the helpers' results, the memory they held."""
    done = subprocess.run([sys.executable, "-c", MEASURE_EVIDENCE, json.dumps(shape)], env=python_env(),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return dict(json.loads(done.stdout.splitlines()[-1]))


@pytest.mark.parametrize("shape", [(ANSWER_BYTES // 4 // 2**18, 2**18), (2, 6, ANSWER_BYTES // 4 // 12)],
                         ids=["rows-of-its-own", "the-asked-rows-and-wide"])
def test_evidence_of_an_answer_of_another_shape_costs_a_chunk_not_copies(shape: tuple[int, ...]) -> None:
    """An answer as large as a call may answer (128 MiB of float32), next to the (2, 6, 8) output asked for:
    every evidence helper the checks use on an output before or after its shape is checked holds at most a
    few chunks of it beside the answer itself (together they held 6 times it, converting it to float64)."""
    measured = evidence_held(shape)
    shown, *others = measured["judged"]
    assert (shown["got_shape"], shown["got"]) == (list(shape), [1.0] * 8)
    assert others == [True, float("inf"), False, {}, [1.0] * 4, [1.0] * 8, list(shape)]
    if platform.libc_ver()[0] == "glibc":
        assert measured["fixed"], "glibc refused a fixed mmap threshold: the peak would be its heap's as well"
    grown, answer = measured["grown"], measured["answer"]
    assert grown <= 8 * evidence.CHUNK * 8, f"evidence of a {answer // MIB} MiB answer held {grown / MIB:.0f} MiB"


# -- CPU --------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("ids", [32 * MIB, 16 * MIB])
def test_a_huge_encode_answer_costs_the_judge_little_of_its_cpu(hostile: Hostile, ids: int) -> None:
    """encode answers 32 Mi ids (past what a call may answer: refused unread) or 16 Mi (read, refused by its
    count): under --timeout 10 the judge spends well under the budget of its own CPU (it spent 7 to 18 s,
    building lists id by id and formatting them into labels and messages), and no message quotes the ids."""
    source = after(hostile.attack("huge_encode_answer", ids=ids), LECTURE)
    started = time.process_time()
    run = hostile.grade(source, "gpt.tokenizer", timeout=10)
    spent = time.process_time() - started
    clean(run)
    assert spent < 5.0, f"the judge spent {spent:.1f} s of CPU on a submission with a 10 s budget"
    assert statuses(run, "gpt.tokenizer") == {"vocab": "passed", "roundtrip": "failed", "ids": "failed"}
    key = "check.too_large" if ids * 8 > ANSWER_BYTES else "gpt.tokenizer.encode.too_long"
    assert set(message_keys(run, "gpt.tokenizer").values()) == {"gpt.tokenizer.vocab.ok", key}
    c = check(run, "gpt.tokenizer", "ids")
    assert len(c.message) < 500 and len(c.messages["zh"]) < 500, c.message
    if key.endswith("too_long"):
        assert f"returned {ids} ids for a string of 16 characters" in c.message
        assert f"返回了 {ids} 个编号" in c.messages["zh"]


# -- depth ------------------------------------------------------------------------------------------------------
def nested(depth: int) -> Any:
    value: Any = []
    for _ in range(depth - 1):
        value = [value]
    return value


@pytest.mark.parametrize("depth", [wire.MAX_DEPTH + 1, 600])
def test_a_header_nested_past_max_depth_is_refused_before_it_is_parsed(depth: int) -> None:
    """The frame's own object and body hold `depth` levels; wire.MAX_DEPTH of them are an answer."""
    a, b = socket.socketpair()
    with a, b:
        for levels, refused in ((wire.MAX_DEPTH - 1, False), (depth - 1, True)):
            raw = json.dumps({"body": nested(levels), "tensors": []}).encode()
            a.sendall(len(raw).to_bytes(4, "big") + raw)
            if refused:
                with pytest.raises(wire.WireError, match="deeper"):
                    wire.recv(b, time.monotonic() + 2)
            else:
                assert wire.recv(b, time.monotonic() + 2) == nested(levels)


def test_a_description_nested_600_deep_is_the_submissions_failure(hostile: Hostile) -> None:
    """Every CausalAttention is described with a field nested 600 lists deep (it raised RecursionError in the
    judge, an internal error): each check that is handed one fails with check.protocol, none is a grader
    error, and a check that never sees one (the wrapper's shape, its heads built inside the child) passes."""
    run = hostile.grade(after(hostile.attack("deep_description", depth=600)), "3.2,mask,device")
    clean(run)
    assert statuses(run, "3.2") == {"answer": "passed", "concat": "failed"}
    assert message_keys(run, "3.2")["concat"] == "check.protocol"
    assert set(message_keys(run, "mask").values()) == {"check.protocol"}
    assert "CausalAttention" in check(run, "mask", "causal").message



@pytest.mark.parametrize("chain", ["1+" * 200_000 + "1", "-" * 100_000 + "1"])
def test_a_statement_too_deep_for_the_parser_fails_alone(hostile: Hostile, chain: str) -> None:
    """A statement whose expression nests deeper than Python's parser goes (RecursionError, or MemoryError, in
    ast.parse: the judge splits the file into statements with it) raised in the judge, an internal error:
    the file is split by its layout instead, that statement fails in the child, and the answers beside it
    keep their points."""
    run = hostile.grade(f"x = {chain}\n" + SOURCE, "3.1")
    clean(run)
    assert statuses(run, "3.1") == ALL_31
    assert [cell.status for cell in run.cells if cell.status != "ok"] == ["raised"]

# -- strict JSON ------------------------------------------------------------------------------------------------
def strict(text: str) -> Any:
    """json.loads that refuses NaN and the infinities (RFC 8259 has neither)."""

    def refuse(constant: str) -> Any:
        raise ValueError(f"not JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


def test_every_json_output_is_strict_json_with_nan_in_the_evidence(tmp_path: Path) -> None:
    """The diagonal=0 mask (the first token sees nothing: an all-NaN row, a NaN difference) graded by
    `grade batch`, exported for Gradescope, and graded alone with --json: results.jsonl, the gradebook's
    rows, each results.json and the JSON result all parse strictly; a NaN is spelled {"__float__": "NaN"}
    and read back as one."""
    submissions = tmp_path / "in"
    submissions.mkdir()
    student = submissions / "s01.py"
    student.write_text(mutant(mutations.MASK_BUGS, "diagonal_zero"), encoding="utf-8")
    out = tmp_path / "out"
    done = grade_command("batch", submissions, "-e", "mask", "-o", out, "-j", 1, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    exported = grade_command("export", out, "--format", "gradescope", cwd=tmp_path)
    assert exported.returncode == 0, exported.stderr
    alone = grade_command("mask", student, "--json", tmp_path / "result.json", cwd=tmp_path)
    assert alone.returncode == 1, alone.stderr
    with sqlite3.connect(out / FILENAME) as db:
        rows = [text for row in db.execute("SELECT result, problem, files FROM results") for text in row if text]
    outputs = {"results.jsonl": (out / "results.jsonl").read_text(encoding="utf-8").splitlines(),
               "gradebook": rows,
               "gradescope": [p.read_text(encoding="utf-8") for p in (out / "gradescope").glob("*.json")],
               "--json": [(tmp_path / "result.json").read_text(encoding="utf-8")]}
    assert all(outputs.values()), outputs
    for name, texts in outputs.items():
        for text in texts:
            try:
                strict(text)
            except ValueError as exc:
                pytest.fail(f"{name} is not strict JSON: {exc}")
    result = strict(outputs["--json"][0])
    assert '{"__float__": "NaN"}' in json.dumps(result)
    evidence = [c.evidence for e in from_json(result).exercises for c in e.checks]
    assert any(isinstance(v, float) and v != v for ev in evidence for v in ev.get("got", []))


# -- big honest answers -----------------------------------------------------------------------------------------
def test_the_lecture_on_its_own_34_mb_text_gets_every_point_of_the_split(launcher: ZygoteLauncher,
                                                                       tmp_path: Path) -> None:
    """The lecture's code, unchanged, beside a 34 MB input.txt (inside the 64 MiB sibling cap): its data,
    train_data and val_data (544 MB together, past the wire's 512 MiB for one message) each travel alone,
    and the split gets every point (it got none, charged as an attack on the protocol)."""
    bundled = (ROOT / "exercises" / "data" / "input.txt").read_text(encoding="utf-8")
    (tmp_path / "input.txt").write_text((bundled * (34_000_000 // len(bundled) + 1))[:34_000_000], encoding="utf-8")
    submission = tmp_path / "lecture.py"
    submission.write_text(LECTURE, encoding="utf-8")
    run = grade(submission, select("gpt.split"), launcher, seed=0, beside=True, timeout=120)
    assert statuses(run, "gpt.split") == SPLIT, [(c.id, c.message) for e in run.exercises for c in e.checks]
    assert "the 34000000 ids of input.txt" in check(run, "gpt.split", "data").message


def test_a_variable_too_large_to_carry_is_said_to_be_too_large(hostile: Hostile) -> None:
    """`data` of 520 MiB, past the 512 MiB one answer may carry: every check that reads it says it was too
    large, in both languages, never that the submission sent something that is not an answer."""
    run = hostile.grade(hostile.attack("huge_variable", mib=520), "gpt.split")
    clean(run)
    for c in next(e for e in run.exercises if e.id == "gpt.split").checks:
        assert (c.status, c.message_key) == ("failed", "check.too_large"), (c.id, c.message_key, c.message)
        assert "answered with 520 MiB of data, more than the 512 MiB" in c.message
        assert "返回了 520 MiB 的数据，超过了评分器对这个答案读取的上限 512 MiB" in c.messages["zh"]
        assert "not an answer" not in c.message
