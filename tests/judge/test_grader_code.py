"""The judge's rules for the grader's own code, as data (issue 48, point 3): which folders a child may not read
(every copy of the references, the checks and the book's code the grader keeps on the child's import path), and
which objects a child lists no lookup may find (what the grader's distribution defines). The hostile corpus
holds both end to end (tests/hostile/test_given_code.py, tests/end_to_end/test_installed_layout.py)."""
from __future__ import annotations

import importlib.machinery
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from grader import solutions
from grader.judge import secrets
from grader.sandbox import confine, inventory

GIVEN = secrets.OWN / "classes" / "given"


# Where a copy keeps its references and checks: inside the package (a wheel), or beside it (a checkout, or a wheel
# of a version that installed them at the top level).
INSIDE = ("grader/solutions", "grader/exercises", "grader/classes/given")
BESIDE = ("solutions", "exercises", "grader/classes/given")


def copy_of_the_distribution(root: Path, secrets: tuple[str, ...] = INSIDE) -> Path:
    """A folder holding a copy of the grader: grader/ (with classes/given/ and sandbox/), its references and
    checks where `secrets` puts them."""
    for folder in ("grader/sandbox", *secrets):
        (root / folder).mkdir(parents=True)
        (root / folder / "__init__.py").write_text("", encoding="utf-8")
    (root / "grader/classes/given/book_chapter3.py").write_text("class CausalAttention: pass\n", encoding="utf-8")
    return root


def test_the_book_code_the_grader_keeps_is_hidden() -> None:
    assert str(GIVEN) in secrets.hidden_paths()
    assert str(Path(solutions.__path__[0])) in secrets.hidden_paths()


@pytest.mark.parametrize("layout", [INSIDE, BESIDE], ids=["inside", "beside"])
def test_every_copy_on_the_childs_import_path_is_hidden(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        layout: tuple[str, ...]) -> None:
    """An installed copy beside the checkout the judge imports (a contributor's venv outside it): its
    references, checks and book's code are hidden too, by the same rule, wherever on the path it lies, inside
    the package or beside it."""
    site = copy_of_the_distribution(tmp_path / "site-packages", layout)
    monkeypatch.setattr(sys, "path", [*sys.path, str(site)])
    hidden = secrets.hidden_paths()
    for folder in layout:
        assert str((site / folder).resolve()) in hidden, folder
    assert not any(Path(h) in (site, site / "grader", site / "grader" / "sandbox") for h in hidden)


def test_a_folder_named_like_the_references_beside_no_grader_is_not_hidden(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the grader's copies are hidden: another project's `solutions` package on the path is not one."""
    (tmp_path / "solutions").mkdir()
    monkeypatch.setattr(sys, "path", [*sys.path, str(tmp_path)])
    assert str((tmp_path / "solutions").resolve()) not in secrets.hidden_paths()


def test_an_entry_made_in_a_checkout_is_hidden_at_the_next_start(tmp_path: Path) -> None:
    """The checkout's listing is kept while its folder does not change, and each sandbox's start asks again: a
    build's copies made between two starts are hidden at the second, however long ago the first listing was."""
    checkout = copy_of_the_distribution(tmp_path / "checkout", BESIDE)
    (checkout / "pyproject.toml").write_text("", encoding="utf-8")
    long_ago = checkout.stat().st_mtime - 3600
    os.utime(checkout, (long_ago, long_ago))
    first = secrets._checkout(checkout)
    assert first == secrets._checkout(checkout)
    assert str(checkout / "solutions") in first and str(checkout / "grader") not in first
    (checkout / "build").mkdir()
    assert str(checkout / "build") in secrets._checkout(checkout)


def test_an_installed_grader_is_granted_entry_by_entry_but_its_references(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Landlock grants whole folders: in an installed copy, grader/ holds the hidden references and checks, so it
    is granted entry by entry, the rest of its code whole, the hidden folders not at all."""
    site = copy_of_the_distribution(tmp_path / "site-packages").resolve()
    monkeypatch.setattr(sys, "path", [*sys.path, str(site)])
    readable = [Path(p) for p in confine.readable_roots(tuple(secrets.hidden_paths()))]
    for folder in INSIDE:
        assert not any(p == site / folder or site / folder in p.parents for p in readable), folder
    assert site / "grader" / "sandbox" in readable
    assert site / "grader" not in readable and site not in readable


def test_a_copy_an_import_hook_maps_is_hidden(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """setuptools' editable finder maps the package names to a checkout that is on no path: what it would give
    a child is hidden as well."""
    elsewhere = copy_of_the_distribution(tmp_path / "elsewhere")

    class Mapped:
        @staticmethod
        def find_spec(name: str, path: Any = None, target: Any = None) -> importlib.machinery.ModuleSpec | None:
            if name not in ("grader", "grader.solutions", "grader.exercises"):
                return None
            spec = importlib.machinery.ModuleSpec(name, None, is_package=True)
            spec.submodule_search_locations = [str(elsewhere.joinpath(*name.split(".")))]
            return spec

    monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, Mapped])
    hidden = secrets.hidden_paths()
    for folder in INSIDE:
        assert str((elsewhere / folder).resolve()) in hidden, folder


def test_a_child_reads_the_grader_but_not_its_copy_of_the_book(tmp_path: Path) -> None:
    """Landlock grants whole folders: grader/ and grader/classes/ are granted entry by entry, the rest of the
    grader's code whole, the book's code not at all."""
    readable = [Path(p) for p in confine.readable_roots(tuple(secrets.hidden_paths()))]
    assert not any(p == GIVEN or GIVEN in p.parents for p in readable)
    assert secrets.OWN / "sandbox" in readable and secrets.OWN / "classes" / "similarity.py" in readable
    assert secrets.OWN not in readable and secrets.OWN / "classes" not in readable


# -- what earns nothing -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("info, origin", [
    ({"module": "grader.classes.given.book_chapter3", "file": "/somewhere/else.py"}, "grader.classes.given.book_chapter3"),
    ({"module": "grader", "file": ""}, "grader"),
    ({"module": "__main__", "file": str(GIVEN / "book_chapter3.py")}, "grader.classes.given.book_chapter3"),
    ({"module": "loaded_by_path", "file": str(secrets.OWN / "wire.py")}, "grader.wire"),
    ({"module": "x", "file": str(secrets.OWN / "classes" / "given" / ".." / "given" / "lecture_gpt.py")},
     "grader.classes.given.lecture_gpt"),
    ({"module": "x", "file": str(Path(solutions.__path__[0]) / "chapter3.py")}, "grader.solutions.chapter3"),
    ({"module": "x", "file": str(Path(solutions.__path__[0]) / "__init__.py")}, "grader.solutions"),
], ids=["module", "package", "file", "loaded-by-path", "dotted-path", "reference", "package-file"])
def test_what_the_grader_defines_is_its_own_code(info: dict[str, Any], origin: str) -> None:
    assert secrets.grader_code(info) == origin


@pytest.mark.parametrize("info", [
    {"module": "__main__", "file": "/tmp/grader-scratch-x/submission.py"},
    {"module": "solutions.attention", "file": "/tmp/grader-scratch-x/attention.py"},  # a hand-in package `solutions`
    {"module": "graders", "file": "graders.py"},
    {"module": "torch.nn.modules.linear", "file": "/usr/lib/python3/torch/nn/modules/linear.py"},
    {"module": 7, "file": ["not", "a", "path"]},
    {"module": "x", "file": "grader/wire.py"},  # not absolute: the child's working folder, not the grader's
    {"module": "x" * 1001, "file": str(secrets.OWN / "wire.py") + "/" * 1000},
    {},
], ids=["cells", "own-package-named-solutions", "near-name", "library", "ill-typed", "relative", "too-long", "silent"])
def test_what_the_submission_defines_is_its_own(info: dict[str, Any]) -> None:
    assert secrets.grader_code(info) is None


def test_the_child_says_where_each_thing_was_defined() -> None:
    """What the child's inventory says of a class, an instance and a function of the grader's, and of the
    submission's own: the judge's rule refuses the former only."""
    from grader.judge.probes import Obj

    own_file = "/tmp/grader-scratch-x/submission.py"
    namespace: dict[str, Any] = {"__name__": "__main__"}
    exec(compile("import torch\nclass Mine(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                 "def mine():\n    pass\n", own_file, "exec"), namespace)
    from grader.sandbox.limits import Limits  # a class of the grader's own package

    described = {name: inventory.describe(obj, {own_file}) for name, obj in [
        ("Mine", namespace["Mine"]), ("mine", namespace["mine"]), ("instance", namespace["Mine"]()),
        ("Limits", Limits), ("limits", Limits()), ("describe", inventory.describe)]}
    assert described["Limits"] is not None and described["Limits"]["module"] == "grader.sandbox.limits"
    assert described["Mine"] is not None and described["Mine"]["file"] == own_file
    listed = [Obj(n, {**(info or {}), "class": name}, 0) for n, (name, info) in enumerate(described.items()) if info]
    kept, refused = secrets.without_grader_code(listed)
    assert [o.cls for o in kept] == ["Mine", "mine", "instance"]
    assert refused == {"Limits": "grader.sandbox.limits", "describe": "grader.sandbox.inventory"}
    assert secrets.without_grader_code(kept) == (kept, {})
