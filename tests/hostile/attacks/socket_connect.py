# attack: open a TCP connection to a server on the grading machine (@PORT@, opened by the test)
import socket

_PORT = int("@PORT@")
_conn = socket.create_connection(("127.0.0.1", _PORT), timeout=3)
_conn.sendall(b"hello from the submission @MARK@\n")
