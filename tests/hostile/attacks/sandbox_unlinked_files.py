# attack: fill the disk with files that have no name, which a walk of the folder never meets: each written
# in the scratch folder just under the 64 MiB file-size cap and held open, one unlinked after it was made,
# the next made with O_TMPFILE, up to 1 GiB; print the total held after each file
import os

_block = b"\0" * (1 << 20)
_held = []
_total = 0
try:
    for _n in range(16):
        if _n % 2:
            _fd = os.open(".", os.O_TMPFILE | os.O_RDWR, 0o600)
        else:
            _fd = os.open(f"held-{_n}.bin", os.O_CREAT | os.O_RDWR, 0o600)
            os.unlink(f"held-{_n}.bin")
        _held.append(_fd)
        for _ in range(63):
            os.write(_fd, _block)
            _total += len(_block)
        os.fsync(_fd)
        print("HELD", _total >> 20, "MiB", flush=True)
except OSError as _exc:
    print("STOPPED", _total >> 20, "MiB", type(_exc).__name__, flush=True)
