"""Look-alike submissions: which students' code is unusually alike, and where.

The method is MOSS's (Schleimer, Wilkerson and Aiken, "Winnowing", SIGMOD 2003): the code becomes a
stream of normalised tokens, every run of K tokens is hashed, and winnowing keeps the smallest hash of
every window of W, so any passage of K + W - 1 tokens two submissions share leaves them a fingerprint
in common. Python's own `tokenize` normalises: every name is one token (renaming hides nothing), every
string another, numbers, keywords and operators stay, and comments, blank lines, line breaks and
indentation are dropped (rewording a comment or reflowing a line hides nothing). A notebook is its
code cells, each fingerprinted on its own, so reordering cells moves passages without breaking them.

What the whole class was given is no evidence: every K-token run of the boilerplate (the student
template, the book's code in `solutions/`, an instructor's `--boilerplate` files) is dropped from every
submission, and so is a fingerprint that more than COMMON_SHARE of the class (at least COMMON_MIN
students) share, as MOSS's `-m` does: a lecture's idiom, not one student's work. That cap is also what
bounds the cost: pairs are counted from an inverted index of fingerprints, so a pair of students who
share nothing costs nothing, and no fingerprint adds more than COMMON² pairs; the time goes into
hashing each submission's tokens, once. A class of 200 is compared in about a second
(benchmarks/similar.py); all pairs never are.

Why not a library. `copydetect` (0.5, the maintained Python implementation of the same method) was
weighed and does not fit: it requires matplotlib (and with it numpy, pillow, fonttools, contourpy,
kiwisolver, pyparsing, cycler) and imports matplotlib.pyplot on import, for a chart we would not draw,
in a grader that runs in Gradescope and CI images; its CopyDetector compares files all-pairs (one
numpy comparison for every pair of the class), which the class size must not bound; and it hashes
k-grams with Python's salted `hash`, so scores change from one run to the next. Its fingerprinting
half (pygments tokens, character k-grams, winnowing) is what this module does with the standard
library, on Python tokens, in about a hundred lines.
"""
from __future__ import annotations

import hashlib
import io
import keyword
import tokenize
from collections import Counter, defaultdict
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Iterable, Mapping, Sequence

K = 12  # tokens in a k-gram: shorter runs are idioms anyone writes (`x = torch.nn.Linear(d_in, d_out)`)
WINDOW = 8  # winnowing window: every shared run of K + WINDOW - 1 = 19 tokens is found
THRESHOLD = 0.5  # the share of the smaller submission's fingerprints two must share to be reported
MIN_SHARED = 8  # fewer shared fingerprints than this is a line or two, whatever the share
COMMON_SHARE, COMMON_MIN = 0.1, 10  # a fingerprint in more submissions than this is the class's
CODE_CHARS = 300_000  # the code kept of one student: a notebook's outputs are not code, and caps hold
CELL_MARK = "# %% "  # how the code of each file and notebook cell starts in the text compared and shown
_DROPPED = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
            tokenize.ENCODING, tokenize.ENDMARKER}
_STRINGS = {tokenize.STRING, *(getattr(tokenize, t) for t in ("FSTRING_START", "FSTRING_MIDDLE", "FSTRING_END")
                               if hasattr(tokenize, t))}


@dataclass(frozen=True)
class Fingerprints:
    """One submission's winnowed fingerprints: each hash with the token positions it stands for."""

    lines: tuple[int, ...]  # the line of each token, 1-based in the code text
    at: Mapping[int, tuple[int, ...]]


@dataclass(frozen=True)
class Pair:
    a: str
    b: str
    score: float  # shared fingerprints / the fingerprints of the smaller of the two, 0..1
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


def tokens(code: str) -> list[tuple[str, int]]:
    """(normalised token, line) of every cell of the code, each cell tokenized on its own, so that one
    that does not parse (an unclosed bracket) keeps its tokens up to there and spoils no other."""
    found: list[tuple[str, int]] = []
    for first, cell in _cells(code):
        try:
            for tok in tokenize.generate_tokens(io.StringIO(cell).readline):
                if tok.type in _DROPPED:
                    continue
                if tok.type == tokenize.NAME and not keyword.iskeyword(tok.string):
                    text = "N"
                elif tok.type in _STRINGS:
                    text = "S"
                else:
                    text = tok.string
                found.append((text, first + tok.start[0] - 1))
        except (tokenize.TokenError, SyntaxError):
            continue
    return found


def _cells(code: str) -> Iterable[tuple[int, str]]:
    """(first line, text) of each `# %%` cell of the code."""
    lines = code.splitlines(keepends=True)
    bounds = sorted({0, len(lines), *(n for n, line in enumerate(lines) if line.startswith(CELL_MARK))})
    for start, end in zip(bounds, bounds[1:]):
        yield start + 1, "".join(lines[start:end])


def _hashes(toks: Sequence[tuple[str, int]]) -> list[int]:
    """The hash of every run of K tokens: stable from run to run, unlike Python's salted hash()."""
    texts = [t for t, _ in toks]
    return [int.from_bytes(hashlib.blake2b("\x1f".join(texts[i:i + K]).encode(), digest_size=8).digest(), "big")
            for i in range(len(texts) - K + 1)]


def kgrams(code: str) -> set[int]:
    """Every k-gram hash of the code: what boilerplate takes out of every submission."""
    return set(_hashes(tokens(code)))


def fingerprint(code: str) -> Fingerprints:
    """Winnowing: in every window of WINDOW hashes the smallest (the rightmost of equals) is kept."""
    toks = tokens(code)
    hashes = _hashes(toks)
    at: dict[int, list[int]] = defaultdict(list)
    chosen, width = -1, min(WINDOW, len(hashes))
    for start in range(len(hashes) - width + 1 if hashes else 0):
        window = hashes[start:start + width]
        low = min(window)
        pick = start + len(window) - 1 - window[::-1].index(low)
        if pick != chosen:
            at[low].append(pick)
            chosen = pick
    return Fingerprints(tuple(line for _, line in toks), {h: tuple(p) for h, p in at.items()})


def look_alikes(codes: Mapping[str, str], boilerplate: Iterable[str] = (),
                threshold: float = THRESHOLD) -> list[Pair]:
    """The pairs of students whose code shares at least `threshold` of the smaller one's fingerprints
    (and MIN_SHARED of them), most alike first."""
    given = set().union(*(kgrams(code) for code in boilerplate))
    prints = {student: fingerprint(code) for student, code in codes.items()}
    own = {student: set(p.at) - given for student, p in prints.items()}
    holders: dict[int, list[str]] = defaultdict(list)
    for student in sorted(own):
        for h in own[student]:
            holders[h].append(student)
    common = max(COMMON_MIN, int(COMMON_SHARE * len(codes)))
    ignored = {h for h, who in holders.items() if len(who) > common}
    counts: Counter[tuple[str, str]] = Counter()
    for h, who in holders.items():
        if 1 < len(who) <= common:
            counts.update(combinations(who, 2))
    pairs = []
    for (a, b), shared in counts.items():
        kept_a, kept_b = len(own[a] - ignored), len(own[b] - ignored)
        score = shared / min(kept_a, kept_b)
        if shared >= MIN_SHARED and score >= threshold:
            both = (own[a] & own[b]) - ignored
            pairs.append(Pair(a, b, score, shared, _lines(prints[a], both), _lines(prints[b], both)))
    return sorted(pairs, key=lambda p: (-p.score, -p.shared, p.a, p.b))


def _lines(prints: Fingerprints, shared: set[int]) -> frozenset[int]:
    """The lines of the code the shared fingerprints stand for (each covers K tokens)."""
    return frozenset(prints.lines[i] for h in shared for start in prints.at[h]
                     for i in range(start, min(start + K, len(prints.lines))))


def given(extra: Sequence[Path] = ()) -> list[str]:
    """The code the whole class was given: the student template, the book's code in `solutions/`, and
    the instructor's own boilerplate files."""
    import solutions
    import student_template

    folders = [Path(student_template.__file__).parent, Path(solutions.__file__).parent]
    files = [f for folder in folders for f in sorted(folder.iterdir())
             if f.suffix in (".py", ".ipynb") and f.name != "__init__.py"]
    return [code_of([f]) for f in [*files, *extra]]
