"""The hostile-submission corpus: one attack per file in attacks/, graded end to end.

Every test asserts the SECURE behaviour, whatever the machine offers: where a protection is missing
(docs/security.md, "Degraded modes"), the tests that need it fail and say what escaped. Running with
GRADER_SANDBOX_WITHOUT=namespaces,landlock,seccomp shows which: the writes outside scratch, the
reads of solutions/ and the sockets. For every attack:

* the run ends within its budget (wall time measured here);
* nothing the attack started is left (no process whose cmdline holds a `sleep 98765N` marker;
  the session zygote has no child, see conftest.py);
* no file outside the sandbox's scratch copy changed: the submission's folder (its own file and
  its siblings) and the folder above it are snapshotted, and files the attack would create in
  $HOME and site-packages carry a per-test mark and must not exist afterwards;
* the verdict: the right answers next to the attack keep their points, a wrong answer earns no
  point it did not earn alone, and the cell record or message_key says what happened.

Attacks with a `@NAME@` token get it filled in here (@MARK@: unique per test; @DIR@: the folder
of the student's file, which the sandbox never sees because it runs a copy; @PORT@: a socket
the test opened). Tests marked `destructive` could kill the test runner in an unconfined sandbox;
the sandbox confines them, so they run with the rest.
"""
from __future__ import annotations

import os
import re
import site
import socket
import subprocess
import sysconfig
import time
import uuid
from pathlib import Path
from typing import Any, Iterator

import pytest

import mutations  # tests/corpus, put on sys.path by the root conftest
from conftest import EXERCISES, SOLUTION, Grade, check, grade, statuses
from grader.judge.launcher import ZygoteLauncher
from grader.render import html, terminal
from grader.results import RunResult
from helpers import attack, cell, cells, error_type, every_cell, line_of, no_grader_errors, notebook, problems

from .conftest import survivors

SOURCE = SOLUTION.read_text(encoding="utf-8")
SLACK = 5.0  # seconds past the grading budget: starting and ending the sandbox, reaping
# The probe deadline (grader.judge.client.PROBE_S, 10 s) for the tests that hang a probe on purpose: what they
# show is the same at 2 s. An honest probe bound by it takes at most ~0.04 s here, the sandbox start (3x) ~0.03 s,
# with two test runs sharing the 2 cores (measured over the exercise tests' 9,000 probes).
SHORT_PROBE_S = 2.0

ALL_31 = {"agree": "passed", "parameters": "passed", "classes": "passed"}
ALL_32 = {"answer": "passed", "concat": "passed"}

# The reference with two bugs: transfer_weights without .T, attention without 1/sqrt(d_k).
WRONG = mutations.apply(
    mutations.apply(SOURCE, ".weight.T)", ".weight)"),
    mutations.MASK_OLD,
    mutations.MASK_OLD.replace(" / keys.shape[-1]**0.5", ""),
)
WRONG_EXERCISES = "3.1,3.2,3.3,mask"
# What WRONG earns alone (seed 0): every attack next to it must fail at least the same checks. Each bug is
# charged to its own exercise only: the missing transpose to 3.1, the missing scaling to mask (3.2's wrapper
# still concatenates its heads, 3.3's configuration is still right).
WRONG_VERDICT = {
    "3.1": {"agree": "failed", "parameters": "failed", "classes": "passed"},
    "3.2": {"answer": "passed", "concat": "passed"},
    "3.3": {"parameters": "passed", "heads": "passed", "context": "passed"},
    "mask": {"causal": "passed", "first_token": "passed", "short": "passed", "normalised": "passed",
             "finite": "passed", "reference": "failed"},
}
WRONG_FAILS = [(ex, c) for ex, checks in WRONG_VERDICT.items() for c, s in checks.items() if s == "failed"]


# -- helpers -----------------------------------------------------------------------------------------
def after(attack: str, answers: str = SOURCE) -> str:
    """The answers in cell 1, the attack in its own `# %%` block (cell 2)."""
    return answers + "\n# %%\n" + attack


def before(attack: str, answers: str = SOURCE) -> str:
    """The attack in cell 1, the answers in their own `# %%` block (cell 2)."""
    return attack + "\n# %%\n" + answers


def all_checks(run: RunResult) -> list[Any]:
    return [c for e in run.exercises for c in e.checks]


def verdict(run: RunResult) -> dict[str, dict[str, str]]:
    return {e.id: {c.id: c.status for c in e.checks} for e in run.exercises}


def passed_checks(run: RunResult) -> set[tuple[str, str]]:
    return {(e.id, c.id) for e in run.exercises for c in e.checks if c.status == "passed"}


def nothing_found(run: RunResult) -> None:
    assert run.score == 0 and not run.full_marks
    failed = all_checks(run)
    assert failed and all(c.status == "failed" and c.message_key == "check.not_found" for c in failed), [
        (c.id, c.status, c.message_key) for c in failed]


def site_packages() -> list[Path]:
    return [Path(p) for p in dict.fromkeys([*site.getsitepackages(), sysconfig.get_paths()["purelib"]])]


def snapshot(root: Path) -> dict[str, tuple[int, int]]:
    """Every file and folder under root: (mtime_ns, size)."""
    found = {}
    for path in [root, *root.rglob("*")]:
        st = path.lstat()
        found[str(path.relative_to(root))] = (st.st_mtime_ns, st.st_size)
    return found


class Hostile:
    """Writes a submission into its own folder (beside sibling files), grades it, and asserts that the
    attack stayed inside the sandbox before handing the result back for the verdict."""

    def __init__(self, grade_file: Grade, root: Path) -> None:
        self.grade_file = grade_file
        self.root = root  # the "parent folder"; the submission lies in root/course
        self.folder = root / "course"
        self.folder.mkdir()
        self.mark = uuid.uuid4().hex[:12]
        self.name = "submission.py"
        self.elapsed = 0.0
        (self.folder / "sibling.py").write_text("print('a classmate\\'s answer')\n", encoding="utf-8")
        (self.folder / "sibling.ipynb").write_text(notebook("x = 1"), encoding="utf-8")
        (root / "README.txt").write_text("the course folder's parent\n", encoding="utf-8")

    def attack(self, name: str, **values: object) -> str:
        return attack(name, mark=self.mark, dir=self.folder, name=self.name, **values)

    def escaped_files(self) -> list[Path]:
        """Files carrying this test's mark where the sandbox must not write."""
        places = [Path.home(), *site_packages()]
        return [d / name for d in places if d.is_dir() for name in os.listdir(d) if self.mark in name]

    def grade(self, source: str, exercises: str = "3.1", *, suffix: str = ".py",
              timeout: float = 30.0) -> RunResult:
        path = self.folder / f"submission{suffix}"
        path.write_text(source, encoding="utf-8")
        before_run = snapshot(self.root)
        started = time.monotonic()
        run = self.grade_file(path, exercises, timeout=timeout)
        self.elapsed = time.monotonic() - started
        assert self.elapsed < timeout + SLACK, f"grading took {self.elapsed:.1f} s of a {timeout} s budget"
        left = survivors()
        assert not left, f"processes started by the attack outlived grading: {left}"
        after_run = snapshot(self.root)
        changed = sorted(k for k in set(before_run) | set(after_run) if before_run.get(k) != after_run.get(k))
        assert not changed, f"files outside the scratch copy changed: {changed}"
        escaped = self.escaped_files()
        assert not escaped, f"the attack wrote outside the sandbox: {escaped}"
        return run

    def cleanup(self) -> None:
        for path in self.escaped_files():  # only files named with this test's unique mark
            path.unlink(missing_ok=True)


@pytest.fixture
def hostile(grade_file: Grade, tmp_path: Path) -> Iterator[Hostile]:
    h = Hostile(grade_file, tmp_path)
    yield h
    h.cleanup()


def assert_safe_rendering(run: RunResult) -> None:
    """No workflow command and no escape can reach a CI log or a browser through the feedback."""
    text = terminal.render(run, None, color=False)
    commands = [line for line in text.splitlines() if line.lstrip().startswith("::")]
    assert not commands, f"terminal lines a CI runner would obey: {commands}"
    assert "\x1b" not in text and "\x07" not in text, repr(text)
    page = html.render(run)
    assert "<script" not in page.lower(), "the student's <script> reached the page unescaped"
    assert "\x1b" not in page and "\x07" not in page


# -- 1. exits ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["py", "ipynb"])
@pytest.mark.parametrize("where", ["before", "after"])
@pytest.mark.parametrize("how", ["exit_sys", "exit_os"])
def test_exit(hostile: Hostile, kind: str, where: str, how: str) -> None:
    """sys.exit is a cell error (SystemExit); os._exit crashes its cell, which is then left out.
    A .py file without `# %%` runs statement by statement: the exit is its own statement, and the answers
    after it in the same file keep their points, as they do after it in a `# %%` block of their own or in
    a notebook's cell (numbered over all cells: a markdown cell comes first)."""
    attack = hostile.attack(how)
    status = "raised" if how == "exit_sys" else "crashed"
    if kind == "py":
        source = attack + "\n" + SOURCE if where == "before" else after(attack)
    else:
        cells_ = (attack, SOURCE) if where == "before" else (SOURCE, attack)
        source = notebook("md:Some notes", *cells_, "after = 1")
    run = hostile.grade(source, "3.1", suffix=f".{kind}", timeout=30)
    no_grader_errors(run)
    exit_cell = {("py", "before"): 2, ("py", "after"): 2, ("ipynb", "before"): 2, ("ipynb", "after"): 3}[kind, where]
    assert problems(run) == [(exit_cell, status)] and run.cell_counts[status] == 1
    assert statuses(run, "3.1") == ALL_31 and run.full_marks
    record = cell(run, exit_cell)
    if how == "exit_sys":
        assert error_type(record) == "SystemExit"
        text = attack if kind == "ipynb" else source  # a notebook cell counts its own lines
        assert record.error is not None and record.error["line"] == text.splitlines().index("sys.exit(0)") + 1
    else:
        assert record.error == {"how": {"exit": 0}}, record.error  # the status it really ended with


# -- 2. hangs ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("answers", [True, False], ids=["before-answers", "alone"])
def test_infinite_loop_at_import(hostile: Hostile, answers: bool) -> None:
    """The loop is interrupted at its share of the budget (30% of 20 s: 6 s), as Jupyter's Stop button would,
    and recorded with the line it stopped at; the answers in the next cell are graded in full, and a loop
    alone leaves nothing to find."""
    loop = hostile.attack("hang_import")
    run = hostile.grade(before(loop) if answers else loop, "3.1", timeout=20)
    no_grader_errors(run)
    record = cell(run, 1)
    assert record.status == "interrupted" and record.error is not None, record
    assert record.error["seconds"] == 6.0
    assert record.error["line"] in (line_of(loop, "while True:"), line_of(loop, "    pass")), record.error
    if answers:
        assert cells(run) == [(1, "interrupted"), (2, "ok")]
        assert statuses(run, "3.1") == ALL_31
    else:
        assert cells(run) == [(1, "interrupted")]
        nothing_found(run)


def test_a_loop_that_catches_the_interrupt_is_killed_and_later_cells_run(hostile: Hostile) -> None:
    """A loop that swallows the interrupt is killed at its share's end and left out of the replay; the
    answers in the cell after it keep their points."""
    run = hostile.grade(notebook("import torch", hostile.attack("catch_interrupt"), SOURCE), "3.1",
                        suffix=".ipynb", timeout=12)
    assert cells(run) == [(1, "ok"), (2, "timeout"), (3, "ok")] and run.cell_counts == {"ok": 2, "timeout": 1}
    assert statuses(run, "3.1") == ALL_31


def test_a_loop_that_spends_the_whole_budget_is_still_recorded(hostile: Hostile) -> None:
    """The same loop past the submission's whole budget: the page must say which cell hung, and every
    check fails on the spent budget."""
    run = hostile.grade(after(hostile.attack("catch_interrupt")), "3.1", timeout=2)
    assert all(c.status == "failed" and c.message_key == "check.deadline" for c in all_checks(run))
    assert cell(run, 2).status == "timeout"


def test_infinite_loop_in_init(hostile: Hostile, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every construction of MultiHeadAttention hangs: 3.3 and mask fail on deadlines, 3.1 keeps its points."""
    monkeypatch.setattr("grader.judge.client.PROBE_S", SHORT_PROBE_S)
    run = hostile.grade(after(hostile.attack("hang_init")), "3.1,3.3,mask", timeout=30)
    assert cells(run) == [(1, "ok"), (2, "ok")]
    no_grader_errors(run)
    assert statuses(run, "3.1") == ALL_31
    hung = [c for e in run.exercises if e.id in ("3.3", "mask") for c in e.checks]
    assert hung and all(c.status == "failed" and c.message_key in ("check.timeout", "check.deadline")
                        for c in hung), [(c.id, c.status, c.message_key) for c in hung]
    assert any(c.message_key == "check.timeout" for c in hung)


def test_infinite_loop_in_forward(hostile: Hostile, monkeypatch: pytest.MonkeyPatch) -> None:
    """MultiHeadAttention.forward hangs: the first probe of it spends its deadline (PROBE_S), every later probe of
    the same code fails at once, and the exercises around it keep all their points. Its parameter count, which
    only a run with the judge's weights confirms, is not confirmed."""
    monkeypatch.setattr("grader.judge.client.PROBE_S", SHORT_PROBE_S)
    run = hostile.grade(after(hostile.attack("hang_forward")), "3.3,3.1,mask,device", timeout=60)
    assert hostile.elapsed < 30, hostile.elapsed  # one 10 s deadline and a few restarts, not one per check
    assert cells(run) == [(1, "ok"), (2, "ok")]
    no_grader_errors(run)
    count = check(run, "3.3", "parameters")  # counted, but never seen at work: the child's word alone
    assert (count.status, count.message_key) == ("failed", "3.3.count.unconfirmed"), count
    for check_id in ("heads", "context"):
        result = check(run, "3.3", check_id)
        assert (result.status, result.message_key) == ("failed", "check.timeout"), result
        assert "MultiHeadAttention.forward" in result.message and "did not finish" in result.message
    assert statuses(run, "3.1") == ALL_31  # after a restart
    assert next(e for e in run.exercises if e.id == "3.1").score == 10
    mask = [c for e in run.exercises if e.id == "mask" for c in e.checks]
    for result in mask:
        assert (result.status, result.message_key) == ("failed", "check.timeout"), result
        assert "MultiHeadAttention.forward" in result.message
    assert check(run, "device", "registered").status == "passed"  # construction and listing never hang


def test_exit_in_forward_costs_only_those_checks(hostile: Hostile) -> None:
    """os._exit(3) inside a probe ends that sandbox: the checks that run the forward fail saying so, the
    others keep their points."""
    run = hostile.grade(after(hostile.attack("exit_forward")), "3.3,3.1", timeout=60)
    assert hostile.elapsed < 30, hostile.elapsed
    no_grader_errors(run)
    assert check(run, "3.3", "parameters").message_key == "3.3.count.unconfirmed"  # never seen at work
    for check_id in ("heads", "context"):
        result = check(run, "3.3", check_id)
        assert (result.status, result.message_key) == ("failed", "check.exited"), result
        assert "status 3" in result.message and "MultiHeadAttention.forward" in result.message
    assert statuses(run, "3.1") == ALL_31


# -- 3. resources ---------------------------------------------------------------------------------------
def test_memory_bomb(hostile: Hostile) -> None:
    """Allocating until failure ends the cell (MemoryError at the memory cap, a killed child, or, on a slow
    machine, the interrupt at its share of the time); the answers in the next cell still run and keep
    their points."""
    bomb = hostile.attack("memory_bomb")
    run = hostile.grade(before(bomb), "3.1", timeout=60)
    assert hostile.elapsed < 45, hostile.elapsed  # touching 6 GB takes ~15 s on a slow VM
    record = cell(run, 1)
    assert record.status in ("raised", "crashed", "interrupted"), record
    if record.status == "raised":  # raised where the block is allocated
        assert error_type(record) == "MemoryError" and record.error is not None
        assert record.error["line"] == line_of(bomb, "hog.append("), record.error
    assert cell(run, 2).status == "ok"
    assert statuses(run, "3.1") == ALL_31


def test_fork_bomb(hostile: Hostile) -> None:
    """Up to 1024 forked processes (the process limit stops it at 512), each ending as `sleep 987652`:
    all gone after grading, answers intact."""
    run = hostile.grade(after(hostile.attack("fork_bomb")), "3.1", timeout=30)
    assert cells(run) == [(1, "ok"), (2, "ok")]
    assert statuses(run, "3.1") == ALL_31


@pytest.mark.parametrize("attack", ["flood_write_stdout", "flood_write_stderr", "flood_print_stdout",
                                    "flood_print_stderr"])
def test_output_flood(hostile: Hostile, attack: str) -> None:
    """300 MB of output: the result keeps at most 8192 bytes, the most recent ones."""
    run = hostile.grade(after(hostile.attack(attack)), "3.1", timeout=60)
    assert hostile.elapsed < 30, hostile.elapsed
    assert cells(run) == [(1, "ok"), (2, "ok")]
    assert len(run.output_tail.encode("utf-8")) <= 8192
    assert f"FLOOD-END-{hostile.mark}" in run.output_tail
    assert statuses(run, "3.1") == ALL_31


# -- 4. patched comparisons ---------------------------------------------------------------------------------
def test_wrong_answer_alone(hostile: Hostile) -> None:
    """The baseline the attacks next to WRONG are held to."""
    run = hostile.grade(WRONG, WRONG_EXERCISES)
    assert verdict(run) == WRONG_VERDICT


def test_patched_torch_comparisons(hostile: Hostile) -> None:
    """torch.allclose, torch.equal, assert_close, Tensor.__eq__ always "succeed" in the child: the
    judge compares in its own process, so the wrong answer gets exactly what it gets alone."""
    run = hostile.grade(WRONG + "\n" + hostile.attack("patch_torch_compare"), WRONG_EXERCISES)
    assert all(status == "ok" for _, status in cells(run))
    assert verdict(run) == WRONG_VERDICT
    assert check(run, "3.1", "parameters").message_key == "3.1.parameters.wrong"
    assert check(run, "mask", "reference").message_key == "mask.reference.mismatch"


# -- 5. lying tensor subclasses ------------------------------------------------------------------------------
@pytest.mark.parametrize("attack, honest", [
    # the same wrong values as a plain tensor
    ("tensor_subclass_equal", ("(_right(self, x) * 0.5).as_subclass(Liar)", "_right(self, x) * 0.5")),
    # zeros of the shape the liar claims
    ("tensor_subclass_shape", ("torch.zeros(*x.shape[:-1], 1).as_subclass(Liar)",
                               "torch.zeros(*x.shape[:-1], self.d_out)")),
])
def test_lying_tensor_subclass(hostile: Hostile, attack: str, honest: tuple[str, str]) -> None:
    """A forward returning a Tensor subclass that claims equality (or fakes its shape) earns no more
    than the same wrong values returned honestly; the checks against the reference fail."""
    lie = hostile.attack(attack)
    assert honest[0] in lie
    run = hostile.grade(after(lie), "3.3,mask")
    no_grader_errors(run)
    for exercise, check_id in (("3.3", "heads"), ("mask", "reference")):  # the value comparisons
        result = check(run, exercise, check_id)
        # The shape liar makes the child read past its buffer: garbage (a mismatch), or a crash.
        keys = {f"{exercise}.{check_id}.mismatch", "check.killed", "check.protocol"}
        assert result.status == "failed" and result.message_key in keys, result
    plain = hostile.grade(after(lie.replace(*honest)), "3.3,mask")
    assert passed_checks(run) <= passed_checks(plain), passed_checks(run) - passed_checks(plain)
    assert run.score <= plain.score


# -- 6. fake results and workflow commands ---------------------------------------------------------------
def test_fake_results_at_import(hostile: Hostile) -> None:
    """Fake JSON, PASSED lines and ::workflow commands in the output and a cell's exception change
    nothing: the score is what the answers earn, and no terminal line starts with '::'."""
    run = hostile.grade(after(hostile.attack("fake_results")), "3.1,3.2")
    assert cells(run) == [(1, "ok"), (2, "raised")]
    assert error_type(cell(run, 2)) == "RuntimeError"
    assert statuses(run, "3.1") == ALL_31 and statuses(run, "3.2") == ALL_32
    assert run.score == run.max_score == 16
    assert '{"score": 100' in run.output_tail  # shown as output, never read as a result
    assert_safe_rendering(run)


def test_fake_results_in_a_check_message(hostile: Hostile) -> None:
    """An answer that raises with workflow commands in its message: it loses that answer's points (and
    only those), and the grader's message quoting the error starts no terminal line with '::'."""
    run = hostile.grade(after(hostile.attack("fake_results_in_answer")), "3.1,3.2")
    assert cells(run) == [(1, "ok"), (2, "ok")]
    assert statuses(run, "3.1") == ALL_31
    raised = check(run, "3.2", "answer")  # the function; `concat` uses the class, still right
    assert (raised.status, raised.message_key) == ("failed", "check.raised"), raised
    assert "RuntimeError" in raised.message and "build_two_dim_wrapper" in raised.message
    assert check(run, "3.2", "concat").status == "passed"
    assert run.score == 12
    assert_safe_rendering(run)


# -- 7. patching the grader inside the sandbox ----------------------------------------------------------------
@pytest.mark.parametrize("attack", ["patch_grader_call", "patch_grader_send", "patch_grader_encode"])
def test_patched_grader_modules(hostile: Hostile, attack: str) -> None:
    """The child can rewrite its own copy of the grader's modules; it still cannot make the judge pass
    a check the wrong answer fails, and the run ends and reports (failed, not a grader error)."""
    run = hostile.grade(WRONG + "\n" + hostile.attack(attack), WRONG_EXERCISES)
    assert [e.id for e in run.exercises] == WRONG_EXERCISES.split(",")
    for exercise, check_id in WRONG_FAILS:
        result = check(run, exercise, check_id)
        assert result.status == "failed", (exercise, check_id, result.status, result.message)
    no_grader_errors(run)
    assert run.score <= sum(c.max_score for e in run.exercises for c in e.checks
                            if WRONG_VERDICT[e.id][c.id] == "passed")


# -- 8. signals and processes ---------------------------------------------------------------------------------
def test_kill_own_process_group(hostile: Hostile) -> None:
    """os.killpg(0, 9) reaches only the sandbox's own group: that cell crashes (or, as PID 1 of its
    own namespace, the child is immune), and the answers keep their points."""
    run = hostile.grade(after(hostile.attack("kill_group")), "3.1")
    assert cell(run, 1).status == "ok"
    assert cell(run, 2).status in ("crashed", "ok")
    if cell(run, 2).status == "crashed":
        assert cell(run, 2).error == {"how": {"signal": 9}}
    assert statuses(run, "3.1") == ALL_31


def test_ignored_signals_then_loop(hostile: Hostile) -> None:
    """Signals ignored, the interrupting alarm among them: the loop cannot be stopped, so it is killed at
    its share's end and left out of the replay."""
    run = hostile.grade(after(hostile.attack("ignore_signals")), "3.1", timeout=20)
    assert cells(run) == [(1, "ok"), (2, "timeout")]
    assert statuses(run, "3.1") == ALL_31


@pytest.mark.parametrize("attack", ["orphan_setsid", "orphan_double_fork"])
def test_orphans_do_not_survive(hostile: Hostile, attack: str) -> None:
    """A `sleep 98765N` in a new session (setsid, or a double fork) escapes the process group; it must
    still end with the sandbox (checked in Hostile.grade: no marked process left)."""
    run = hostile.grade(after(hostile.attack(attack)), "3.1")
    assert cells(run) == [(1, "ok"), (2, "ok")]
    assert statuses(run, "3.1") == ALL_31


@pytest.fixture
def private_launcher() -> Iterator[ZygoteLauncher]:
    """A zygote of its own, so an attack on the zygote cannot break the session's."""
    launcher = ZygoteLauncher()
    yield launcher
    launcher.close()


def _grade_private(launcher: ZygoteLauncher, path: Path, timeout: float) -> tuple[RunResult, float]:
    started = time.monotonic()
    run = grade(path, [EXERCISES["3.1"]], launcher, seed=0, timeout=timeout)
    return run, time.monotonic() - started


@pytest.mark.destructive
def test_kill_parent(hostile: Hostile, private_launcher: ZygoteLauncher) -> None:
    """os.kill(os.getppid(), 9): the zygote (the judge itself, without one) must survive, and keep serving."""
    path = hostile.folder / "submission.py"
    path.write_text(after(hostile.attack("kill_parent")), encoding="utf-8")
    run, elapsed = _grade_private(private_launcher, path, 30)
    assert elapsed < 30 + SLACK
    assert cell(run, 1).status == "ok"
    assert statuses(run, "3.1") == ALL_31
    assert private_launcher.zygote.proc.poll() is None, "the submission killed its zygote"
    again, _ = _grade_private(private_launcher, SOLUTION, 30)  # the next student is still graded
    assert again.full_marks
    assert not survivors()


@pytest.mark.destructive
def test_kill_every_process(hostile: Hostile, private_launcher: ZygoteLauncher) -> None:
    """os.kill(-1, 9) must reach nothing outside the sandbox: a PID namespace hides every other process,
    seccomp refuses kill(-1) where there is none. Without either, as root, it would kill the test runner
    and the machine's services, so this test fails rather than run it."""
    probe, _ = _grade_private(private_launcher, SOLUTION, 30)
    if not {"pid-namespace", "seccomp"} & set(probe.protections):
        pytest.fail(f"neither a PID namespace nor seccomp ({probe.protections}): os.kill(-1, 9) would escape")
    canary = subprocess.Popen(["sleep", "123457"])  # ours, outside the sandbox
    try:
        path = hostile.folder / "submission.py"
        path.write_text(after(hostile.attack("kill_everything")), encoding="utf-8")
        run, elapsed = _grade_private(private_launcher, path, 30)
        assert elapsed < 30 + SLACK
        assert canary.poll() is None, "os.kill(-1, 9) reached a process outside the sandbox"
        assert private_launcher.zygote.proc.poll() is None, "os.kill(-1, 9) reached the zygote"
        assert cell(run, 1).status == "ok" and cell(run, 2).status in ("ok", "raised", "crashed")
        assert statuses(run, "3.1") == ALL_31
    finally:
        canary.kill()
        canary.wait()


# -- 9. the filesystem ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("attack", ["write_beside", "write_parent", "write_home", "write_site_packages",
                                    "empty_siblings"])
def test_writes_outside_scratch_fail(hostile: Hostile, attack: str) -> None:
    """Hostile.grade asserts that nothing changed beside the submission or above it, and that no file
    with this test's mark appeared in $HOME or site-packages. The write fails in its own cell
    (permission denied) and the answers keep their points."""
    run = hostile.grade(after(hostile.attack(attack)), "3.1")
    assert cell(run, 1).status == "ok"
    record = cell(run, 2)
    assert record.status == "raised" and error_type(record) in ("PermissionError", "OSError"), record
    assert statuses(run, "3.1") == ALL_31


def test_writes_inside_scratch_are_allowed(hostile: Hostile) -> None:
    """The scratch copy is the submission's to use; it is deleted with the sandbox."""
    run = hostile.grade(after(hostile.attack("write_scratch")), "3.1")
    assert cells(run) == [(1, "ok"), (2, "ok")]
    match = re.search(r"SCRATCH-OK (\S+)", run.output_tail)
    assert match, run.output_tail
    written = Path(match.group(1))
    assert written.parent != hostile.folder and not written.exists()
    assert statuses(run, "3.1") == ALL_31


# -- 10. the judge's reference ---------------------------------------------------------------------------------
@pytest.mark.parametrize("attack", ["import_solutions", "import_exercises", "read_solutions", "walk_solutions"])
def test_reference_is_out_of_reach(hostile: Hostile, attack: str) -> None:
    """A submission that only re-exports the judge's reference: the import (or the read) fails in the
    sandbox, the error is recorded, and nothing is found to grade."""
    run = hostile.grade(hostile.attack(attack), "3.1,3.2,3.3")
    raised = [r for r in every_cell(run) if r.status != "ok"]  # the statement that tried (and any using it)
    assert raised, f"the reference was reachable: score {run.score}/{run.max_score}"
    record = raised[0]
    assert record.status == "raised" and error_type(record) in ("PermissionError", "ImportError", "ModuleNotFoundError"), record
    nothing_found(run)


# -- 11. the network ----------------------------------------------------------------------------------------------
@pytest.fixture
def tcp_server() -> Iterator[socket.socket]:
    server = socket.create_server(("127.0.0.1", 0))
    server.setblocking(False)
    yield server
    server.close()


@pytest.fixture
def udp_server() -> Iterator[socket.socket]:
    server = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    server.bind(("127.0.0.1", 0))
    server.setblocking(False)
    yield server
    server.close()


def _received(server: socket.socket) -> bool:
    try:
        if server.type == socket.SOCK_STREAM:
            conn, _ = server.accept()
            conn.close()
        else:
            server.recv(4096)
    except BlockingIOError:
        return False
    return True


@pytest.mark.parametrize("attack", ["socket_connect", "socket_udp", "socket_listen"])
def test_network_is_closed(hostile: Hostile, attack: str, tcp_server: socket.socket,
                           udp_server: socket.socket) -> None:
    """TCP connect, UDP sendto and a listening socket all fail in the sandbox (the cell error says how),
    nothing reaches the test's own sockets, and the answers keep their points."""
    port = {"socket_connect": tcp_server, "socket_udp": udp_server}.get(attack, tcp_server).getsockname()[1]
    run = hostile.grade(after(hostile.attack(attack, port=port)), "3.1")
    assert not _received(tcp_server) and not _received(udp_server), "the submission reached the network"
    assert cell(run, 1).status == "ok"
    record = cell(run, 2)
    assert record.status == "raised", f"the socket worked: {run.output_tail[-200:]!r}"
    assert error_type(record) in ("PermissionError", "OSError", "ConnectionRefusedError", "TimeoutError"), record
    assert statuses(run, "3.1") == ALL_31


# -- 12. markup and terminal escapes ----------------------------------------------------------------------------------
def test_markup_and_escapes_in_output_and_cell_error(hostile: Hostile) -> None:
    run = hostile.grade(after(hostile.attack("markup_escapes")), "3.1")
    assert cells(run) == [(1, "ok"), (2, "raised")]
    assert error_type(cell(run, 2)) == "ValueError"
    assert statuses(run, "3.1") == ALL_31
    assert_safe_rendering(run)
    page = html.render(run)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page  # the output is shown, escaped
    assert "&lt;script&gt;alert(2)&lt;/script&gt;" in page  # and so is the cell's error


def test_markup_and_escapes_in_a_check_message(hostile: Hostile) -> None:
    run = hostile.grade(after(hostile.attack("markup_in_answer")), "3.1,3.2")
    assert statuses(run, "3.1") == ALL_31
    raised = check(run, "3.2", "answer")
    assert (raised.status, raised.message_key) == ("failed", "check.raised"), raised
    assert check(run, "3.2", "concat").status == "passed"
    assert_safe_rendering(run)
    assert "&lt;script&gt;alert(4)&lt;/script&gt;" in html.render(run)
