"""Reference answers for the self-attention part of "Let's build GPT" (the `gpt` set: trick, head, layernorm).

Written as the lecture writes them, so that this file is itself a full-marks submission: the three
aggregation versions as functions of x, a causal `Head(head_size)` that reads the lecture's globals,
and the plain-class `LayerNorm1d`. The judge computes expected values with `prefix_mean`, `Head` and
`LayerNorm1d`; the exercises hold the models of the usual mistakes.
"""
import torch
import torch.nn as nn
from torch.nn import functional as F

# The lecture's hyperparameters at the point where it writes Head (its later, larger run uses
# n_embd = 384, block_size = 256, dropout = 0.2); Head reads them as defaults, as the lecture reads globals.
n_embd = 32
block_size = 8
dropout = 0.0


def prefix_mean(x):
    """x[b, t] -> the mean of x[b, :t+1] (every position averages itself and the earlier ones), by cumsum:
    a formula of its own, so it checks the lecture's three versions rather than repeating one of them."""
    T = x.shape[-2]
    counts = torch.arange(1, T + 1, dtype=x.dtype, device=x.device).unsqueeze(-1)
    return x.cumsum(dim=-2) / counts


def xbow(x):
    """Version 1: two loops and torch.mean over the prefix."""
    B, T, C = x.shape
    out = torch.zeros((B, T, C), dtype=x.dtype)
    for b in range(B):
        for t in range(T):
            xprev = x[b, :t + 1]  # (t+1, C)
            out[b, t] = torch.mean(xprev, 0)
    return out


def xbow2(x):
    """Version 2: a lower-triangular matrix whose rows sum to 1, applied by matrix multiplication."""
    T = x.shape[1]
    wei = torch.tril(torch.ones(T, T))
    wei = wei / wei.sum(1, keepdim=True)
    return wei @ x  # (T, T) @ (B, T, C) -> (B, T, C)


def xbow3(x):
    """Version 3: future positions set to -inf, then softmax over each row."""
    T = x.shape[1]
    tril = torch.tril(torch.ones(T, T))
    wei = torch.zeros((T, T))
    wei = wei.masked_fill(tril == 0, float('-inf'))
    wei = F.softmax(wei, dim=-1)
    return wei @ x


class Head(nn.Module):
    """One head of causal self-attention, scaled by head_size**-0.5."""

    def __init__(self, head_size, n_embd=n_embd, block_size=block_size, dropout=dropout):
        super().__init__()
        self.key = nn.Linear(n_embd, head_size, bias=False)
        self.query = nn.Linear(n_embd, head_size, bias=False)
        self.value = nn.Linear(n_embd, head_size, bias=False)
        self.register_buffer('tril', torch.tril(torch.ones(block_size, block_size)))
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        B, T, C = x.shape
        k = self.key(x)    # (B, T, head_size)
        q = self.query(x)  # (B, T, head_size)
        wei = q @ k.transpose(-2, -1) * k.shape[-1]**-0.5  # (B, T, T)
        wei = wei.masked_fill(self.tril[:T, :T] == 0, float('-inf'))
        wei = F.softmax(wei, dim=-1)
        wei = self.dropout(wei)
        v = self.value(x)  # (B, T, head_size)
        return wei @ v     # (B, T, head_size)


class LayerNorm1d:
    """The lecture's layer norm: each row (dim 1) normalised, then scaled by gamma and shifted by beta.

    Like the lecture it uses x.var(1), the unbiased variance; nn.LayerNorm uses the biased one, and the
    grader accepts either.
    """

    def __init__(self, dim, eps=1e-5):
        self.eps = eps
        self.gamma = torch.ones(dim)
        self.beta = torch.zeros(dim)

    def __call__(self, x):
        xmean = x.mean(1, keepdim=True)
        xvar = x.var(1, keepdim=True)
        xhat = (x - xmean) / torch.sqrt(xvar + self.eps)
        self.out = self.gamma * xhat + self.beta
        return self.out

    def parameters(self):
        return [self.gamma, self.beta]
