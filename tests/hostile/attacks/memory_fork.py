# attack: hold the cap in each of two processes: fork, then each touches @MIB@ MiB (under the data cap of one
# process, past the cap of the two together) in steps of @STEP@ MiB, printing what it holds; both then wait
import os
import time

pid = os.fork()
who = "parent" if pid else "child"
held = []
for n in range(@MIB@ // @STEP@):
    held.append(bytearray(b"\1") * (@STEP@ << 20))  # every page written
    print("HELD", who, len(held) * @STEP@, flush=True)
    time.sleep(@PAUSE@)
time.sleep(2)
print("KEPT", who)
if pid:
    os.waitpid(pid, 0)
else:
    os._exit(0)
