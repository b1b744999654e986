# attack: fork bomb -- every process forks in a loop until fork fails, each ending as `sleep 987652`.
# The sandbox's process limit (512, in a user namespace) should stop it; 2**10 processes is the
# attack's own cap, so a test machine without that limit survives it.
import os


def _bomb():
    if os.fork() == 0:  # the bomb goes off in a child, so the cell itself returns
        try:
            for _ in range(10):
                try:
                    os.fork()
                except OSError:  # the process limit: stop doubling, keep what forked
                    break
            os.execvp("sleep", ["sleep", "987652"])
        finally:
            os._exit(0)  # never fall back into the grader's own loop


_bomb()
