# attack: output flood -- 300 MB through print() to sys.stderr and to the original sys.__stderr__
import sys

_line = "e" * (1 << 20)
for _ in range(150):
    print(_line, file=sys.stderr)
    try:
        print(_line, file=sys.__stderr__, flush=True)
    except OSError:  # a file-size cap: keep pushing
        pass
print("FLOOD-END-@MARK@")
