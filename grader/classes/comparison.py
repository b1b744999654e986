"""A graded class compared (`grade similar OUTDIR`, `grade batch --similar`'s last step): the code its gradebook
kept, the look-alike pairs grader.classes.similarity finds in it, a side-by-side page per pair and the overview
with its "unusually alike" section.

It reads the code the gradebook kept, not the submissions, so it compares a merged class whose shards graded
on other machines. What the command prints is the command's: this returns what it found.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from grader.classes import pool, release, similarity
from grader.classes.gradebook import FILENAME, Gradebook
from grader.messages.errors import GraderError
from grader.render import similar
from grader.results import LookAlike


@dataclass(frozen=True)
class Compared:
    found: LookAlike
    missing: int  # students whose code the gradebook did not keep, so were not compared
    index: Path  # the overview page, written again with the pairs


def check_boilerplate(boilerplate: tuple[Path, ...]) -> None:
    """The --boilerplate files all exist, before any grading or comparing starts."""
    absent = next((path for path in boilerplate if not path.is_file()), None)
    if absent is not None:
        raise GraderError("similar.no_boilerplate", path=str(absent))


def compare(outdir: Path, boilerplate: tuple[Path, ...], threshold: float, lang: str) -> Compared:
    """Compare the class of OUTDIR's gradebook and write its pages, the overview in `lang`."""
    if not (outdir / FILENAME).is_file():
        raise GraderError("batch.no_gradebook", path=str(outdir))
    with Gradebook(outdir / FILENAME) as book:
        entries = book.latest()
        kept = book.code(entry.sha256 for entry in entries)
        shown = release.read(book).shown
        left_out = book.left_out()
    codes = {entry.label: kept[entry.sha256] for entry in entries if entry.sha256 in kept}
    found = LookAlike(tuple(similarity.look_alikes(codes, similarity.given(boilerplate), threshold)), threshold,
                      len(codes))
    similar.write_pages(outdir, found, codes, lang)
    index = pool.publish(outdir, entries, lang, rewrite_pages=False, shown=shown, left_out=left_out, look_alike=found)
    return Compared(found, len({entry.label for entry in entries} - set(codes)), index)
