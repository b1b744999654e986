# attack: output flood -- 300 MB straight to file descriptor 2, past any Python-level capture
import os

_chunk = b"e" * (1 << 20) + b"\n"
for _ in range(300):
    try:
        os.write(2, _chunk)
    except OSError:  # a file-size cap: keep pushing
        pass
print("FLOOD-END-@MARK@")
