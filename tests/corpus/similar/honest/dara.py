# Dara's attention: one projection for q, k and v in the multi-head version (it is one matmul on the GPU).
import math

import torch
import torch.nn as nn


class SelfAttention_v1(nn.Module):
    """Given by the book (section 3.4.1); exercise 3.1 transfers weights into it.
    书中给出（3.4.1 节）；练习 3.1 会把权重转移到这里。
    """

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
    """Given by the book (section 3.4.2); exercise 3.1 transfers weights out of it.
    书中给出（3.4.2 节）；练习 3.1 会从这里转移权重。
    """

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
    """Section 3.5.3: self-attention that cannot see future tokens, with dropout on
    the attention weights; input shape (batch, num_tokens, d_in).
    """

    def __init__(self, d_in, d_out, context_length, dropout, qkv_bias=False):
        super().__init__()
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.attn_dropout = nn.Dropout(dropout)
        self.register_buffer("causal", torch.tril(torch.ones(context_length, context_length)).bool())

    def forward(self, x):
        tokens = x.shape[-2]
        q = self.W_query(x)
        k = self.W_key(x)
        v = self.W_value(x)
        att = q @ k.transpose(-1, -2) * (1.0 / math.sqrt(k.shape[-1]))
        att = att.masked_fill(~self.causal[:tokens, :tokens], float("-inf"))
        att = torch.softmax(att, dim=-1)
        return self.attn_dropout(att) @ v


class MultiHeadAttentionWrapper(nn.Module):
    """Section 3.6.1: num_heads CausalAttention modules in self.heads, outputs
    concatenated along the last dimension.
    """

    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        self.heads = nn.ModuleList()
        for _ in range(num_heads):
            self.heads.append(CausalAttention(d_in, d_out, context_length, dropout, qkv_bias))

    def forward(self, x):
        outs = []
        for head in self.heads:
            outs.append(head(x))
        return torch.cat(outs, dim=-1)


class MultiHeadAttention(nn.Module):
    """Section 3.6.2: one query/key/value projection of size d_out split into
    num_heads heads, causal mask, merged heads followed by out_proj.
    """

    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        assert d_out % num_heads == 0, "heads must divide d_out"
        self.num_heads, self.d_out = num_heads, d_out
        self.qkv = nn.Linear(d_in, 3 * d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)
        self.attn_dropout = nn.Dropout(dropout)
        self.register_buffer("causal", torch.tril(torch.ones(context_length, context_length)).bool())

    def forward(self, x):
        batch, tokens, _ = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q, k, v = (t.unflatten(-1, (self.num_heads, -1)).transpose(1, 2) for t in (q, k, v))
        att = q @ k.transpose(-1, -2) * (1.0 / math.sqrt(k.shape[-1]))
        att = att.masked_fill(~self.causal[:tokens, :tokens], float("-inf"))
        att = self.attn_dropout(torch.softmax(att, dim=-1))
        y = (att @ v).transpose(1, 2).flatten(2)
        return self.out_proj(y)


def transfer_weights(sa_v1, sa_v2):
    """Exercise 3.1 / 练习 3.1"""
    sa_v1.W_query.data = sa_v2.W_query.weight.data.t().clone()
    sa_v1.W_key.data = sa_v2.W_key.weight.data.t().clone()
    sa_v1.W_value.data = sa_v2.W_value.weight.data.t().clone()


def build_two_dim_wrapper(d_in, context_length, dropout=0.0):
    """Exercise 3.2 / 练习 3.2"""
    return MultiHeadAttentionWrapper(d_in, 1, context_length, dropout, num_heads=2)


def build_gpt2_small_attention(dropout=0.0):
    """Exercise 3.3 / 练习 3.3"""
    return MultiHeadAttention(768, 768, context_length=1024, dropout=dropout, num_heads=12)
