"""Chen Wei — homework 3 (attention). I like einsum, so every product below is one."""
import math

import torch
import torch.nn as nn


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
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.dropout = nn.Dropout(dropout)
        blocked = torch.ones(context_length, context_length, dtype=torch.bool).triu(1)
        self.register_buffer("mask", blocked)

    def forward(self, x):
        t = x.shape[1]
        q, k, v = self.W_query(x), self.W_key(x), self.W_value(x)
        s = torch.einsum("bqd,bkd->bqk", q, k) / math.sqrt(q.shape[-1])
        s = s.masked_fill(self.mask[:t, :t], float("-inf"))
        p = self.dropout(s.softmax(dim=-1))
        return torch.einsum("bqk,bkd->bqd", p, v)


class MultiHeadAttentionWrapper(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        self.heads = nn.ModuleList(CausalAttention(d_in, d_out, context_length, dropout, qkv_bias)
                                   for _ in range(num_heads))

    def forward(self, x):
        return torch.concat([head(x) for head in self.heads], dim=-1)


class MultiHeadAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        assert d_out % num_heads == 0
        self.h = num_heads
        self.dk = d_out // num_heads
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("mask", torch.ones(context_length, context_length, dtype=torch.bool).triu(1))

    def forward(self, x):
        b, t, _ = x.shape
        q = self.W_query(x).view(b, t, self.h, self.dk)
        k = self.W_key(x).view(b, t, self.h, self.dk)
        v = self.W_value(x).view(b, t, self.h, self.dk)
        s = torch.einsum("bqhd,bkhd->bhqk", q, k) / math.sqrt(self.dk)
        s = s.masked_fill(self.mask[:t, :t], float("-inf"))
        p = self.dropout(s.softmax(dim=-1))
        ctx = torch.einsum("bhqk,bkhd->bqhd", p, v).reshape(b, t, self.h * self.dk)
        return self.out_proj(ctx)


def transfer_weights(sa_v1, sa_v2):
    with torch.no_grad():
        sa_v1.W_query.copy_(sa_v2.W_query.weight.t())
        sa_v1.W_key.copy_(sa_v2.W_key.weight.t())
        sa_v1.W_value.copy_(sa_v2.W_value.weight.t())


def build_two_dim_wrapper(d_in, context_length, dropout=0.0):
    wrapper = MultiHeadAttentionWrapper(d_in, d_out=1, context_length=context_length, dropout=dropout,
                                        num_heads=2)
    return wrapper


def build_gpt2_small_attention(dropout=0.0):
    emb, heads, ctx = 768, 12, 1024
    return MultiHeadAttention(emb, emb, ctx, dropout, heads)
