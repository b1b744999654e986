"""Turn a submission file into the cells the sandbox runs: read -> pick code cells -> neutralise magics.

This runs in the judge and only reads text; nothing here executes submission code. Each step is a
small function so it can be tested alone (the nbgrader preprocessor idea without its configuration).
"""
from __future__ import annotations

import ast
import hashlib
import json
import os
import re
import warnings
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal, Sequence


from grader.messages.errors import GraderError

Kind = Literal["py", "ipynb"]

# Cell magics whose body is ordinary Python that Jupyter runs (once, for our purposes).
BODY_MAGICS = {"time", "timeit", "capture", "prun"}

_LINE_MAGIC = re.compile(r"^(?P<indent>\s*)(?P<magic>[!%].*)$")
_ASSIGNED_MAGIC = re.compile(r"^(?P<indent>\s*)(?P<target>[A-Za-z_]\w*)\s*=\s*(?P<magic>[!%].*)$")
_HELP = re.compile(r"^\s*(\?{1,2}[A-Za-z_][\w.]*|[A-Za-z_][\w.]*\?{1,2})\s*$")
_PERCENT_CELL = re.compile(r"^# %%")
# A call of the grader's own notebook check (grader.integrations.jupyter) as a statement: it asks the grader to grade
# this very code, which the sandbox is already doing, so it is not run there (as `%grade` is not).
GRADER_CALL = re.compile(r"^(?P<indent>\s*)(assert\s+|[A-Za-z_]\w*\s*=\s*)?\(?(grader\.)?check\(")
_IMPORTS_GRADER = re.compile(r"^\s*(from\s+grader\s+import\b.*\bcheck\b|import\s+grader\b)", re.MULTILINE)


class LoadError(GraderError):
    """The file cannot be graded at all."""


@dataclass(frozen=True)
class Cell:
    number: int  # 1-based position among all of the notebook's cells (a .py file's: its statements or % blocks)
    source: str
    filename: str  # what tracebacks show
    first_line: int = 1  # where the cell starts in the file, so line numbers match the student's editor
    skipped_magics: tuple[str, ...] = ()
    writefile: tuple[str, str, bool] | None = None  # (name, content, append) of a %%writefile cell


@dataclass(frozen=True)
class Submission:
    path: Path
    kind: Kind
    sha256: str
    cells: tuple[Cell, ...] = field(default=())
    support: tuple[Path, ...] = ()  # the other files handed in beside it, copied into the scratch directory
    on_disk: bool = True  # False for what a kernel ran: `path` names its notebook, which need not exist
    # What was off in a notebook's file whose cells were read anyway (`"nbformat": 5`); "" for none.
    header: str = ""

    @property
    def files(self) -> tuple[Path, ...]:
        return (self.path, *self.support) if self.on_disk else self.support


GRADED_SUFFIXES = (".py", ".ipynb")


def load_many(paths: Sequence[Path]) -> Submission:
    """One student's files graded together: every .py and .ipynb runs, in name order, in one namespace,
    and every file (a helper module, a data file) sits beside them, so `import helper` and
    `open("data.txt")` work as they did on the student's machine."""
    paths = sorted(paths, key=lambda p: p.name)
    if not paths:
        raise LoadError("cli.empty_submission")
    graded = [load(p) for p in paths if p.suffix in GRADED_SUFFIXES]
    if not graded:
        raise LoadError("cli.nothing_to_grade", path=", ".join(p.name for p in paths))
    if len(paths) == 1:
        return graded[0]
    cells: list[Cell] = []
    for part in graded:
        offset = len(cells)
        cells += [replace(c, number=c.number + offset,
                          filename=f"<cell {c.number + offset}>" if part.kind == "ipynb" else c.filename)
                  for c in part.cells]
    first = graded[0]
    header = "; ".join(f"{part.path.name}: {part.header}" for part in graded if part.header)
    return Submission(first.path, first.kind, fingerprint(paths), tuple(cells),
                      tuple(p for p in paths if p != first.path), header=header)


def fingerprint(paths: Sequence[Path]) -> str:
    """The sha256 a submission is known by: its file's bytes, or for several files their names and
    contents, so renaming or changing any of them makes it a new submission."""
    if len(paths) == 1:
        return hashlib.sha256(paths[0].read_bytes()).hexdigest()
    digest = hashlib.sha256()
    for path in sorted(paths, key=lambda p: p.name):
        # the name's own bytes: one that is not UTF-8 (GBK, from a Windows zip) would not encode as text
        digest.update(os.fsencode(path.name) + f"\0{hashlib.sha256(path.read_bytes()).hexdigest()}\0".encode())
    return digest.hexdigest()


def load(path: Path) -> Submission:
    """Read a .py module or .ipynb notebook into neutralised cells; LoadError when it can't be graded."""
    if not path.exists():
        raise LoadError("cli.missing_file", path=str(path))
    if path.is_dir():  # a student's folder: `grade batch` grades the files in it
        raise LoadError("cli.is_folder", path=str(path))
    if path.suffix not in GRADED_SUFFIXES:
        raise LoadError("cli.bad_kind", path=str(path))
    try:
        raw = path.read_bytes()
        text = raw.decode("utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise LoadError("cli.unreadable", path=str(path), error=str(exc)) from None
    sha = hashlib.sha256(raw).hexdigest()
    if path.suffix == ".py":
        return Submission(path, "py", sha, split_module(text, path.name))
    cells, header = notebook_cells(text, path)
    return Submission(path, "ipynb", sha, neutralised(cells), header=header)


def kernel_inputs(inputs: Sequence[tuple[int, str]], path: Path) -> Submission:
    """What a Jupyter kernel ran, in the order it ran (grader.integrations.jupyter): one cell per execution, named by
    its execution count as the notebook shows it (`In [7]`), graded as a notebook of those cells."""
    cells = [Cell(number=count, source=source, filename=f"<In [{count}]>") for count, source in inputs]
    digest = hashlib.sha256("".join(f"{count}\0{source}\0" for count, source in inputs).encode())
    return Submission(path, "ipynb", digest.hexdigest(), neutralised(cells), on_disk=False)


def neutralised(cells: Sequence[Cell]) -> tuple[Cell, ...]:
    """Each cell neutralised; the grader's own check calls too where a cell imports the grader."""
    calls = any(_IMPORTS_GRADER.search(cell.source) for cell in cells)
    return tuple(neutralise(cell, grader_calls=calls) for cell in cells)


def split_module(text: str, filename: str) -> tuple[Cell, ...]:
    """A module runs as a notebook does: one cell per `# %%` block where the student marked them (the
    percent format editors use), else one per top-level statement (a def, class, for, with or if block
    is one). So a statement that raises, or a training loop stopped for time, costs itself and not what
    the file defines after it; `python file.py` would have stopped there, a teacher reading on would not."""
    lines = text.splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if _PERCENT_CELL.match(line)] or statement_starts(lines)
    if not starts or starts[0] != 0:
        starts = [0] + starts
    bounds = zip(starts, starts[1:] + [len(lines)])
    return tuple(
        Cell(number=n, source="".join(lines[a:b]), filename=filename, first_line=a + 1)
        for n, (a, b) in enumerate(bounds, start=1)
    )


def statement_starts(lines: Sequence[str]) -> list[int]:
    """The 0-based line on which each top-level statement starts (its first decorator, for a def or class);
    lines before the first belong to it. A file Python cannot parse is split by its layout instead, so
    one broken statement fails alone."""
    try:
        tree = ast.parse("".join(lines))
    # ValueError: a null byte; RecursionError and MemoryError: nesting or chains deeper than the parser goes
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return _starts_by_layout(lines)
    starts = sorted({min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))]) - 1
                     for node in tree.body})
    return [0, *starts[1:]] if starts else []


_CONTINUATION = re.compile(r"(else|elif|except|finally)\b")


def _starts_by_layout(lines: Sequence[str]) -> list[int]:
    """Where a statement can start in text that does not parse: a line at column 0 that is not a comment,
    once the statement before it closes its brackets and strings and is more than decorators."""
    starts: list[int] = []
    statement = _OpenStatement()
    decorators = True  # whether the statement so far is only decorators, comments and blank lines
    for i, line in enumerate(lines):
        code = line[:1] not in ("", " ", "\t", "#", "\n", "\r") and not _CONTINUATION.match(line)
        if code and (not starts or (not decorators and statement.complete)):
            starts.append(i)
            statement = _OpenStatement()
            decorators = True
        statement.feed(line)
        decorators = decorators and (not line.strip() or line.lstrip().startswith(("@", "#")))
    return [0, *starts[1:]] if starts else []


def prepare_notebooks() -> None:
    """Load nbformat and the validator of today's notebook schema (built on first use; ~0.17 s in all): a batch's
    parent does it once, before it forks its judges, where each would do it for its first notebook."""
    import nbformat
    nbformat.validate(nbformat.v4.new_notebook())


def notebook_cells(text: str, path: Path) -> tuple[list[Cell], str]:
    """The notebook's code cells, and what was off in its file where they were read anyway ("" for none).

    nbformat reads what follows its schema. A file some editors save with a header nbformat refuses
    (`"nbformat": 5`, a version that does not exist, over ordinary version-4 cells) is read as what it holds
    where every cell has the version-4 shape, and the note names what was off; anything else is refused."""
    if not text.strip():  # nbformat would say "does not appear to be JSON: ''"
        raise LoadError("cli.empty_notebook", path=str(path))
    conflict = _MERGE_CONFLICT.search(text)
    if conflict is not None:  # nbformat would say "does not appear to be JSON"
        raise LoadError("cli.merge_conflict", path=str(path), line=text.count("\n", 0, conflict.start()) + 1)
    import nbformat  # here, not at the top: ~0.1 s with its jsonschema, which a .py submission never needs

    try:
        with warnings.catch_warnings():  # a cell without an id (older notebooks): nothing the student must fix
            warnings.simplefilter("ignore")
            nb = nbformat.reads(text, as_version=4)
            nbformat.validate(nb)
    except Exception as exc:  # nbformat raises JSON, schema and version errors of many types
        found = _version_4_cells(text, _first_line(exc))
        if found is None:
            raise LoadError("cli.bad_notebook", path=str(path), error=_first_line(exc)) from None
        sources, header = found
        return [Cell(number=n, source=source, filename=f"<cell {n}>") for n, source in sources], header
    cells = [Cell(number=n, source=cell.source, filename=f"<cell {n}>")
             for n, cell in enumerate(nb.cells, start=1) if cell.cell_type == "code"]
    return cells, ""


_CELL_TYPES = ("code", "markdown", "raw")
# What git writes into a file whose merge it could not finish: `<<<<<<< HEAD` at the start of a line (then
# `=======` and `>>>>>>> branch`); a notebook so committed is no JSON at all.
_MERGE_CONFLICT = re.compile(r"^<{7}(?: |$)", re.M)


def _version_4_cells(text: str, error: str) -> tuple[list[tuple[int, str]], str] | None:
    """(number, source) of each code cell of a notebook whose cells all have the version-4 shape, and what
    its header says that a version-4 notebook's does not (else what nbformat said, `error`); None where the
    file is not such a notebook."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None
    cells = data.get("cells") if isinstance(data, dict) else None
    if not isinstance(cells, list) or not cells or not all(_version_4_cell(cell) for cell in cells):
        return None
    off = [f'"nbformat": {json.dumps(data.get("nbformat"))}'] if data.get("nbformat") != 4 else []
    if not isinstance(data.get("nbformat_minor"), int):
        off.append(f'"nbformat_minor": {json.dumps(data.get("nbformat_minor"))}')
    if not isinstance(data.get("metadata"), dict):
        off.append('"metadata" missing')
    header = ", ".join(off) or error
    sources = [(n, _joined(cell["source"])) for n, cell in enumerate(cells, start=1) if cell["cell_type"] == "code"]
    return sources, header[:200]


def _version_4_cell(cell: object) -> bool:
    if not isinstance(cell, dict) or cell.get("cell_type") not in _CELL_TYPES:
        return False
    source = cell.get("source")
    return isinstance(source, str) or (isinstance(source, list) and all(isinstance(line, str) for line in source))


def _joined(source: str | list[str]) -> str:
    return source if isinstance(source, str) else "".join(source)


def neutralise(cell: Cell, grader_calls: bool = False) -> Cell:
    """Keep what a cell means in Jupyter without running anything but Python.

    Line numbers are preserved (a neutralised line becomes `pass`), so errors point at the
    student's own line. `grader_calls`: a `check(...)` statement is the grader's (`from grader import
    check`), not the student's own function of that name, and is left out like `%grade`.
    """
    lines = cell.source.splitlines()
    skipped: list[str] = []
    if lines and lines[0].startswith("%%"):
        name, _, args = lines[0][2:].partition(" ")
        skipped.append(lines[0].strip())
        if name == "writefile":
            return _writefile(cell, args, lines[1:], skipped)
        if name not in BODY_MAGICS:
            return Cell(cell.number, "", cell.filename, cell.first_line, tuple(skipped))
        lines[0] = ""
    call = GRADER_CALL if grader_calls else _NEVER
    if not any(_LINE_MAGIC.match(line) or _ASSIGNED_MAGIC.match(line) or _HELP.match(line) or call.match(line)
               for line in lines):
        # Most cells: nothing to neutralise, so no need to tokenize them line by line (3 ms a notebook).
        return Cell(cell.number, "\n".join(lines) + "\n", cell.filename, cell.first_line, tuple(skipped))
    out: list[str] = []
    statement = _OpenStatement()  # the Python statement still open (a bracket, a string), if any
    dropped = False  # whether that statement is a grader call, left out line by line
    for line in lines:
        assigned = _ASSIGNED_MAGIC.match(line)
        magic = _LINE_MAGIC.match(line)
        grader_call = call.match(line)
        if statement.fed:
            out.append("" if dropped else line)
        elif grader_call:
            skipped.append(line.strip()[:200])
            out.append(f"{grader_call['indent']}pass")
            dropped = True
        elif assigned:
            skipped.append(assigned["magic"].strip()[:200])
            out.append(f"{assigned['indent']}{assigned['target']} = []")
        elif magic:
            skipped.append(magic["magic"].strip()[:200])
            out.append(f"{magic['indent']}pass")
        elif _HELP.match(line):
            skipped.append(line.strip()[:200])
            out.append(line[: len(line) - len(line.lstrip())] + "pass")
        else:
            out.append(line)
        statement.feed(line if dropped else out[-1])
        if statement.complete:
            statement = _OpenStatement()
            dropped = False
    return Cell(cell.number, "\n".join(out) + "\n", cell.filename, cell.first_line, tuple(skipped))


_NEVER = re.compile(r"(?!)")


class _OpenStatement:
    """Whether the lines fed so far close every bracket, string and backslash they open, read as Python's
    tokenizer reads them but each line once: asking after every line of a statement thousands of lines
    long (a bracket never closed) costs its length, not its square, as re-tokenising it did."""

    def __init__(self) -> None:
        self.depth = 0  # brackets open
        self.quote = ""  # the quotes of the string still open ("" for none)
        self.backslash = False  # the last line ended in a backslash outside a string
        self.fed = False

    @property
    def complete(self) -> bool:
        return not (self.depth or self.quote or self.backslash)

    def feed(self, line: str) -> None:
        self.fed = True
        token = ""
        for match in _TOKEN.finditer(line):
            token = match.group()
            if self.quote:
                # `"a"""`: the string's quote, then an empty string
                self.quote = "" if token[0] == self.quote[0] and len(token) >= len(self.quote) else self.quote
            elif token == "#":
                break
            elif token in _QUOTES:
                self.quote = token
            elif token in "([{":
                self.depth += 1
            elif token in ")]}":
                self.depth = max(self.depth - 1, 0)  # Python's error, and no statement opens by it
        continued = token == "\\"  # a backslash alone is one that ends its line
        self.backslash = continued and not self.quote
        if len(self.quote) == 1 and not continued:
            self.quote = ""  # a string in one quote ends with its line (Python's error if it was not closed)


# What the scan reads of a line, left to right: a backslash and what it escapes, a comment's `#`, quotes,
# brackets. Inside a string only its closing quotes count, so a `#` or a bracket there is just a character.
_TOKEN = re.compile(r"""\\[^\r\n]?|'''|\"\"\"|['"#()\[\]{}]""")
_QUOTES = ("'", '"', "'''", '"""')


def _writefile(cell: Cell, args: str, body: list[str], skipped: list[str]) -> Cell:
    words = args.split()
    append = "-a" in words or "--append" in words
    names = [w for w in words if not w.startswith("-")]
    target = names[0] if names else ""
    return Cell(
        cell.number, "", cell.filename, cell.first_line, tuple(skipped),
        writefile=(target, "\n".join(body) + "\n", append),
    )


def _first_line(exc: Exception) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0][:300] if lines else type(exc).__name__


def named_paths(cells: Sequence[Cell]) -> set[str]:
    """The paths the code's strings spell, whole and part by part, so that single-file mode can copy a
    sub-folder the code names (grader.judge.scratch.siblings): `'data/input.txt'`, `os.path.join('data', ...)`
    and `Path('data') / 'input.txt'` all name `data`. Read, never run."""
    named: set[str] = set()
    for cell in cells:
        for literal in _string_literals(cell.source):
            parts = [p for p in re.split(r"[\\/]+", literal) if p not in ("", ".", "..")]
            named.update(parts)
            named.update("/".join(parts[:end]) for end in range(2, len(parts) + 1))
    return named


# A comment, or a string literal (its quotes, then its body), matched left to right as Python reads
# them, so a quote inside a comment or inside another string opens nothing.
_LITERAL = re.compile(r"#[^\n]*|('''|\"\"\"|'|\")((?:\\.|(?!\1).)*?)\1", re.DOTALL)


def _string_literals(source: str) -> list[str]:
    """The body of each string literal in `source`, escapes as written (an f-string's whole body). A scan,
    not the tokenizer: a notebook of thousands of cells costs milliseconds, a broken cell no more."""
    return [match.group(2) for match in _LITERAL.finditer(source) if match.group(1)]
