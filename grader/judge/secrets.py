"""The judge's secrets on disk, which no child may read: the references, the checks, the book's code the grader
keeps for look-alike detection, an instructor's exercise folders as they load, and in a checkout everything of it
but the grader's code (its tests, its history in .git, a build's copies of solutions/). The sandbox hides each of
them from every child, in every copy of the grader a child could import or read.

And the grader's own code, which earns nothing: `grader_code` says which of the objects a child lists were
defined in the grader's package or in a copy of its references and checks, and `without_grader_code` leaves those
out of what a lookup may find, saying which they were, for the messages."""
from __future__ import annotations

import importlib.util
import os
import sys
import time
from importlib.machinery import BuiltinImporter, FrozenImporter, PathFinder
from pathlib import Path
from typing import Any, Mapping, Sequence, TypeVar

# Instructors' exercise folders loaded in this process, each once (resolved), and kept for the process's life:
# what a folder held (its checks, its references) stays in this process once loaded (its modules stay
# imported), and a batch's judges, forked from the parent that loaded the folders, grade with those
# exercises without loading them again, so every later child of this process is kept from them too.
_HIDDEN: list[str] = []

PACKAGE = __name__.partition(".")[0]  # `grader`: what the child imports the grader's code as
# The grader's subpackages that are the judge's secrets (grader.solutions, grader.exercises: folders of the package
# where it is installed, folders beside it in a checkout), and the folder of the grader package that holds the
# book's and the lecture's code as printed (grader.classes.similarity reads it as text: a child has no business
# with it, and an import of it would hand out the book's answers).
SECRET_PACKAGES = ("solutions", "exercises")
GIVEN = ("classes", "given")
# The grader's own folder, where this module lies (grader/judge/secrets.py): the copy the judge runs.
OWN = Path(__file__).resolve().parents[1]


def hide(path: str) -> None:
    """Add a folder to the judge's secrets (an instructor's exercises and their references)."""
    if path not in _HIDDEN:
        _HIDDEN.append(path)


def hidden_paths() -> list[str]:
    """The judge's secrets on disk, which no child may read: references, checks, the book's code the grader
    keeps, a checkout's other files; of the copies the judge imports and of every other copy on the child's
    import path (the installed one in site-packages, where the judge imports a checkout's)."""
    copies = _copies()
    trees = dict.fromkeys(grader.parent for grader in copies.graders)
    return list(dict.fromkeys([*(folder for _, folder in _own_secrets()), *_given(OWN), *_HIDDEN,
                               *(str(p) for p in copies.secrets), *(p for g in copies.graders for p in _given(g)),
                               *(p for tree in trees for p in _checkout(tree))]))


def _own_secrets() -> list[tuple[str, str]]:
    """The judge's own references and checks, as (package, folder): where the import system finds them (inside
    the package where it is installed, beside it in a checkout), asked without importing them, so the judge
    hides the checks without depending on them."""
    found = []
    for name in SECRET_PACKAGES:
        spec = importlib.util.find_spec(f"{PACKAGE}.{name}")
        if spec is not None:
            found += [(spec.name, folder) for folder in spec.submodule_search_locations or []]
    return found


def _given(grader: Path) -> list[str]:
    given = grader.joinpath(*GIVEN)
    return [str(given)] if given.is_dir() else []


class _Copies:
    """What every folder of the child's import path holds of the grader's distribution: each `grader` package
    (`graders`) and each of its secret packages (`secrets`), resolved; and each of them as the import path spells
    it too, with its package's name (`spellings`), which is how the child names the files it imports from it."""

    def __init__(self) -> None:
        self.graders: list[Path] = []
        self.secrets: list[Path] = []
        self.spellings: list[tuple[Path, str]] = []

    def add(self, name: str, folder: Path) -> bool:
        """Count `folder` as the package `name` where it is a folder (and say whether it was)."""
        try:
            if not folder.is_dir():
                return False
            found = folder.resolve()
        except OSError:
            return False
        listed = self.graders if name == PACKAGE else self.secrets
        if found not in listed:
            listed.append(found)
        self.spellings += [(p, name) for p in (Path(os.path.normpath(folder)), found) if (p, name) not in self.spellings]
        return True


def import_path() -> list[str]:
    """The folders a child imports from: the one the launcher puts first on its path (the grader's parent),
    PYTHONPATH's, and this process's own import path (the same interpreter's site-packages, and the folders
    a judge was started with: a checkout a test run imports from)."""
    entries = [str(OWN.parent), *os.environ.get("PYTHONPATH", "").split(os.pathsep), *sys.path]
    return list(dict.fromkeys(os.path.abspath(e) for e in entries if isinstance(e, str)))


def _copies() -> _Copies:
    """Every copy of the grader's distribution a child could import (see _find_copies), found once for each
    import path and set of import hooks: each sandbox's start and each lookup of a check ask."""
    key = (tuple(import_path()), tuple(id(finder) for finder in sys.meta_path))
    if _FOUND.get("key") != key:
        _FOUND.update(key=key, copies=_find_copies())
    copies: _Copies = _FOUND["copies"]
    return copies


_FOUND: dict[str, Any] = {}


def _find_copies() -> _Copies:
    """Every copy of the grader's distribution a child could import: in each folder of its import path (a
    checkout's and an installed one's side by side, as a contributor's venv outside the checkout has them), a
    `grader` package with its references and checks inside it (installed) or beside it (a checkout, or a wheel
    of a version that installed them at the top level); and wherever an import hook other than the path's own
    finds one (setuptools' editable finder and, in a checkout, grader/__init__.py's map the package's names to
    folders on no path)."""
    copies = _Copies()
    names = (PACKAGE, *(f"{PACKAGE}.{name}" for name in SECRET_PACKAGES))
    for entry in import_path():
        if copies.add(PACKAGE, Path(entry, PACKAGE)):
            for name in SECRET_PACKAGES:
                copies.add(f"{PACKAGE}.{name}", Path(entry, PACKAGE, name))
                copies.add(f"{PACKAGE}.{name}", Path(entry, name))
    for finder in sys.meta_path:
        if finder in (PathFinder, BuiltinImporter, FrozenImporter) or not hasattr(finder, "find_spec"):
            continue
        for name in names:
            try:
                spec = finder.find_spec(name, None)
            except Exception:  # another library's hook: what it cannot answer, it holds no copy of
                continue
            for location in (getattr(spec, "submodule_search_locations", None) or []) if spec else []:
                if isinstance(location, str):
                    copies.add(name, Path(location))
    return copies


def _checkout(tree: Path) -> list[str]:
    """Where the grader is imported from its source tree (an editable install: the folder holds the project's
    pyproject.toml, which no site-packages does), every entry of that tree but the `grader` package the zygote
    runs and the folders Python itself lies in (a virtualenv inside the checkout): its history (.git packs
    every version of solutions/), a build's copies (build/lib/solutions), its tests and anything else the
    checkout holds are the grader's, not the child's.

    Each sandbox's start asks (~1 ms a listing): the tree is listed again only where its folder changed since (an
    entry made, removed or renamed moves its mtime), or changed so lately that another change could share the
    same mtime."""
    try:
        stamp = tree.stat().st_mtime_ns
    except OSError:
        return []
    listed = _LISTED.get(tree)
    if listed is None or listed[0] != stamp:
        listed = (stamp, _checkout_entries(tree))
        if time.time_ns() - stamp > _SETTLED_NS:
            _LISTED[tree] = listed
    return listed[1]


_LISTED: dict[Path, tuple[int, list[str]]] = {}  # a checkout's entries, by its folder's mtime when listed
_SETTLED_NS = 2 * 10**9


def _checkout_entries(tree: Path) -> list[str]:
    if not (tree / "pyproject.toml").is_file():
        return []
    pythons = [Path(p).resolve() for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.executable)]
    holding_python = {folder for p in pythons for folder in (p, *p.parents)}
    try:
        entries = sorted(tree.iterdir())
    except OSError:
        return []
    return [str(entry) for entry in entries if entry.name != "grader" and entry.resolve() not in holding_python]


# -- the grader's own code earns nothing ------------------------------------------------------------------------
MAX_ORIGIN = 1000  # a module's name or a file's path, as the child may report it; an honest one is far shorter


def code_folders() -> list[tuple[Path, str]]:
    """Every copy of the grader's distribution a child could import, each with the name of its package: the
    grader package the judge runs, the references and checks it imports, and every other copy on the path."""
    own = [(OWN, PACKAGE), (Path(os.path.normpath(Path(__file__).parents[1])), PACKAGE),
           *((Path(os.path.normpath(folder)), name) for name, folder in _own_secrets())]
    return list(dict.fromkeys([*own, *_copies().spellings]))


def grader_code(info: Mapping[str, Any], folders: Sequence[tuple[Path, str]] | None = None) -> str | None:
    """Where the grader defined the class or function a child describes (`info`, as grader.sandbox.inventory.
    describe says it): its module under the grader's package (`grader.classes.given.book_chapter3`), or the
    module of the file it reports, where that file lies in a copy of the grader's distribution (`folders`:
    code_folders(): the grader package, its references and checks, wherever installed); None for anything else.

    The child's word, held the one way that is safe: a class the submission defines itself reports its own
    file (in its scratch folder) and the module its cells run as (`__main__`, or a module of its own folder), so
    refusing what reports the grader's costs an honest student nothing, and a submission that says its class
    is the grader's is refused on its own word. (A module named like the references is not refused by its
    name: a student's own folder may be a package called `solutions`.) Read as text, never on disk: the path
    is the child's."""
    return _grader_code(info, _prefixes(code_folders() if folders is None else folders))


def _prefixes(folders: Sequence[tuple[Path, str]]) -> list[tuple[str, str]]:
    return [(os.path.join(str(folder), ""), name) for folder, name in folders]


def _grader_code(info: Mapping[str, Any], prefixes: Sequence[tuple[str, str]]) -> str | None:
    module, file = info.get("module"), info.get("file")
    if isinstance(module, str) and len(module) <= MAX_ORIGIN and (
            module == PACKAGE or module.startswith(f"{PACKAGE}.")):
        return module[:MAX_SHOWN]
    if not (isinstance(file, str) and 0 < len(file) <= MAX_ORIGIN and os.path.isabs(file)):
        return None
    where = os.path.join(os.path.normpath(file), "")
    for prefix, name in prefixes:
        if where.startswith(prefix):
            parts = Path(where[len(prefix):]).with_suffix("").parts
            return ".".join([name, *(parts[:-1] if parts[-1:] == ("__init__",) else parts)])[:MAX_SHOWN]
    return None


T = TypeVar("T")
MAX_SHOWN = 200  # characters of a name or a module a message quotes


def without_grader_code(listed: Sequence[T]) -> tuple[list[T], dict[str, str]]:
    """The objects of `listed` (handles, each with its `info` and `cls`) that the grader did not define
    (grader_code): what a lookup may find; and those it did, by name -> where, so that a check finding nothing
    else can say what it found and why it earns nothing (grader.judge.near_miss.explain)."""
    prefixes = _prefixes(code_folders())
    kept: list[T] = []
    refused: dict[str, str] = {}
    for obj in listed:
        info = getattr(obj, "info", None)
        origin = _grader_code(info, prefixes) if isinstance(info, dict) else None
        if origin is None:
            kept.append(obj)
        else:
            refused.setdefault(str(getattr(obj, "cls", "?"))[:MAX_SHOWN], origin)
    return kept, refused
