"""How long comparing a class for look-alike submissions takes (grader.similarity, `grade similar`).

It writes N students (default 200) to a temporary folder, half as notebooks and half as modules: each
hands in the book's code (solutions/chapter3.py, as most students do) and some code of their own,
generated at random; COPIES of them hand in another's own code disguised (every name changed, the
comments reworded, the blocks in reverse order). It times reading the code as `grade batch` keeps it
(grader.similarity.code_of), then the comparison with the template and the book's code as boilerplate
(grader.similarity.look_alikes), and checks that the planted copies are the top pairs. The target is
a 200-student class compared in seconds (<= 5 s); the pairs the inverted index counted are printed
beside all N(N-1)/2, which the comparison never walks. It only reports and always exits 0.

    python benchmarks/similar.py [-n 200] [--copies 5] [--seed 0] [--json]
"""
from __future__ import annotations

import argparse
import json
import random
import re
import sys
import tempfile
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from grader import similarity  # noqa: E402

BOOK = (ROOT / "solutions" / "chapter3.py").read_text(encoding="utf-8")
TARGET_S = 5.0
OPS = ["+", "-", "*", "@", "/"]


def own_code(rng: random.Random, functions: int = 6) -> str:
    """A student's own helpers: random statements, so two students share no more than chance does."""
    lines = []
    for f in range(functions):
        args = [f"a{rng.randrange(99)}" for _ in range(rng.randint(1, 3))]
        lines.append(f"def helper_{f}_{rng.randrange(10**6)}({', '.join(dict.fromkeys(args))}):")
        names = list(dict.fromkeys(args))
        for _ in range(rng.randint(4, 9)):
            target = f"v{rng.randrange(99)}"
            terms = [rng.choice(names + [str(rng.randint(0, 9))]) for _ in range(rng.randint(2, 4))]
            call = rng.choice(["torch.tanh", "torch.relu", "abs", "float", "sum", "len", "torch.exp"])
            expr = f" {rng.choice(OPS)} ".join(terms)
            lines.append(f"    {target} = {call}({expr})" if rng.random() < 0.6 else f"    {target} = {expr}")
            names.append(target)
        lines.append(f"    return {rng.choice(names)}\n")
    return "\n".join(lines) + "\n"


def disguise(code: str) -> str:
    names = sorted(set(re.findall(r"\b(?:helper_\w+|a\d+|v\d+)\b", code)))
    for n, name in enumerate(names):
        code = re.sub(rf"\b{name}\b", f"x{n}_renamed", code)
    blocks = code.split("\n\n")
    return "# my work\n" + "\n\n".join(reversed(blocks)).replace(" = ", "=")


def write_class(folder: Path, n: int, copies: int, rng: random.Random) -> set[frozenset[str]]:
    planted = set()
    owns = {f"s{i:04d}": own_code(rng) for i in range(n)}
    sources = dict(owns)
    for k in range(copies):
        original, copier = f"s{2 * k:04d}", f"s{2 * k + 1:04d}"
        sources[copier] = disguise(owns[original])
        planted.add(frozenset((original, copier)))
    for i, (student, mine) in enumerate(sources.items()):
        if i % 2:
            nb = nbformat.v4.new_notebook()
            nb.cells = [nbformat.v4.new_code_cell(BOOK), nbformat.v4.new_markdown_cell("my helpers"),
                        nbformat.v4.new_code_cell(mine)]
            (folder / f"{student}.ipynb").write_text(nbformat.writes(nb), encoding="utf-8")
        else:
            (folder / f"{student}.py").write_text(BOOK + "\n" + mine, encoding="utf-8")
    return planted


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=200)
    parser.add_argument("--copies", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        planted = write_class(folder, args.n, args.copies, random.Random(args.seed))
        started = time.perf_counter()
        codes = {path.stem: similarity.code_of([path]) for path in sorted(folder.iterdir())}
        read_s = time.perf_counter() - started
        started = time.perf_counter()
        given = similarity.given()
        pairs = similarity.look_alikes(codes, given)
        compare_s = time.perf_counter() - started
    top = {frozenset((p.a, p.b)) for p in pairs[:len(planted)]}
    figures = {
        "students": args.n, "planted_copies": len(planted), "read_code_s": round(read_s, 3),
        "compare_s": round(compare_s, 3), "all_pairs": args.n * (args.n - 1) // 2, "pairs_reported": len(pairs),
        "planted_found_on_top": len(top & planted), "target_s": TARGET_S,
        "verdict": "PASS" if compare_s <= TARGET_S and top == planted else "MISS",
    }
    if args.json:
        print(json.dumps(figures))
        return
    print(f"{args.n} students ({args.n // 2} notebooks), {len(planted)} disguised copies planted")
    print(f"  reading the code as grade batch keeps it  {read_s:7.3f} s")
    print(f"  comparing (boilerplate: template, book)   {compare_s:7.3f} s   target <= {TARGET_S:g} s")
    print(f"  pairs reported {len(pairs)} of {figures['all_pairs']} possible; planted copies on top: "
          f"{len(top & planted)}/{len(planted)}")
    print(figures["verdict"])


if __name__ == "__main__":
    main()
