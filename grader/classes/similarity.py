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
(`solutions/`), the book's chapter 3 and the GPT lecture as printed (grader/classes/given/, bundled), and an
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

import hashlib
import importlib.util
from collections import Counter, defaultdict
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate, combinations
from pathlib import Path
from typing import Iterable, Mapping, Sequence

# CELL_MARK and tokens are part of what this module offers: the text compared, and its tokens.
from grader.classes.normalise import CELL_MARK as CELL_MARK
from grader.classes.normalise import Unit, units
from grader.classes.normalise import tokens as tokens
from grader.messages.errors import GraderError
from grader.results import Pair
from grader.results.bounds import readable

K = 12  # tokens in a k-gram: shorter runs are idioms anyone writes (`x = torch.nn.Linear(d_in, d_out)`)
WINDOW = 8  # winnowing window: every shared run of K + WINDOW - 1 = 19 tokens is found
THRESHOLD = 0.5  # the share of the smaller submission's own fingerprints two must share to be reported
MIN_SHARED = 8  # fewer shared fingerprints than this is a line or two, whatever the share
COMMON_SHARE, COMMON_MIN = 0.1, 10  # a fingerprint in more submissions than this is the class's
CODE_CHARS = 300_000  # the code kept of one student: a notebook's outputs are not code, and caps hold
GIVEN = Path(__file__).resolve().parent / "given"  # the book's and the lecture's code, as printed
# What a module registers by name rather than by assignment: the names are attributes it sets.
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


def code_of(files: Sequence[Path]) -> str:
    """What is compared of a student: each .py file whole and each notebook's code cells, every one
    under a `# %% file[, cell N]` line, in name order, capped. A file that cannot be read adds nothing."""
    from grader.load.submission import LoadError, load

    parts = []
    for path in sorted(files, key=lambda p: p.name):
        try:
            submission = load(path)
        except (LoadError, OSError):
            continue
        name = readable(path.name)  # kept in SQLite, which takes no name that is not UTF-8
        if submission.kind == "py":
            parts.append(f"{CELL_MARK}{name}\n{path.read_text(encoding='utf-8-sig', errors='replace')}")
        else:
            parts.extend(f"{CELL_MARK}{name}, cell {cell.number}\n{cell.source}" for cell in submission.cells
                         if cell.source.strip())
    code = "\n".join(part.rstrip("\n") + "\n" for part in parts)
    return code[:code.rfind("\n", 0, CODE_CHARS) + 1] if len(code) > CODE_CHARS else code


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
    `solutions/`, the book's and the lecture's code as printed (grader/classes/given/), and the instructor's own
    boilerplate files."""
    # found, not imported: the references import torch, which comparing text never needs
    specs = [importlib.util.find_spec(name) for name in ("grader.student_template", "grader.solutions")]
    folders = [*(Path(folder) for spec in specs if spec for folder in spec.submodule_search_locations or []), GIVEN]
    files = [f for folder in folders for f in sorted(folder.iterdir())
             if f.suffix in (".py", ".ipynb") and f.name != "__init__.py"]
    return [code_of([f]) for f in [*files, *extra]]


def check_boilerplate(boilerplate: Sequence[Path]) -> None:
    """The --boilerplate files all exist, before any grading or comparing starts."""
    absent = next((path for path in boilerplate if not path.is_file()), None)
    if absent is not None:
        raise GraderError("similar.no_boilerplate", path=str(absent))
