# attack: a "zero-work" submission. Every class the chapter asks for ignores its input and returns zeros
# of the right shape; its weights are named so that no role can be read from them (a, b, c ...), yet
# shaped and counted like the book's (the wrapper keeps two heads in a ModuleList, MultiHeadAttention has
# 2,360,064 trainable parameters at GPT-2 size); the template functions build these classes. Graded
# alone it must score 0.
import torch
from torch import nn


class _Nothing(nn.Module):
    def __init__(self, d_in, d_out, out_proj=False):
        super().__init__()
        self.d_out = d_out
        self.a = nn.Parameter(torch.rand(d_in, d_out))
        self.b = nn.Parameter(torch.rand(d_in, d_out))
        self.c = nn.Parameter(torch.rand(d_in, d_out))
        if out_proj:
            self.d = nn.Parameter(torch.rand(d_out, d_out))
            self.e = nn.Parameter(torch.zeros(d_out))

    def forward(self, x):
        return torch.zeros(*x.shape[:-1], self.d_out)


class SelfAttention_v1(_Nothing):
    pass


class SelfAttention_v2(_Nothing):
    def __init__(self, d_in, d_out, qkv_bias=False):
        super().__init__(d_in, d_out)


class CausalAttention(_Nothing):
    def __init__(self, d_in, d_out, context_length, dropout, qkv_bias=False):
        super().__init__(d_in, d_out)


class MultiHeadAttentionWrapper(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        self.heads = nn.ModuleList([_Nothing(d_in, d_out) for _ in range(num_heads)])
        self.d_out = d_out * num_heads

    def forward(self, x):
        return torch.zeros(*x.shape[:-1], self.d_out)


class MultiHeadAttention(_Nothing):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__(d_in, d_out, out_proj=True)


def transfer_weights(sa_v1, sa_v2):
    pass


def build_two_dim_wrapper(d_in, context_length, dropout=0.0):
    return MultiHeadAttentionWrapper(d_in, 1, context_length, dropout, num_heads=2)


def build_gpt2_small_attention(dropout=0.0):
    return MultiHeadAttention(768, 768, 1024, dropout, num_heads=12)
