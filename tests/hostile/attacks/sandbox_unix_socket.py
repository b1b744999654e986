# attack: talk to a listener outside the sandbox through its Unix socket (D-Bus, journald, a mounted
# docker.sock are such files): connect to the stream socket @STREAM@, send a datagram to @DGRAM@ without
# connecting, and the same through a datagram socket pair; print what got through
import socket

for family_type, path in ((socket.SOCK_STREAM, "@STREAM@"), (socket.SOCK_DGRAM, "@DGRAM@")):
    try:
        with socket.socket(socket.AF_UNIX, family_type) as client:
            if family_type == socket.SOCK_STREAM:
                client.connect(path)
                client.sendall(b"@MARK@ over a stream")
            else:
                client.sendto(b"@MARK@ in a datagram", path)
        print("SENT", path)
    except OSError as exc:
        print("REFUSED", path, type(exc).__name__)

try:
    mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)  # connected, but sendto still aims
    mine.sendto(b"@MARK@ from a pair", "@DGRAM@")
    print("SENT pair")
except OSError as exc:
    print("REFUSED pair", type(exc).__name__)
