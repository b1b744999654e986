# Fatima — ch3. The attention maths lives in two small functions, the modules only hold the weights.
import torch
import torch.nn as nn
import torch.nn.functional as F


def causal_mask(n, device=None):
    """True where a position would look ahead."""
    return torch.triu(torch.ones(n, n, dtype=torch.bool, device=device), diagonal=1)


def attend(q, k, v, dropout_layer):
    n = q.shape[-2]
    scores = q @ k.transpose(-2, -1) / k.shape[-1] ** 0.5
    scores = scores.masked_fill(causal_mask(n, q.device), float("-inf"))
    weights = dropout_layer(F.softmax(scores, dim=-1))
    return weights @ v


class SelfAttention_v1(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.W_query = nn.Parameter(torch.rand(d_in, d_out))
        self.W_key = nn.Parameter(torch.rand(d_in, d_out))
        self.W_value = nn.Parameter(torch.rand(d_in, d_out))

    def forward(self, x):
        keys = x @ self.W_key
        queries = x @ self.W_query
        values = x @ self.W_value
        attn_scores = queries @ keys.T
        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        context_vec = attn_weights @ values
        return context_vec


class SelfAttention_v2(nn.Module):
    def __init__(self, d_in, d_out, qkv_bias=False):
        super().__init__()
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)

    def forward(self, x):
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)
        attn_scores = queries @ keys.T
        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        context_vec = attn_weights @ values
        return context_vec


class CausalAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, qkv_bias=False):
        super().__init__()
        self.context_length = context_length
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return attend(self.W_query(x), self.W_key(x), self.W_value(x), self.dropout)


class MultiHeadAttentionWrapper(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        self.heads = nn.ModuleList([CausalAttention(d_in, d_out, context_length, dropout, qkv_bias)
                                    for i in range(num_heads)])

    def forward(self, x):
        return torch.cat([h(x) for h in self.heads], dim=-1)


class MultiHeadAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        assert d_out % num_heads == 0
        self.context_length = context_length
        self.num_heads = num_heads
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)
        self.dropout = nn.Dropout(dropout)

    def _heads(self, t):
        b, n, d = t.shape
        return t.reshape(b, n, self.num_heads, d // self.num_heads).transpose(1, 2)

    def forward(self, x):
        b, n, _ = x.shape
        out = attend(self._heads(self.W_query(x)), self._heads(self.W_key(x)), self._heads(self.W_value(x)),
                     self.dropout)
        return self.out_proj(out.transpose(1, 2).reshape(b, n, -1))


def transfer_weights(sa_v1, sa_v2):
    pairs = [(sa_v1.W_query, sa_v2.W_query), (sa_v1.W_key, sa_v2.W_key), (sa_v1.W_value, sa_v2.W_value)]
    with torch.no_grad():
        for raw, linear in pairs:
            raw.copy_(linear.weight.T)


def build_two_dim_wrapper(d_in, context_length, dropout=0.0):
    # each head gives d_out columns and there are 2 heads, so d_out = 1 gives 2 columns
    return MultiHeadAttentionWrapper(d_in, 1, context_length, dropout, 2)


def build_gpt2_small_attention(dropout=0.0):
    return MultiHeadAttention(d_in=768, d_out=768, context_length=1024, dropout=dropout, num_heads=12)
