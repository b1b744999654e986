"""The package's layout holds the design (docs/design.md, "Layout"): no import circle, counting the
package `__init__` every import runs first; no two subpackages import each other; the child's side imports
only itself and the wire; exercise authors import `grader.checks` alone; nothing outside the judge grades
around `Grader`; the top level holds only subpackages, modules stay small, and no two classes share a name.
Read from the source with `ast`, so nothing here imports torch unless it says so."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from conftest import ROOT

PACKAGE = ROOT / "grader"
TOP_LEVEL = {"__init__.py", "__main__.py", "wire.py"}
MAX_LINES = 400
# Message data (every sentence in two languages) and the book's and lecture's code as printed are text,
# not code to find one's way in.
DATA = {PACKAGE / "messages" / f"{area}.py" for area in ("grading", "page", "classes", "ci")}
GIVEN = PACKAGE / "classes" / "given"
# Installed as folders of the package (pyproject's package-dir), kept beside it in the checkout.
BESIDE = ("exercises", "solutions", "student_template")
# What authors write: the bundled exercises, their helpers, and the example docs/authoring.md builds.
AUTHORED = [*sorted((ROOT / "exercises").glob("*.py")), ROOT / "examples" / "exercises" / "softmax.py"]
# What grades without the security steps `Grader` takes in order (no module outside the judge may name it), and
# what starts a launcher (none may call it).
AROUND_GRADER = {"grader.judge.grading.grade", "grader.judge.launcher.default_launcher"}
LAUNCHERS = {"grader.judge.launcher.ZygoteLauncher", "grader.judge.launcher.ZygoteLauncher.shared",
             "grader.judge.launcher.SpawnLauncher"}


def modules(beside: bool = False) -> dict[str, Path]:
    """The package's modules by name; with `beside`, also those of the folders a wheel installs inside it but the
    checkout keeps beside it (grader.exercises, grader.solutions, grader.student_template)."""
    found = {}
    trees = [(PACKAGE, ROOT)] + [(ROOT / name, ROOT / name) for name in BESIDE if beside]
    for tree, base in trees:
        for path in sorted(tree.rglob("*.py")):
            if GIVEN in path.parents:
                continue
            parts = path.relative_to(base).with_suffix("").parts
            parts = parts if tree == PACKAGE else ("grader", tree.name, *path.relative_to(tree).with_suffix("").parts)
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The grader modules `name` imports anywhere in its file (a function's own imports too), and the
    packages each of them runs first: importing grader.checks.answers runs grader/checks/__init__.py. A
    module's own packages are already running when it does, so it imports those only by naming them."""
    named = {module for _, full in bindings(name, path) if (module := within(full, known)) and module != name}
    own = set(packages(name))
    return named | {package for module in named for package in packages(module) if package not in own | {name}}


def packages(module: str) -> list[str]:
    """The packages Python imports before `module`: grader.checks.answers -> grader, grader.checks."""
    parts = module.split(".")
    return [".".join(parts[:n]) for n in range(1, len(parts))]


def within(full: str, known: dict[str, Path]) -> str | None:
    """The module a dotted name is or lies in (grader.judge.grading.grade -> grader.judge.grading)."""
    return next((module for module in [full, *reversed(packages(full))] if module in known), None)


def bindings(name: str, path: Path) -> list[tuple[str, str]]:
    """What each import of the file binds: the name it binds (`grade`, `grader.judge.grading`) and its full
    dotted name (`grader.judge.grading.grade`)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    bound = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            bound += [(alias.asname or alias.name, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1] + ([base] if base else []))
            bound += [(alias.asname or alias.name, f"{base}.{alias.name}") for alias in node.names]
    return bound


def graph() -> dict[str, set[str]]:
    known = modules(beside=True)
    return {name: imports(name, path, known) for name, path in known.items()}


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in edges:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_circle_in_the_package() -> None:
    assert circles(graph()) == []


def test_the_circle_finder_finds_a_circle() -> None:
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_importing_a_module_runs_its_packages(tmp_path: Path) -> None:
    """A circle may close through the package `__init__` an import runs first (grader.checks -> checks.answers
    -> judge.near_miss -> grader.checks, while near_miss imported grader.checks.exercise): the finder counts
    it, and a module's own packages only where it names them."""
    known = dict.fromkeys(["grader", "grader.checks", "grader.checks.exercise", "grader.checks.tensors",
                           "grader.judge", "grader.judge.near_miss"], tmp_path)
    source = tmp_path / "source.py"
    source.write_text("from grader.checks.exercise import Outcome\n")
    assert imports("grader.judge.near_miss", source, known) == {"grader.checks.exercise", "grader.checks"}
    assert imports("grader.checks.tensors", source, known) == {"grader.checks.exercise"}
    source.write_text("from grader.checks import Outcome\n")
    assert imports("grader.checks.tensors", source, known) == {"grader.checks"}


def subpackage(module: str) -> str | None:
    """grader.checks.answers -> checks; None for the top level's own modules (grader, grader.wire)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (PACKAGE / parts[-1]).is_dir() or parts[-1] in BESIDE else None


def test_no_two_subpackages_import_each_other() -> None:
    """Each subpackage is one side of the boundary or one job (docs/design.md, "Layout"), so the arrows
    between two run one way: no pair imports each other, nor any ring of them."""
    arrows: dict[tuple[str, str], list[str]] = {}
    for module, targets in graph().items():
        for target in targets:
            ends = subpackage(module), subpackage(target)
            if ends[0] is not None and ends[1] is not None and ends[0] != ends[1]:
                arrows.setdefault((ends[0], ends[1]), []).append(f"{module} -> {target}")
    edges: dict[str, set[str]] = {}
    for start, end in arrows:
        edges.setdefault(start, set()).add(end)
        edges.setdefault(end, set())
    rings = circles(edges)
    assert not rings, {" <-> ".join(ring): sorted(arrow for (start, end), found in arrows.items()
                                                  if {start, end} <= set(ring) for arrow in found) for ring in rings}


def test_the_zygote_imports_only_the_child_side_and_the_wire() -> None:
    """Everything grader.sandbox.zygote can import, at start or later in a child, is the sandbox package
    or grader.wire: no judge code, so nothing the judge holds is in a child's process."""
    edges = graph()
    seen, pending = set(), ["grader.sandbox.zygote"]
    while pending:
        module = pending.pop()
        if module not in seen:
            seen.add(module)
            pending.extend(edges[module])
    outside = {m for m in seen if m not in ("grader", "grader.wire") and not m.startswith("grader.sandbox")}
    assert not outside, sorted(outside)
    assert "grader.sandbox.child" in seen and "grader.wire" in seen


def test_the_top_level_holds_only_subpackages_and_the_wire() -> None:
    files = {p.name for p in PACKAGE.iterdir() if p.is_file() and p.suffix == ".py"}
    assert files == TOP_LEVEL
    for folder in (p for p in PACKAGE.iterdir() if p.is_dir() and p.name not in ("__pycache__", "templates")):
        assert (folder / "__init__.py").is_file() or folder == GIVEN, folder


def test_no_module_is_over_the_line_budget() -> None:
    long = {str(path.relative_to(ROOT)): n for path in modules().values() if path not in DATA
            and (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, long


def test_no_two_classes_share_a_name() -> None:
    owners: dict[str, list[str]] = {}
    for name, path in modules().items():
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef):
                owners.setdefault(node.name, []).append(name)
    assert {cls: where for cls, where in owners.items() if len(where) > 1} == {}


def offered() -> set[str]:
    """`grader.checks.__all__`, read from its source."""
    tree = ast.parse((PACKAGE / "checks" / "__init__.py").read_text(encoding="utf-8"))
    return next(set(ast.literal_eval(node.value)) for node in tree.body if isinstance(node, ast.Assign)
                and any(isinstance(target, ast.Name) and target.id == "__all__" for target in node.targets))


@pytest.mark.parametrize("path", AUTHORED, ids=lambda path: str(path.relative_to(ROOT)))
def test_exercises_import_only_the_authoring_api(path: Path) -> None:
    """Authors have one door (docs/authoring.md): every bundled exercise, its helpers and the example import
    from the grader only names `grader.checks` offers, so the modules behind them may move; besides, the
    references (grader.solutions) and the exercises' own helpers (grader.exercises)."""
    names = offered()
    wrong = [full for _, full in bindings(f"grader.exercises.{path.stem}", path) if full.split(".")[0] == "grader"
             and full.split(".")[1] not in ("solutions", "exercises")
             and not (full.rpartition(".")[0] == "grader.checks" and full.rpartition(".")[2] in names)]
    assert not wrong, wrong


def references(name: str, path: Path) -> set[str]:
    """The full dotted names a file reaches: what it imports, each use of an imported name (`grading.grade`,
    `ZygoteLauncher.shared`), and each (module, name) pair it spells out for a lazy import; a call is also
    noted with "()" after the name it calls."""
    bound = sorted(bindings(name, path), key=lambda pair: -len(pair[0]))
    found = {full for _, full in bound}

    def resolve(node: ast.expr) -> str | None:
        spelled = ast.unparse(node)
        return next((full + spelled[len(local):] for local, full in bound
                     if spelled == local or spelled.startswith(f"{local}.")), None)

    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.Name, ast.Attribute)) and (full := resolve(node)):
            found.add(full)
        elif isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)) \
                and (full := resolve(node.func)):
            found.add(f"{full}()")
        elif isinstance(node, ast.Tuple):
            strings = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
            if len(strings) == len(node.elts) == 2:
                found.add(".".join(strings))
    return found


def test_nothing_outside_the_judge_grades_around_grader() -> None:
    """`Grader` takes every security step in order (docs/design.md), so it is the one way to grade: the
    public face offers no other, and no module outside the judge grades or starts a launcher itself (the
    batch's zygotes and the Jupyter judge included)."""
    import grader

    assert not {"grade", "default_launcher"} & set(grader.__all__)
    assert not [name for name in ("grade", "default_launcher") if hasattr(grader, name)]
    around = {name: sorted(found) for name, path in modules().items() if subpackage(name) != "judge"
              and (found := references(name, path) & (AROUND_GRADER | {f"{c}()" for c in LAUNCHERS}))}
    assert not around, around


def test_the_authoring_api_names_what_it_offers() -> None:
    """`grader.checks.__all__` is the documented surface, and the example exercise imports only it."""
    import grader.checks

    assert set(grader.checks.__all__) <= set(dir(grader.checks))
    example = (ROOT / "examples" / "exercises" / "softmax.py").read_text(encoding="utf-8")
    used = {node.module for node in ast.walk(ast.parse(example)) if isinstance(node, ast.ImportFrom)}
    assert {module for module in used if module and module.startswith("grader")} == {"grader.checks"}


# The package's layers, lowest first (docs/design.md, "Layout"): a module imports from its own layer or below,
# never up. The top-level modules (`grader`, `grader.wire`) are the ground every layer stands on.
LAYERS = ["messages", "outputs", "results", "load", "sandbox", "solutions", "student_template", "judge", "checks",
          "exercises", "render", "classes", "integrations", "cli"]


def arrows_up(edges: dict[str, set[str]]) -> list[str]:
    """Every import from a lower layer up to a higher one, as `module -> target`."""
    rank = {layer: n for n, layer in enumerate(LAYERS)}
    return sorted(f"{module} -> {target}" for module, targets in edges.items() for target in targets
                  if (low := subpackage(module)) and (high := subpackage(target)) and low != high
                  and rank[low] < rank[high])


def test_every_subpackage_has_its_layer() -> None:
    assert {subpackage(module) for module in graph()} - {None} <= set(LAYERS)


def test_no_arrow_goes_up_a_layer() -> None:
    assert arrows_up(graph()) == []


def test_the_layer_rule_finds_an_arrow_up() -> None:
    assert arrows_up({"grader.results.model": {"grader.render.html"}, "grader.render.html": {"grader.results"}}) \
        == ["grader.results.model -> grader.render.html"]


def test_no_command_imports_another() -> None:
    """Each command module is one command (docs/design.md): what two commands share lives in grader.cli.options or
    in the library object they call, never in one of them for the other to import. The group (grader.cli.group)
    imports them all, by the names grader.cli.commands gives them."""
    shared = {"grader.cli", "grader.cli.options", "grader.cli.group", "grader.cli.commands"}
    crossing = sorted(f"{module} -> {target}" for module, targets in graph().items() if module not in shared
                      and module.startswith("grader.cli.") for target in targets
                      if target.startswith("grader.cli.") and target not in shared)
    assert crossing == []
