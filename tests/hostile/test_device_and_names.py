"""Hostile corpus, round 2: a device bug hidden from the `registered` check, and two hand-ins whose names
collide in a class download.

* A mask that `.to(device)` leaves on the CPU fails `registered` wherever it hides (a list, a dict, a
  module-level cache, a closure, made in forward without `device=`, heads in a plain list), also when the
  forward refuses the stand-in device the check moves it to; the message names the class and the tensor.
* Two hand-ins that would be one student under a tidied name (`zz .py` and `zz.py`) never share a sandbox:
  without a --student-pattern that picks the same name out of both, the run stops and names both.
"""
from __future__ import annotations

import os
import subprocess
import sys
import unicodedata
import uuid
from pathlib import Path

import pytest

from conftest import SOLUTION, check
from grader.outputs.names import page_name
from grader.classes.roster import RosterError, collect

from .test_attacks import Hostile, after, hostile, no_grader_errors  # noqa: F401

SOURCE = SOLUTION.read_text(encoding="utf-8")


# -- a mask that does not follow the module ------------------------------------------------------------------
@pytest.mark.parametrize(("attack", "key", "said"), [
    ("device_mask_in_list", "device.registered.behind", "uses self.masks[0] (shape 8×8)"),
    ("device_mask_in_dict", "device.registered.behind", "uses self.cache['mask'] (shape 8×8)"),
    ("device_mask_global", "device.registered.behind", "uses the global _MASKS["),
    ("device_mask_closure", "device.registered.behind", "uses mask, a variable of an enclosing function"),
    ("device_mask_made_in_forward", "device.registered.made", "makes a tensor (shape 8×8) on the CPU"),
    ("device_dodge_stand_in", "device.registered.behind", "uses self.masks[0] (shape 8×8)"),
])
def test_hidden_mask_fails_registered(hostile: Hostile, attack: str, key: str, said: str) -> None:
    """The reference with its mask moved out of the buffers: each hiding place fails with the class and the
    tensor named, and says what to use instead."""
    run = hostile.grade(after(hostile.attack(attack)), "device")
    no_grader_errors(run)
    result = check(run, "device", "registered")
    assert (result.status, result.message_key) == ("failed", key), result.message
    assert result.message.startswith(f"CausalAttention.forward {said}"), result.message
    assert "register_buffer" in result.message
    assert result.score == 0


def test_heads_in_a_plain_list_fail_registered(hostile: Hostile) -> None:
    """.to(device) never reaches modules kept in a plain list: their weights stay on the CPU."""
    run = hostile.grade(after(hostile.attack("device_heads_in_list")), "device")
    result = check(run, "device", "registered")
    assert (result.status, result.message_key) == ("failed", "device.registered.module"), result.message
    assert result.message.startswith("MultiHeadAttentionWrapper.forward uses heads[0]."), result.message
    assert "nn.ModuleList" in result.message


# -- names that collide in a class download -----------------------------------------------------------------
def grade_command(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "grader", *map(str, args)], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "LANG": "en_US.UTF-8"})


def test_twin_names_never_share_a_sandbox(hostile: Hostile, tmp_path: Path) -> None:
    """`zz .py` would read and sabotage `zz.py` if the two ran as one student: the batch refuses to start,
    on one line of stderr naming both files, before anything is graded or written."""
    download = tmp_path / "download"
    download.mkdir()
    (download / "zz .py").write_text(hostile.attack("roster_twin"), encoding="utf-8")
    (download / "zz.py").write_text(SOURCE, encoding="utf-8")
    (download / "ann.py").write_text(SOURCE, encoding="utf-8")
    out = tmp_path / "out"
    done = grade_command("batch", download, "-o", out, "-e", "3.1", "-j", "1")
    assert done.returncode == 2, (done.stdout, done.stderr)
    [line] = done.stderr.strip().splitlines()
    assert repr(str(download / "zz .py")) in line and repr(str(download / "zz.py")) in line, line
    assert not (out / "gradebook.sqlite").exists() and not (out / "pages").exists()


NFD = unicodedata.normalize("NFD", "José")
NFC = unicodedata.normalize("NFC", "José")


def forged_page(name: str) -> str:
    """The name whose own feedback page would be `name`'s: its slug plus the hash page_name adds."""
    return f"{name.replace(' ', '_')}-{uuid.uuid5(uuid.NAMESPACE_URL, name).hex[:8]}"


@pytest.mark.parametrize(("first", "second"), [
    ("zz .py", "zz.py"),  # a space at the end of the stem
    (f"{NFD}.py", f"{NFC}.py"),  # an accent decomposed (macOS) or composed
    ("zz\u200b.py", "zz.py"),  # an invisible character
    ("Ann.py", "ann.py"),  # one feedback page on a case-blind disk
    ("zz /main.py", "zz.ipynb"),  # a student's folder and a file
])
def test_names_alike_are_refused(tmp_path: Path, first: str, second: str) -> None:
    source = hand_in(tmp_path / "class", first, second)
    with pytest.raises(RosterError) as caught:
        collect([source], tmp_path / "work")
    assert caught.value.key == "roster.ambiguous"
    shown = {caught.value.args_["first"], caught.value.args_["second"]}
    assert shown == {repr(str(source / Path(name).parts[0])) for name in (first, second)}


def test_no_two_students_share_a_feedback_page(tmp_path: Path) -> None:
    """A name spelled as another's page name (`li_wei-<its hash>`) is refused or gets a page of its own."""
    source = hand_in(tmp_path / "class", "li wei.py", f"{forged_page('li wei')}.py")
    try:
        students, _ = collect([source], tmp_path / "work")
    except RosterError as exc:
        assert exc.key == "roster.ambiguous"
    else:
        assert len({page_name(s.name).casefold() for s in students}) == len(students) == 2


def hand_in(folder: Path, *names: str) -> Path:
    for name in names:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text("x = 1\n", encoding="utf-8")
    return folder


def test_names_alike_in_two_downloads_are_refused(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / f"{NFC}.py").write_text("x = 1\n", encoding="utf-8")
    (tmp_path / "b" / f"{NFD}.py").write_text("x = 2\n", encoding="utf-8")
    with pytest.raises(RosterError) as caught:
        collect([tmp_path / "a" / f"{NFC}.py", tmp_path / "b" / f"{NFD}.py"], tmp_path / "work")
    assert caught.value.key == "roster.ambiguous"


def test_a_pattern_groups_what_it_names_alike_and_nothing_else(tmp_path: Path) -> None:
    """The instructor's pattern decides: files it gives the same name are one student's; names it gives
    that differ only by a space are still refused."""
    source = tmp_path / "class"
    source.mkdir()
    for name in ("zz_1_main.py", "zz_2_helper.py", "ann_3_main.py"):
        (source / name).write_text("x = 1\n", encoding="utf-8")
    students, _ = collect([source], tmp_path / "work", r"^(?P<student>[^_]+)_")
    assert {s.name: len(s.files) for s in students} == {"ann": 1, "zz": 2}
    (source / "zz _4_other.py").write_text("x = 1\n", encoding="utf-8")
    with pytest.raises(RosterError) as caught:
        collect([source], tmp_path / "work2", r"^(?P<student>[^_]+)_")
    assert caught.value.key == "roster.ambiguous"
