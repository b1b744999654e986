"""Single-file mode copies the files beside the submission (README, "Files beside the submission").

Contract: `grade EX FILE` gives the code the regular files of FILE's folder, read-only; a sub-folder
only where the code names it; no link that leads out of the folder; at most 200 files and 64 MiB, the
files the code names first, and what the caps left out said on the terminal, the page and in the JSON.
The folders here imitate learners': a script beside its own data, a notebook with a `data/` folder, a
Downloads folder of 300 files with a huge one and a link to a private file.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, grade, select
from grader.judge.launcher import ZygoteLauncher
from grader.load.submission import Cell, named_paths
from grader.results import LEFT_OUT, RunResult, SubmissionInfo, from_json, to_json
from grader.judge.scratch import READ_ONLY, SIBLING_BYTES, SIBLING_FILES, Scratch, Sibling, siblings

CODE = "with open('input.txt') as f:\n    text = f.read()\n"


def folder(tmp_path: Path, files: dict[str, str], code: str = CODE, name: str = "gpt.py") -> Path:
    """A learner's folder: `files` by relative path, and the submission `name` holding `code`."""
    for relative, content in files.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(content, encoding="utf-8")
    submission = tmp_path / name
    submission.write_text(code, encoding="utf-8")
    return submission


def found(submission: Path, code: str = CODE) -> tuple[list[str], list[str]]:
    result = siblings(submission, named_paths([Cell(1, code, "gpt.py")]))
    return [s.name for s in result.files], list(result.left_out)


# -- what the code names ---------------------------------------------------------------------------------------
def test_named_paths_are_the_codes_strings_whole_and_in_parts() -> None:
    code = ("open('data/input.txt')\nos.path.join(\"corpus\", 'tiny')\nPath(r'win\\sub\\x.txt')\n"
            "f'logs/{n}.txt'\n# 'private' in a comment is no string\n")
    named = named_paths([Cell(1, code, "a.py")])
    assert {"data/input.txt", "data", "input.txt", "corpus", "tiny", "win", "sub", "x.txt", "logs"} <= named
    assert "private" not in named


def test_a_cell_that_does_not_parse_still_names_its_paths() -> None:
    named = named_paths([Cell(1, "x = (\nopen('data/a.txt'  # it's unclosed\ny = 'it''s'\n", "a.py")])
    assert {"data", "a.txt"} <= named and "s unclosed" not in named


# -- what is copied ----------------------------------------------------------------------------------------------
def test_regular_files_beside_are_found_and_the_submission_is_not(tmp_path: Path) -> None:
    submission = folder(tmp_path, {"input.txt": "abc", "helper.py": "x = 1\n", "notes/todo.txt": "no"})
    assert found(submission) == (["input.txt", "helper.py"], [])  # named first; notes/ is not named


def test_a_sub_folder_is_copied_when_the_code_names_it(tmp_path: Path) -> None:
    code = "text = open('data/input.txt').read()\n"
    submission = folder(tmp_path, {"data/input.txt": "abc", "data/more/deep.txt": "no", "other/x.txt": "no"}, code)
    assert found(submission, code) == (["data/input.txt"], [])
    code = "text = open(os.path.join('data', 'more', 'deep.txt')).read()\n"
    assert found(submission, code)[0] == ["data/more/deep.txt", "data/input.txt"]


def test_no_link_leads_out_of_the_folder(tmp_path: Path) -> None:
    outside = tmp_path / "private.txt"
    outside.write_text("secret", encoding="utf-8")
    mine = tmp_path / "mine"
    submission = folder(mine, {"input.txt": "abc", "sub/a.txt": "a"})
    (mine / "secret.txt").symlink_to(outside)
    (mine / "absolute.txt").symlink_to("/etc/hostname")
    (mine / "up").symlink_to(tmp_path, target_is_directory=True)
    (mine / "loop").symlink_to(mine / "loop")
    (mine / "alias.txt").symlink_to(mine / "input.txt")  # a link inside the folder is the file it names
    (mine / "sub_link").symlink_to(mine / "sub", target_is_directory=True)
    names, left_out = found(submission, CODE + "open('up/private.txt'); open('sub_link/a.txt')\n")
    assert names == ["input.txt", "alias.txt"] and left_out == []
    result = siblings(submission, set())
    assert [s.source for s in result.files] == [(mine / "input.txt").resolve()] * 2


def test_a_huge_file_is_left_out_and_the_rest_still_fit(tmp_path: Path) -> None:
    submission = folder(tmp_path, {"input.txt": "abc", "zz.txt": "z"})
    with open(tmp_path / "model.pt", "wb") as big:
        big.truncate(SIBLING_BYTES + 1)  # sparse: 64 MiB and a byte, nothing written
    assert found(submission) == (["input.txt", "zz.txt"], ["model.pt"])


def test_300_files_keep_the_first_200_the_named_ones_first(tmp_path: Path) -> None:
    submission = folder(tmp_path, {f"notes_{i:03}.txt": "n" for i in range(300)} | {"zzz_input.txt": "abc"},
                        "text = open('zzz_input.txt').read()\n")
    names, left_out = found(submission, "text = open('zzz_input.txt').read()\n")
    assert len(names) == SIBLING_FILES == 200 and names[0] == "zzz_input.txt"
    assert left_out == [f"notes_{i:03}.txt" for i in range(199, 300)]


def test_the_note_says_how_many_were_left_out_and_the_caps(tmp_path: Path) -> None:
    submission = folder(tmp_path, {f"n{i:03}.txt": "n" for i in range(203)})
    assert siblings(submission, set()).note() == {"count": 3, "names": ["n200.txt", "n201.txt", "n202.txt"],
                                                  "max_files": 200, "max_mib": 64}
    tidy = folder(tmp_path / "tidy", {"input.txt": "abc"})
    assert siblings(tidy, set()).note() == {}


# -- the scratch folder --------------------------------------------------------------------------------------------
def test_siblings_are_placed_read_only_in_their_sub_folders(tmp_path: Path) -> None:
    source = tmp_path / "input.txt"
    source.write_text("abc", encoding="utf-8")
    scratch = Scratch([Sibling("data/input.txt", source, 3), Sibling("gone.txt", tmp_path / "gone.txt", 1)])
    try:
        copy = scratch.path / "data" / "input.txt"
        assert copy.read_text(encoding="utf-8") == "abc" and (copy.stat().st_mode & 0o777) == READ_ONLY
        assert not (scratch.path / "gone.txt").exists()  # vanished since it was found: left out, no error
        source.write_text("abcdef", encoding="utf-8")  # grew since it was counted: only what was counted
        scratch.reset()
        assert copy.read_text(encoding="utf-8") == "abc"
    finally:
        scratch.remove()


def test_a_file_swapped_for_a_fifo_is_not_read(tmp_path: Path) -> None:
    fifo = tmp_path / "input.txt"
    os.mkfifo(fifo)
    scratch = Scratch([Sibling("input.txt", fifo, 3)])  # would block forever on a plain open
    try:
        assert not (scratch.path / "input.txt").exists()
    finally:
        scratch.remove()


# -- in the sandbox -----------------------------------------------------------------------------------------------
PROBE = """\
import os
print('READ', open('input.txt').read())
print('NAMED', open('data/input.txt').read())
print('LISTING', sorted(os.listdir('.')))
try:
    open('input.txt', 'w').write('changed')
    print('WROTE')
except OSError as exc:
    print('NOT-WRITTEN', type(exc).__name__)
try:
    os.chmod('input.txt', 0o644)
    print('CHMOD')
except OSError as exc:
    print('NO-CHMOD', type(exc).__name__)
open('mine.txt', 'w').write('ok')
print('NEW', open('mine.txt').read())
"""


def test_the_code_reads_its_siblings_but_cannot_change_them(launcher: ZygoteLauncher, tmp_path: Path) -> None:
    private = tmp_path / "private.txt"
    private.write_text("secret", encoding="utf-8")
    mine = tmp_path / "mine"
    submission = folder(mine, {"input.txt": "own text", "data/input.txt": "in data", "notes/todo.txt": "x"},
                        PROBE, name="probe.py")
    (mine / "secret.txt").symlink_to(private)
    run = grade(submission, select("3.1"), launcher, seed=0, beside=True)
    out = run.output_tail
    assert "READ own text" in out and "NAMED in data" in out
    assert "LISTING ['data', 'input.txt', 'probe.py']" in out  # no link out, no folder it does not name
    assert "NOT-WRITTEN PermissionError" in out and "NEW ok" in out
    if "unprivileged-user" in run.protections:  # a root-run grader: the copy is not the sandbox uid's
        assert "NO-CHMOD PermissionError" in out
    assert (mine / "input.txt").read_text(encoding="utf-8") == "own text"
    assert run.submission.left_out == {}


def test_without_beside_only_the_file_is_copied(launcher: ZygoteLauncher, tmp_path: Path) -> None:
    """Batch, CI and Gradescope grade the files they were given; `grade()` copies siblings only when asked."""
    submission = folder(tmp_path, {"input.txt": "own text"}, "import os\nprint('HAS', os.path.exists('input.txt'))\n")
    run = grade(submission, select("3.1"), launcher, seed=0)
    assert "HAS False" in run.output_tail


# -- the result and its renderers ---------------------------------------------------------------------------------
def test_left_out_round_trips_through_json_and_is_bounded() -> None:
    note = {"count": 500, "names": [f"f{i}.txt" for i in range(500)], "max_files": 200, "max_mib": 64}
    run = RunResult("0", 1, "en", "2026-01-01T00:00:00+00:00", 1.0,
                    SubmissionInfo("gpt.py", "0" * 64, "py", left_out=note), (), (), ())
    again = from_json(json.loads(json.dumps(to_json(run))))
    assert again.submission.left_out == {**note, "names": note["names"][:LEFT_OUT]}
    assert from_json(json.loads(json.dumps(to_json(again)))) == again


def _grade_cli(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "LC_ALL": "C.UTF-8", "LANG": "C.UTF-8", "NO_COLOR": "1"}
    return subprocess.run([sys.executable, "-m", "grader", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, encoding="utf-8", timeout=180)


def test_a_downloads_folder_is_capped_and_the_page_says_so(tmp_path: Path) -> None:
    """A script in a folder of 300 files, a huge model file and a link to a private file: its own
    input.txt is copied first (the code names it), and what the caps left out is named."""
    lecture = (ROOT / "tests" / "exercise" / "test_gpt_data.py").read_text(encoding="utf-8")
    code = lecture.split('LECTURE = """\\\n', 1)[1].split('"""', 1)[0]
    downloads = tmp_path / "Downloads"
    files = {f"notes_{i:03}.txt": "n" for i in range(300)}
    submission = folder(downloads, files | {"input.txt": "To be, or not to be: that is the question.\n" * 40},
                        code, name="gpt.py")
    with open(downloads / "big.bin", "wb") as big:
        big.truncate(100 * 2**20)
    (tmp_path / "private.txt").write_text("hunter2", encoding="utf-8")
    (downloads / "passwords.txt").symlink_to(tmp_path / "private.txt")
    result = _grade_cli("gpt.tokenizer,gpt.split", submission, "--json", "out.json", "--html", "page.html",
                        cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    data = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    left_out = data["submission"]["left_out"]
    assert left_out["count"] == 102 and left_out["names"][0] == "big.bin"  # 302 found, 200 copied
    assert (left_out["max_files"], left_out["max_mib"]) == (200, 64)
    messages = [c["messages"][data["lang"]] for e in data["exercises"] for c in e["checks"]]
    assert "chars holds the 18 distinct characters of input.txt in sorted order." in messages
    assert "102 files beside your submission were not copied" in result.stdout
    assert "at most 200 files and 64 MiB" in result.stdout and "Not copied: big.bin, notes_199.txt" in result.stdout
    page = (tmp_path / "page.html").read_text(encoding="utf-8")
    assert "Files not copied" in page and "未复制的文件" in page and "big.bin" in page


def test_a_tidy_folder_gets_no_note(tmp_path: Path) -> None:
    submission = folder(tmp_path / "course", {"input.txt": "abc"}, "x = 1\n")
    result = _grade_cli("gpt.tokenizer", submission, "--json", "out.json", "--html", "page.html", cwd=tmp_path)
    assert result.returncode in (0, 1), result.stderr
    assert json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))["submission"]["left_out"] == {}
    assert "not copied" not in result.stdout and "Files not copied" not in (tmp_path / "page.html").read_text()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_note_reads_in_both_languages(lang: str) -> None:
    from grader.render.text import left_out

    note = {"count": 21, "names": [f"f{i}" for i in range(20)], "max_files": 200, "max_mib": 64}
    run = RunResult("0", 1, lang, "t", 1.0, SubmissionInfo("gpt.py", "0" * 64, "py", left_out=note), (), (), ())
    text = left_out(run, lang)
    assert "21" in text and "200" in text and "64 MiB" in text and text.endswith("f19, …")
