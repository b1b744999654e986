# attack: fork 700 processes that each sleep (`sleep 987654`), past the sandbox's process cap of 512,
# and print how many it got
import os

_forked = 0
for _ in range(700):
    try:
        _pid = os.fork()
    except OSError:
        break
    if _pid == 0:
        try:
            os.execvp("sleep", ["sleep", "987654"])
        finally:
            os._exit(0)
    _forked += 1
print("FORKED", _forked)
