# attack: send a UDP datagram to a port on the grading machine (@PORT@, bound by the test)
import socket

_PORT = int("@PORT@")
_sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
_sock.sendto(b"hello from the submission @MARK@", ("127.0.0.1", _PORT))
