"""The package's layout holds the design (docs/design.md, "Layout"): no import circle, the child's side
imports only itself and the wire, the top level holds only subpackages, modules stay small, and no
two classes share a name. Read from the source with `ast`, so nothing here imports torch."""
from __future__ import annotations

import ast
from pathlib import Path

from conftest import ROOT

PACKAGE = ROOT / "grader"
TOP_LEVEL = {"__init__.py", "__main__.py", "wire.py"}
MAX_LINES = 400
# Message data (every sentence in two languages) and the book's and lecture's code as printed are text,
# not code to find one's way in.
DATA = {PACKAGE / "messages" / f"{area}.py" for area in ("grading", "page", "classes", "ci")}
GIVEN = PACKAGE / "classes" / "given"


def modules() -> dict[str, Path]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if GIVEN in path.parents:
            continue
        parts = path.relative_to(ROOT).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The grader modules `name` imports anywhere in its file (a function's own imports too)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name in known}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1] + ([base] if base else []))
            for alias in node.names:
                full = f"{base}.{alias.name}"
                found.add(full if full in known else base)
    return {module for module in found if module in known and module != name}


def graph() -> dict[str, set[str]]:
    known = modules()
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


def test_the_authoring_api_names_what_it_offers() -> None:
    """`grader.checks.__all__` is the documented surface, and the example exercise imports only it."""
    import grader.checks

    assert set(grader.checks.__all__) <= set(dir(grader.checks))
    example = (ROOT / "examples" / "exercises" / "softmax.py").read_text(encoding="utf-8")
    used = {node.module for node in ast.walk(ast.parse(example)) if isinstance(node, ast.ImportFrom)}
    assert {module for module in used if module and module.startswith("grader")} == {"grader.checks"}
