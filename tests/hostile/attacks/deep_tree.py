# attack: a folder tree 1,400 levels deep in the scratch folder (one-letter names, so each path stays
# short to the process that made it, but not to one that walks it by name or by recursion), then a pause
# long enough for the judge's disk watch to look at it
import os
import time

_top = os.open(".", os.O_RDONLY)
for _ in range(1400):
    os.mkdir("d")
    os.chdir("d")
os.fchdir(_top)
print("DEEP", 1400)
time.sleep(0.5)
