# attack: start `sleep 987654` in a new session (setsid), out of the sandbox's process group
import subprocess

_orphan = subprocess.Popen(["sleep", "987654"], start_new_session=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
