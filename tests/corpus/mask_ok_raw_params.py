# mask style: raw nn.Parameter (d_in, d_out) matrices used as x @ W, as in SelfAttention_v1; MHA keeps nn.Linear out_proj — correct
import torch
import torch.nn as nn


class RawQKV(nn.Module):
    def __init__(self, d_in, d_out, qkv_bias):
        super().__init__()
        self.W_query = nn.Parameter(torch.rand(d_in, d_out))
        self.W_key = nn.Parameter(torch.rand(d_in, d_out))
        self.W_value = nn.Parameter(torch.rand(d_in, d_out))
        self.b_qkv = nn.Parameter(torch.zeros(3, d_out)) if qkv_bias else None

    def qkv(self, x):
        q, k, v = x @ self.W_query, x @ self.W_key, x @ self.W_value
        if self.b_qkv is not None:
            q, k, v = q + self.b_qkv[0], k + self.b_qkv[1], v + self.b_qkv[2]
        return q, k, v


class CausalAttention(RawQKV):
    def __init__(self, d_in, d_out, context_length, dropout, qkv_bias=False):
        super().__init__(d_in, d_out, qkv_bias)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))

    def forward(self, x):
        n = x.shape[1]
        q, k, v = self.qkv(x)
        scores = (q @ k.transpose(1, 2)).masked_fill(self.mask.bool()[:n, :n], -torch.inf)
        weights = self.dropout(torch.softmax(scores / k.shape[-1]**0.5, dim=-1))
        return weights @ v


class MultiHeadAttention(RawQKV):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__(d_in, d_out, qkv_bias)
        assert d_out % num_heads == 0
        self.d_out, self.num_heads, self.head_dim = d_out, num_heads, d_out // num_heads
        self.out_proj = nn.Linear(d_out, d_out)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))

    def forward(self, x):
        b, n, _ = x.shape
        q, k, v = (t.view(b, n, self.num_heads, self.head_dim).transpose(1, 2) for t in self.qkv(x))
        scores = (q @ k.transpose(2, 3)).masked_fill(self.mask.bool()[:n, :n], -torch.inf)
        weights = self.dropout(torch.softmax(scores / self.head_dim**0.5, dim=-1))
        return self.out_proj((weights @ v).transpose(1, 2).contiguous().view(b, n, self.d_out))
