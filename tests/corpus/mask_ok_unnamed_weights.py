# mask style: weights under names that say nothing of their role (a, b, c; p, r, s and mix), given out of order, so the grader finds each role by what it does — correct
import torch
import torch.nn as nn


class CausalAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, qkv_bias=False):
        super().__init__()
        self.a = nn.Linear(d_in, d_out, bias=qkv_bias)  # the values
        self.b = nn.Linear(d_in, d_out, bias=qkv_bias)  # the queries
        self.c = nn.Linear(d_in, d_out, bias=qkv_bias)  # the keys
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))

    def forward(self, x):
        n = x.shape[1]
        q, k, v = self.b(x), self.c(x), self.a(x)
        scores = (q @ k.transpose(1, 2)).masked_fill(self.mask.bool()[:n, :n], -torch.inf)
        weights = self.dropout(torch.softmax(scores / k.shape[-1]**0.5, dim=-1))
        return weights @ v


class MultiHeadAttentionWrapper(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        self.heads = nn.ModuleList(
            [CausalAttention(d_in, d_out, context_length, dropout, qkv_bias) for _ in range(num_heads)])

    def forward(self, x):
        return torch.cat([head(x) for head in self.heads], dim=-1)


class MultiHeadAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        assert d_out % num_heads == 0
        self.d_out, self.num_heads, self.head_dim = d_out, num_heads, d_out // num_heads
        self.p = nn.Parameter(torch.rand(d_in, d_out))  # the keys, used as x @ p
        self.r = nn.Parameter(torch.rand(d_in, d_out))  # the values
        self.s = nn.Parameter(torch.rand(d_in, d_out))  # the queries
        self.mix = nn.Linear(d_out, d_out)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))

    def forward(self, x):
        b, n, _ = x.shape
        q, k, v = (t.view(b, n, self.num_heads, self.head_dim).transpose(1, 2)
                   for t in (x @ self.s, x @ self.p, x @ self.r))
        scores = (q @ k.transpose(2, 3)).masked_fill(self.mask.bool()[:n, :n], -torch.inf)
        weights = self.dropout(torch.softmax(scores / self.head_dim**0.5, dim=-1))
        return self.mix((weights @ v).transpose(1, 2).contiguous().view(b, n, self.d_out))


def build_two_dim_wrapper(d_in, context_length, dropout=0.0):
    return MultiHeadAttentionWrapper(d_in, 1, context_length, dropout, num_heads=2)


def build_gpt2_small_attention(dropout=0.0):
    return MultiHeadAttention(768, 768, 1024, dropout, num_heads=12)
