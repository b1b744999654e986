# attack: MultiHeadAttention.forward answers @MIB@ MiB of float32 (@MIB@ rows of 1 MiB) whatever its input: an
# answer far larger than anything asked, which the judge must refuse unread or hold at a small multiple of
# its size, never convert whole into float64 evidence (follows the answers)
import torch


def _huge(self, x, *args, **kwargs):
    return torch.ones(@MIB@, 2**18)


MultiHeadAttention.forward = _huge
del _huge
