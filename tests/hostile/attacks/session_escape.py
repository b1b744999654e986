# attack: leave the sandbox's process group, as a daemon does: a child calls setsid (then setpgid, for a group
# of its own in any session) and prints where it ended up beside where its parent is
import os

parent = os.getsid(0), os.getpgid(0)
reader, writer = os.pipe()
if os.fork() == 0:
    os.close(reader)
    try:
        os.setsid()
        os.setpgid(0, 0)
        os.write(writer, b"CALLS ok\n")
    except OSError as refused:
        os.write(writer, f"CALLS refused {refused.errno}\n".encode())
    escaped = (os.getsid(0), os.getpgid(0)) != parent
    os.write(writer, b"ESCAPED\n" if escaped else b"STAYED\n")
    os._exit(0)
os.close(writer)
with os.fdopen(reader) as told:
    print(told.read(), end="")
os.wait()
