"""How fast comparing a class for look-alike submissions is, and how right (grader.classes.similarity, `grade similar`).

Speed: it writes N students (default 200) to a temporary folder, half as notebooks and half as modules:
each hands in the book's code (solutions/chapter3.py, as most students do) and some code of their own,
generated at random; COPIES of them hand in another's own code with every mechanical disguise at once
(tests/corpus/similar/disguises.py: renamed, a dead statement after every statement, reprinted, the
definitions reversed). It times reading the code as `grade batch` keeps it (grader.classes.similarity.code_of),
then the comparison with what the class was given (grader.classes.similarity.look_alikes), and checks that the
planted copies are the top pairs. The target is a 200-student class compared in seconds (<= 5 s); the
pairs the inverted index counted are printed beside all N(N-1)/2, which the comparison never walks.

Accuracy, on the honest submissions of tests/corpus/similar/honest (students who each wrote chapter 3
on their own, most of them from the book's listings): the false-report rate is the share of their pairs
reported; and each of them is copied with each disguise alone and all at once, handed in as a module
and as a notebook of one cell per statement, and compared with the honest class: the rank of the pair
(copy, original) is counted, 1 where it is the most alike pair of the class. It only reports and always
exits 0.

    python benchmarks/similar.py [-n 200] [--copies 5] [--seed 0] [--json]
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import nbformat

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "corpus" / "similar"))
import disguises  # noqa: E402  (tests/corpus is data, not a package)
from grader.classes import similarity  # noqa: E402

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


def write_class(folder: Path, n: int, copies: int, rng: random.Random) -> set[frozenset[str]]:
    planted = set()
    owns = {f"s{i:04d}": own_code(rng) for i in range(n)}
    sources = dict(owns)
    for k in range(copies):
        original, copier = f"s{2 * k:04d}", f"s{2 * k + 1:04d}"
        sources[copier] = disguises.every_disguise(owns[original])
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


def accuracy(folder: Path, given: list[str]) -> dict[str, Any]:
    """The honest class's false reports, and where each disguised copy of each honest student ranks."""
    honest = {path.stem: similarity.code_of([path]) for path in sorted(disguises.HONEST.iterdir())}
    reported = similarity.look_alikes(honest, given)
    ranks: dict[str, int | None] = {}
    for path in sorted(disguises.HONEST.iterdir()):
        code = disguises.source(path)
        for name, disguise in [*disguises.DISGUISES.items(), ("all of them", disguises.every_disguise)]:
            for suffix in (".py", ".ipynb"):
                copy = disguises.write(folder / f"copy{suffix}", disguise(code))
                found = similarity.look_alikes({**honest, "copy": similarity.code_of([copy])}, given)
                ranks[f"{path.name}, {name}, as {suffix}"] = next(
                    (rank for rank, pair in enumerate(found, 1) if {pair.a, pair.b} == {path.stem, "copy"}), None)
    pairs = len(honest) * (len(honest) - 1) // 2
    listed = [rank for rank in ranks.values() if rank is not None]
    return {
        "honest_students": len(honest), "honest_pairs": pairs, "false_reports": len(reported),
        "false_report_rate": round(len(reported) / pairs, 4),
        "false_reported": [f"{p.a} · {p.b} {p.score:.2f}" for p in reported],
        "disguised_copies": len(ranks), "copies_ranked_first": sum(rank == 1 for rank in ranks.values()),
        "copies_not_listed": sum(rank is None for rank in ranks.values()),
        "worst_listed_rank": max(listed, default=None),
        "copies_not_first": sorted(case for case, rank in ranks.items() if rank != 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=200)
    parser.add_argument("--copies", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "class").mkdir()
        planted = write_class(folder / "class", args.n, args.copies, random.Random(args.seed))
        started = time.perf_counter()
        codes = {path.stem: similarity.code_of([path]) for path in sorted((folder / "class").iterdir())}
        read_s = time.perf_counter() - started
        started = time.perf_counter()
        given = similarity.given()
        pairs = similarity.look_alikes(codes, given)
        compare_s = time.perf_counter() - started
        right = accuracy(folder, given)
    top = {frozenset((p.a, p.b)) for p in pairs[:len(planted)]}
    figures = {
        "students": args.n, "planted_copies": len(planted), "read_code_s": round(read_s, 3),
        "compare_s": round(compare_s, 3), "all_pairs": args.n * (args.n - 1) // 2, "pairs_reported": len(pairs),
        "planted_found_on_top": len(top & planted), "target_s": TARGET_S, **right,
        "verdict": "PASS" if (compare_s <= TARGET_S and top == planted and not right["false_reports"]
                              and right["copies_ranked_first"] == right["disguised_copies"]) else "MISS",
    }
    if args.json:
        print(json.dumps(figures))
        return
    print(f"{args.n} students ({args.n // 2} notebooks), {len(planted)} disguised copies planted")
    print(f"  reading the code as grade batch keeps it  {read_s:7.3f} s")
    print(f"  comparing (what the class was given out)  {compare_s:7.3f} s   target <= {TARGET_S:g} s")
    print(f"  pairs reported {len(pairs)} of {figures['all_pairs']} possible; planted copies on top: "
          f"{len(top & planted)}/{len(planted)}")
    print(f"{right['honest_students']} honest students (tests/corpus/similar/honest)")
    print(f"  false reports {right['false_reports']} of {right['honest_pairs']} pairs "
          f"(rate {right['false_report_rate']:.1%}){': ' if right['false_reported'] else ''}"
          f"{', '.join(right['false_reported'])}")
    print(f"  disguised copies ranked first {right['copies_ranked_first']}/{right['disguised_copies']}, "
          f"not listed {right['copies_not_listed']}, worst listed rank {right['worst_listed_rank']}")
    for case in right["copies_not_first"]:
        print(f"    not first: {case}")
    print(figures["verdict"])


if __name__ == "__main__":
    main()
