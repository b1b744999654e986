"""Look-alike submissions: which students' code is unusually alike, and where.

The method is MOSS's (Schleimer, Wilkerson and Aiken, "Winnowing", SIGMOD 2003): the code becomes a
stream of normalised tokens, every run of K tokens is hashed, and winnowing keeps the smallest hash of
every window of WINDOW, so any passage of K + WINDOW - 1 tokens two submissions share leaves them a
fingerprint in common.

The tokens come from the code's syntax tree, not its text, so what a copier can change without changing
what the code does changes nothing: comments, docstrings, layout, quotes and parentheses are not in the
tree (`ast.unparse` reprints nothing new); statements that do nothing are left out (`pass`, `...`, an
expression that calls nothing, `if False:`, a function's assignment nobody reads); a name the submission
binds is its role (`N` a variable or parameter, `F` a function, `C` a class, `A` an attribute it sets),
so renaming hides nothing, while what it imports is the module it came from (`nn.Linear` and
`torch.nn.Linear` are one) and the library's own names stay (`torch.einsum` is not `@`). A notebook is
its code cells one after the other, so a notebook and the script of its cells are one code however it
is cut into cells. The code is compared by units: every function and method on its own, a class's own
lines, and every other top-level statement in one unit, sorted; so definitions, cells and checks in
another order are the same units, and no k-gram runs from one definition into the next.

What the whole class was given is no evidence, whatever the class's size: every k-gram of it, and
every statement of it, normalised the same way, is taken out of every submission (a k-gram is kept only
if one of its tokens is the student's own). That is the student template, the book's reference code
(`solutions/`), the book's chapter 3 and the GPT lecture as printed (grader/given/, bundled), and an
instructor's `--boilerplate` files; so the book's listings typed in, its one-line answers, or its
statements in another order are not shared passages. What more than COMMON_SHARE of a class (at least
COMMON_MIN students) share is no evidence either, as MOSS's `-m`: a lecture's idiom, not one student's
work. A pair is then listed when they share at least `threshold` of the smaller one's own fingerprints,
and at least MIN_SHARED of them: a few lines two students happened to change alike are not a copy.

The cap also bounds the cost: pairs are counted from an inverted index of fingerprints, so a pair who
share nothing costs nothing, and no fingerprint adds more than COMMON² pairs; the time goes into parsing
and hashing each submission once. A class of 200 is compared in about a second (benchmarks/similar.py,
which also measures how often independent honest answers are reported and where disguised copies rank).

Why not a library. `copydetect` (0.5, the maintained Python implementation of the same method) was
weighed and does not fit: it requires matplotlib (and with it numpy, pillow, fonttools, contourpy,
kiwisolver, pyparsing, cycler) and imports matplotlib.pyplot on import, for a chart we would not draw,
in a grader that runs in Gradescope and CI images; its CopyDetector compares files all-pairs (one
numpy comparison for every pair of the class), which the class size must not bound; it hashes k-grams
with Python's salted `hash`, so scores change from one run to the next; and its tokens are pygments'
text tokens, which a `pass` after every line or a reprint breaks. The standard library's `ast` gives
the tree.
"""
from __future__ import annotations

import ast
import hashlib
import io
import tokenize
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import accumulate, combinations
from pathlib import Path
from typing import Iterable, Iterator, Mapping, Sequence

K = 12  # tokens in a k-gram: shorter runs are idioms anyone writes (`x = torch.nn.Linear(d_in, d_out)`)
WINDOW = 8  # winnowing window: every shared run of K + WINDOW - 1 = 19 tokens is found
THRESHOLD = 0.5  # the share of the smaller submission's own fingerprints two must share to be reported
MIN_SHARED = 8  # fewer shared fingerprints than this is a line or two, whatever the share
COMMON_SHARE, COMMON_MIN = 0.1, 10  # a fingerprint in more submissions than this is the class's
CODE_CHARS = 300_000  # the code kept of one student: a notebook's outputs are not code, and caps hold
CELL_MARK = "# %% "  # how the code of each file and notebook cell starts in the text compared and shown
GIVEN = Path(__file__).resolve().parent / "given"  # the book's and the lecture's code, as printed
# What a module registers by name rather than by assignment: the names are attributes it sets.
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


@dataclass(frozen=True)
class Shared:
    """What the class was given, normalised as a submission is: every k-gram hash and every statement."""

    kgrams: frozenset[int] = frozenset()
    statements: frozenset[tuple[str, ...]] = frozenset()


@dataclass(frozen=True)
class Fingerprints:
    """One submission's winnowed fingerprints of its own code: each hash with the token positions it
    stands for (each the start of K tokens of one unit)."""

    lines: tuple[int, ...]  # the line of each token, 1-based in the code text
    at: Mapping[int, tuple[int, ...]]


@dataclass(frozen=True)
class Pair:
    a: str
    b: str
    score: float  # shared fingerprints / the own fingerprints of the smaller of the two, 0..1
    shared: int
    lines_a: frozenset[int]  # the lines of a's code (and b's) in passages the two share
    lines_b: frozenset[int]


def code_of(files: Sequence[Path]) -> str:
    """What is compared of a student: each .py file whole and each notebook's code cells, every one
    under a `# %% file[, cell N]` line, in name order, capped. A file that cannot be read adds nothing."""
    from grader.loading import LoadError, load

    parts = []
    for path in sorted(files, key=lambda p: p.name):
        try:
            submission = load(path)
        except (LoadError, OSError):
            continue
        if submission.kind == "py":
            parts.append(f"{CELL_MARK}{path.name}\n{path.read_text(encoding='utf-8-sig', errors='replace')}")
        else:
            parts.extend(f"{CELL_MARK}{path.name}, cell {cell.number}\n{cell.source}" for cell in submission.cells
                         if cell.source.strip())
    code = "\n".join(part.rstrip("\n") + "\n" for part in parts)
    return code[:code.rfind("\n", 0, CODE_CHARS) + 1] if len(code) > CODE_CHARS else code


# -- from code to units of tokens ------------------------------------------------------------------------
def units(code: str) -> list[Unit]:
    """The units the code is compared by. The code is parsed whole (its cell marks are comments, so a
    `# %%` line a student put inside a function cuts nothing); where it does not parse, each `# %%` cell
    is parsed on its own, one that does not parse is split into its top-level statements, and a
    statement that still does not parse (an unclosed bracket, a tree too deep for the parser) is its
    text's tokens, so it keeps what it has and spoils no other."""
    from grader.loading import statement_starts

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
        methods = [child for child in stmt.body if isinstance(child, _DEFS)] if isinstance(stmt, ast.ClassDef) else []
        if methods:
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


# -- fingerprints ----------------------------------------------------------------------------------------
@lru_cache(maxsize=1 << 16)  # a class's tokens are mostly the same few thousand
def _token_id(token: str) -> int:
    return int.from_bytes(hashlib.blake2b(token.encode(), digest_size=8).digest(), "big")


def _hashes(toks: Sequence[str]) -> list[int]:
    """The hash of every run of K tokens: each token's 8 bytes of blake2b, combined by Python's hash of
    a tuple of ints, which is not salted (only str and bytes hashes are), so it is stable run to run."""
    ids = [_token_id(tok) for tok in toks]
    return [hash(tuple(ids[i:i + K])) for i in range(len(ids) - K + 1)]


def shared(boilerplate: Iterable[str]) -> Shared:
    """Every k-gram and every statement of the code the class was given."""
    kgrams: set[int] = set()
    statements: set[tuple[str, ...]] = set()
    for code in boilerplate:
        for unit in units(code):
            kgrams.update(_hashes(unit.tokens))
            statements.update(unit.tokens[a:b] for a, b in unit.statements)
    return Shared(frozenset(kgrams), frozenset(statements))


def _own(unit: Unit, hashes: Sequence[int], given: Shared) -> list[bool]:
    """For each k-gram of the unit, whether a token of it is the student's own: neither in a k-gram nor
    in a statement of what the class was given."""
    if not given.kgrams and not given.statements:
        return [True] * len(hashes)
    theirs = bytearray(len(unit.tokens))
    for i, h in enumerate(hashes):
        if h in given.kgrams:
            theirs[i:i + K] = b"\1" * K
    for a, b in unit.statements:
        if unit.tokens[a:b] in given.statements:
            theirs[a:b] = b"\1" * (b - a)
    mine = [0, *accumulate(1 - given_token for given_token in theirs)]
    return [mine[i + K] > mine[i] for i in range(len(hashes))]


def fingerprint(code: str, given: Shared = Shared()) -> Fingerprints:
    """Winnowing of each unit's own k-grams: in every window of WINDOW hashes the smallest (the rightmost
    of equals) is kept. A k-gram made only of what the class was given is no candidate, and no window
    spans it, so given code never shadows a student's own passage beside it."""
    lines: list[int] = []
    at: dict[int, list[int]] = defaultdict(list)
    for unit in units(code):
        base = len(lines)
        lines.extend(unit.lines)
        hashes = _hashes(unit.tokens)
        own = _own(unit, hashes, given)
        start = 0
        while start < len(hashes):
            if not own[start]:
                start += 1
                continue
            end = start
            while end < len(hashes) and own[end]:
                end += 1
            _winnow(hashes, start, end, base, at)
            start = end
    return Fingerprints(tuple(lines), {h: tuple(p) for h, p in at.items()})


def _winnow(hashes: Sequence[int], start: int, end: int, base: int, at: dict[int, list[int]]) -> None:
    chosen, width = -1, min(WINDOW, end - start)
    for left in range(start, end - width + 1):
        window = hashes[left:left + width]
        low = min(window)
        pick = left + width - 1 - window[::-1].index(low)
        if pick != chosen:
            at[low].append(base + pick)
            chosen = pick


def look_alikes(codes: Mapping[str, str], boilerplate: Iterable[str] = (),
                threshold: float = THRESHOLD) -> list[Pair]:
    """The pairs of students whose own code shares at least `threshold` of the smaller one's own
    fingerprints (and MIN_SHARED of them), most alike first."""
    given = shared(boilerplate)
    prints = {student: fingerprint(code, given) for student, code in codes.items()}
    holders: dict[int, list[str]] = defaultdict(list)
    for student in sorted(prints):
        for h in prints[student].at:
            holders[h].append(student)
    common = max(COMMON_MIN, int(COMMON_SHARE * len(codes)))
    ignored = {h for h, who in holders.items() if len(who) > common}
    counts: Counter[tuple[str, str]] = Counter()
    for h, who in holders.items():
        if 1 < len(who) <= common:
            counts.update(combinations(who, 2))
    pairs = []
    for (a, b), n_shared in counts.items():
        kept_a, kept_b = len(prints[a].at.keys() - ignored), len(prints[b].at.keys() - ignored)
        score = n_shared / min(kept_a, kept_b)
        if n_shared >= MIN_SHARED and score >= threshold:
            both = (prints[a].at.keys() & prints[b].at.keys()) - ignored
            pairs.append(Pair(a, b, score, n_shared, _lines(prints[a], both), _lines(prints[b], both)))
    return sorted(pairs, key=lambda p: (-p.score, -p.shared, p.a, p.b))


def _lines(prints: Fingerprints, both: set[int]) -> frozenset[int]:
    """The lines of the code the shared fingerprints stand for (each covers K tokens)."""
    return frozenset(prints.lines[i] for h in both for start in prints.at[h]
                     for i in range(start, min(start + K, len(prints.lines))))


def given(extra: Sequence[Path] = ()) -> list[str]:
    """The code the whole class was given: the student template, the book's reference code in
    `solutions/`, the book's and the lecture's code as printed (grader/given/), and the instructor's own
    boilerplate files."""
    import solutions
    import student_template

    folders = [Path(student_template.__file__).parent, Path(solutions.__file__).parent, GIVEN]
    files = [f for folder in folders for f in sorted(folder.iterdir())
             if f.suffix in (".py", ".ipynb") and f.name != "__init__.py"]
    return [code_of([f]) for f in [*files, *extra]]
