# attack: the judge derives each check's generator from the run's seed with a public formula; if the
# sandbox is seeded with that seed, a submission can recompute the hidden inputs before they arrive.
# CausalAttention records whether the first input of the mask checks is the one it predicted.
import hashlib

import torch


def _predicted(tokens, width):
    seed = torch.initial_seed()
    digest = hashlib.sha256(f"{seed}/mask/causal".encode()).digest()
    rng = torch.Generator().manual_seed(int.from_bytes(digest[:8], "big") & (2**63 - 1))
    return torch.randn(1, tokens, width, generator=rng)


print("SEED", torch.initial_seed())
_book_forward = CausalAttention.forward


def _forward(self, x):
    if x.shape[0] > 1 and torch.equal(x[:1], _predicted(x.shape[1], x.shape[2])):
        print("PREDICTED @MARK@", flush=True)
    return _book_forward(self, x)


CausalAttention.forward = _forward
