# attack: memory bomb -- allocate (and touch) 256 MB blocks until the allocation fails
def _bomb():
    hog = []
    while True:
        hog.append(bytearray(256 * 1024 * 1024))


_bomb()
