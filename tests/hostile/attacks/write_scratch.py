# attack (allowed): write into the current directory, the sandbox's scratch copy, and read it back
import os

with open("scratch-@MARK@.txt", "w") as f:
    f.write("scratch is writable\n")
with open("scratch-@MARK@.txt") as f:
    assert f.read() == "scratch is writable\n"
print("SCRATCH-OK", os.path.abspath("scratch-@MARK@.txt"))
