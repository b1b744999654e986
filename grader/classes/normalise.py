"""From code to the tokens grader.classes.similarity fingerprints: the syntax tree normalised so that what a
copier can change without changing what the code does changes nothing (see grader.classes.similarity).
"""
from __future__ import annotations

import ast
import io
import tokenize
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Iterable, Iterator, Mapping, Sequence

CELL_MARK = "# %% "  # how the code of each file and notebook cell starts in the text compared and shown
_REGISTERS = {"register_buffer", "register_parameter", "add_module", "setattr"}
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_EFFECTS = (ast.Call, ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr)
_DROPPED = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
            tokenize.ENCODING, tokenize.ENDMARKER}
_STRINGS = {tokenize.STRING, *(getattr(tokenize, t) for t in ("FSTRING_START", "FSTRING_MIDDLE", "FSTRING_END")
                               if hasattr(tokenize, t))}



@dataclass(frozen=True)
class Unit:
    """One function, method or class's own lines, or all the other top-level statements of a submission:
    its tokens, the line of each, and where each statement's tokens are (a compound one's: its header's)."""

    tokens: tuple[str, ...]
    lines: tuple[int, ...]
    statements: tuple[tuple[int, int], ...] = ()



# -- from code to units of tokens ------------------------------------------------------------------------
def units(code: str) -> list[Unit]:
    """The units the code is compared by. The code is parsed whole (its cell marks are comments, so a
    `# %%` line a student put inside a function cuts nothing); where it does not parse, each `# %%` cell
    is parsed on its own, one that does not parse is split into its top-level statements, and a
    statement that still does not parse (an unclosed bracket, a tree too deep for the parser) is its
    text's tokens, so it keeps what it has and spoils no other."""
    from grader.load.submission import statement_starts

    normaliser = _Normaliser()
    lexical: list[Unit] = []
    for first, cell in [] if normaliser.add(code, 1) else _cells(code):
        if normaliser.add(cell, first):
            continue
        lines = cell.splitlines(keepends=True)
        try:
            starts = statement_starts(lines) or [0]
        except (RecursionError, MemoryError):  # too deep for the parser: no statement of it is any better
            starts = [0]
        for a, b in zip(starts, [*starts[1:], len(lines)]):
            chunk = "".join(lines[a:b])
            if not normaliser.add(chunk, first + a) and chunk.strip():
                lexical.append(_lexical(chunk, first + a))
    return [*normaliser.units(), *lexical]


def _cells(code: str) -> Iterable[tuple[int, str]]:
    """(first line, text) of each `# %%` cell of the code."""
    lines = code.splitlines(keepends=True)
    bounds = sorted({0, len(lines), *(n for n, line in enumerate(lines) if line.startswith(CELL_MARK))})
    for start, end in zip(bounds, bounds[1:]):
        yield start + 1, "".join(lines[start:end])


def _lexical(text: str, first: int) -> Unit:
    """Text that is not Python, as Python's tokenizer reads it up to where it stops: every name `N`,
    every string `S`, the rest as written."""
    found: list[tuple[str, int]] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type not in _DROPPED:
                kind = "N" if tok.type == tokenize.NAME else "S" if tok.type in _STRINGS else tok.string
                found.append((kind, first + tok.start[0] - 1))
    except (tokenize.TokenError, SyntaxError):
        pass
    return Unit(tuple(t for t, _ in found), tuple(line for _, line in found))


def tokens(code: str) -> list[tuple[str, int]]:
    """(normalised token, line) of the whole code, unit after unit."""
    return [pair for unit in units(code) for pair in zip(unit.tokens, unit.lines)]


def _dead(stmt: ast.stmt) -> bool:
    """A statement that does nothing: `pass`, an expression that calls nothing (a docstring, a bare name
    or number, what a notebook cell ends with to show it), `assert` on a true constant, an `if` or
    `while` on a false constant, or one whose test calls nothing and whose body does nothing."""
    if isinstance(stmt, ast.Pass):
        return True
    if isinstance(stmt, ast.Expr):
        return _pure(stmt.value)
    if isinstance(stmt, ast.Assert):
        return isinstance(stmt.test, ast.Constant) and bool(stmt.test.value)
    if isinstance(stmt, (ast.If, ast.While)):
        if isinstance(stmt.test, ast.Constant) and not stmt.test.value and not stmt.orelse:
            return True
        return _pure(stmt.test) and all(_dead(child) for child in (*stmt.body, *stmt.orelse))
    return False


def _pure(expr: ast.expr) -> bool:
    """Whether the expression only gives a value: no call, await, yield or `:=` in it."""
    return not any(isinstance(node, _EFFECTS) for node in ast.walk(expr))


@dataclass(frozen=True)
class _Ref:
    """A name, attribute or keyword as written, until the whole submission says what it is."""

    kind: str  # "name", "attr" or "kw"
    name: str


@dataclass
class _Raw:
    """A unit as walked: its tokens still hold the names as written."""

    tokens: list[str | _Ref] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    statements: list[tuple[int, int]] = field(default_factory=list)
    # a function's assignments of a value that calls nothing to plain names: dead unless a name is read
    stores: list[tuple[int, int, tuple[str, ...]]] = field(default_factory=list)


_COMPOUND_PARTS = (ast.stmt, ast.excepthandler)


class _Normaliser:
    """The units of one submission's code. Each tree is walked once into tokens that still hold the
    names as written, while what each name is bound to is gathered from every tree; `units` then writes
    each name as what it is in the whole submission (a notebook defines in one cell what it uses in
    another). A statement too deep to walk (Python's recursion limit) is its text's tokens."""

    def __init__(self) -> None:
        self.definitions: list[_Raw | Unit] = []
        self.loose: list[_Raw | Unit] = []
        self.origins: dict[str, tuple[str, ...]] = {}  # an imported name -> the module path it stands for
        self.classes: set[str] = set()
        self.functions: set[str] = set()
        self.variables: set[str] = set()
        self.loaded: set[str] = set()  # names the code reads
        self.effects = 0  # calls, awaits, yields and `:=` walked so far: whether an assigned value has any
        self.depth = 0  # functions the walk is in: a module's names can be read from outside, a function's not
        self.attributes: set[str] = set()  # attributes the submission sets or defines
        self.parameters: set[str] = set()  # so `num_heads=12` for its own class is a role, `dim=-1` is not
        self.out = _Raw()
        self.offset = 0

    def add(self, text: str, first: int) -> bool:
        """Walk the text's statements, its line numbers those of the whole code from `first`; False when
        it does not parse (a null byte is a ValueError, a tree too deep for the parser RecursionError)."""
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return False
        self.offset = first - 1
        lines = text.splitlines(keepends=True)
        for stmt in tree.body:
            if not _dead(stmt):
                self._top_level(stmt, lines)
        return True

    def _top_level(self, stmt: ast.stmt, lines: Sequence[str]) -> None:
        methods: list[ast.stmt] = []
        if isinstance(stmt, ast.ClassDef):
            methods = [child for child in stmt.body if isinstance(child, _DEFS)]
        if isinstance(stmt, ast.ClassDef) and methods:
            self._bind(stmt)  # the class's own unit is walked without its methods, which are units of their own
            stmt = ast.ClassDef(**{**vars(stmt), "body": [child for child in stmt.body if child not in methods]})
        self.out, self.depth = _Raw(), 0
        try:
            self._statement(stmt, stmt.lineno + self.offset)
            unit: _Raw | Unit = self.out
        except RecursionError:
            unit = _lexical("".join(lines[stmt.lineno - 1:stmt.end_lineno]), stmt.lineno + self.offset)
        (self.definitions if isinstance(stmt, (*_DEFS, ast.ClassDef)) else self.loose).append(unit)
        for method in methods:
            self._top_level(method, lines)

    def units(self) -> Iterator[Unit]:
        """Every function and method on its own, a class's own statements, and one unit of every other
        top-level statement, sorted: where a cell, a check or an import sits is nobody's evidence."""
        roles = {**dict.fromkeys(self.variables, "N"), **dict.fromkeys(self.functions, "F"),
                 **dict.fromkeys(self.classes, "C")}
        for raw in self.definitions:
            yield self._written(raw, roles)
        loose = sorted((self._written(raw, roles) for raw in self.loose), key=lambda unit: unit.tokens)
        if loose:
            starts = list(accumulate((len(unit.tokens) for unit in loose), initial=0))
            yield Unit(tuple(t for unit in loose for t in unit.tokens), tuple(n for unit in loose for n in unit.lines),
                       tuple((start + a, start + b) for unit, start in zip(loose, starts) for a, b in unit.statements))

    def _written(self, raw: _Raw | Unit, roles: Mapping[str, str]) -> Unit:
        """The unit with every name written as what it is: what it imports as the module path it came
        from, what it binds as its role, the library's own as they are."""
        if isinstance(raw, Unit):
            return raw
        dead = {(a, b) for a, b, names in raw.stores if not any(name in self.loaded for name in names)}
        skipped = bytearray(len(raw.tokens))
        for a, b in dead:
            skipped[a:b] = b"\1" * (b - a)
        toks: list[str] = []
        lines: list[int] = []
        at = []  # where each raw token's tokens start, for the statements' spans
        for tok, line, skip in zip(raw.tokens, raw.lines, skipped):
            at.append(len(toks))
            if skip:
                continue
            if isinstance(tok, str):
                toks.append(tok)
                lines.append(line)
                continue
            if tok.kind == "name":
                origin = self.origins.get(tok.name)
                written = [origin[0], *(f".{part}" for part in origin[1:])] if origin else [roles.get(tok.name, tok.name)]
            elif tok.kind == "attr":
                written = [".A" if tok.name in self.attributes and not tok.name.startswith("__") else f".{tok.name}"]
            else:
                written = ["N=" if tok.name in self.parameters else f"{tok.name}="]
            toks.extend(written)
            lines.extend([line] * len(written))
        at.append(len(toks))
        return Unit(tuple(toks), tuple(lines), tuple((at[a], at[b]) for a, b in raw.statements if (a, b) not in dead))

    def _put(self, token: str | _Ref, line: int) -> None:
        self.out.tokens.append(token)
        self.out.lines.append(line)

    def _statement(self, stmt: ast.stmt, line: int) -> None:
        """A statement's tokens, noting where they are (a compound statement's: its header's)."""
        start = len(self.out.tokens)
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            self._put("import", line)
            for name in self._import(stmt):
                self._put(_Ref("name", name), line)
        elif isinstance(stmt, ast.Assign):
            effects = self.effects
            for target in stmt.targets:
                self._node(target, line)
                self._put("=", line)
            self._node(stmt.value, line)
            names = tuple(target.id for target in stmt.targets if isinstance(target, ast.Name))
            if self.depth and self.effects == effects and len(names) == len(stmt.targets):
                same = isinstance(stmt.value, ast.Name) and set(names) == {stmt.value.id}  # `x = x`
                self.out.stores.append((start, len(self.out.tokens), () if same else names))
        else:
            self._bind(stmt)
            self._put(type(stmt).__name__, line)
            body = []
            for child in ast.iter_child_nodes(stmt):
                if isinstance(child, _COMPOUND_PARTS):
                    body.append(child)
                elif not isinstance(child, ast.expr_context):
                    self._node(child, line)
            self.out.statements.append((start, len(self.out.tokens)))
            local = isinstance(stmt, _DEFS)
            self.depth += local
            for child in body:
                self._node(child, line)
            self.depth -= local
            return
        self.out.statements.append((start, len(self.out.tokens)))

    def _node(self, node: ast.AST, line: int) -> None:
        """A node's tokens in reading order, noting what it binds."""
        lineno = getattr(node, "lineno", None)  # operators, `arguments` and comprehensions have none
        line = line if lineno is None else lineno + self.offset
        if isinstance(node, ast.stmt):
            if not _dead(node):
                self._statement(node, line)
        elif isinstance(node, ast.Name):
            (self.loaded if isinstance(node.ctx, ast.Load) else self.variables).add(node.id)
            self._put(_Ref("name", node.id), line)
        elif isinstance(node, ast.Constant):
            self._put("S" if isinstance(node.value, (str, bytes)) else repr(node.value), line)
        elif isinstance(node, ast.JoinedStr):
            self._put("S", line)
        elif isinstance(node, ast.Attribute):
            if not isinstance(node.ctx, ast.Load):
                self.attributes.add(node.attr)
            self._node(node.value, line)
            self._put(_Ref("attr", node.attr), line)
        elif isinstance(node, ast.Call):
            self.effects += 1
            registered = _registered(node)
            if registered:
                self.attributes.add(registered)
            self._node(node.func, line)
            self._put("(", line)
            for part in (*node.args, *node.keywords):
                self._node(part, line)
            self._put(")", line)
        elif isinstance(node, ast.keyword):
            self._put("**" if node.arg is None else _Ref("kw", node.arg), line)
            self._node(node.value, line)
        elif isinstance(node, ast.arg):
            self.parameters.add(node.arg)
            self.variables.add(node.arg)
            self._put("N", line)
            if node.annotation:
                self._node(node.annotation, line)
        else:
            self.effects += isinstance(node, _EFFECTS)
            self._bind(node)
            self._put(type(node).__name__, line)
            for child in ast.iter_child_nodes(node):
                if not isinstance(child, ast.expr_context):
                    self._node(child, line)

    def _bind(self, node: ast.AST) -> None:
        """What a definition or handler binds by a name that is no node of its own."""
        if isinstance(node, ast.ClassDef):
            self.classes.add(node.name)
            for child in node.body:
                if isinstance(child, (*_DEFS, ast.ClassDef)):
                    self.attributes.add(child.name)
                elif isinstance(child, ast.Assign):
                    self.attributes.update(target.id for target in child.targets if isinstance(target, ast.Name))
        elif isinstance(node, _DEFS):
            self.functions.add(node.name)
        elif isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name:
            self.variables.add(node.name)

    def _import(self, node: ast.Import | ast.ImportFrom) -> list[str]:
        """The names an import binds, each noted as the module path it stands for."""
        names = []
        for alias in node.names:
            if isinstance(node, ast.ImportFrom):
                module = "." * node.level + (node.module or "")
                name, path = alias.asname or alias.name, (*module.split("."), alias.name)
            elif alias.asname:
                name, path = alias.asname, tuple(alias.name.split("."))
            else:  # `import torch.nn` binds torch
                name = alias.name.split(".")[0]
                path = (name,)
            self.origins[name] = path
            names.append(name)
        return names


def _registered(call: ast.Call) -> str | None:
    """The name a `register_buffer("mask", ...)`, `add_module` or `setattr(obj, "name", ...)` sets."""
    func = call.func
    called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    if called not in _REGISTERS:
        return None
    args = call.args[1:] if called == "setattr" else call.args
    name = args[0] if args else None
    return name.value if isinstance(name, ast.Constant) and isinstance(name.value, str) else None


