# attack: find the grader's copy of the book's code (grader/classes/given/) beside the grader's own code and
# print what can be read of it; the classes it holds are not run here (pasting the book's public code is the
# student's right, reading the grader's copy of it is not): READ or NOT-READ, LISTED or NOT-LISTED
import os

import grader

given = os.path.join(os.path.dirname(os.path.abspath(grader.__file__)), "classes", "given")
for name in ("book_chapter3.py", "lecture_gpt.py"):
    try:
        with open(os.path.join(given, name), "rb") as f:
            print("READ", name, len(f.read()))
    except OSError as exc:
        print("NOT-READ", name, type(exc).__name__)
try:
    print("LISTED", sorted(os.listdir(given)))
except OSError as exc:
    print("NOT-LISTED", type(exc).__name__)
