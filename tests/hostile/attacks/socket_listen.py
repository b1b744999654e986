# attack: bind a listening TCP socket, a back door for anyone who can reach the machine
import socket

_server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
_server.bind(("0.0.0.0", 0))
_server.listen()
print("LISTENING", _server.getsockname()[1])
