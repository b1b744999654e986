# attack: every CausalAttention forward takes a second, so the submission's budget drains probe by probe
# and is spent before the device exercise's GPU comparison starts: a check only a GPU can run must still
# be skipped where there is none, never charged as a deadline that lifts the maximum (follows the answers)
import time

_forward = CausalAttention.forward


def _slow(self, x):
    time.sleep(1)
    return _forward(self, x)


CausalAttention.forward = _slow
