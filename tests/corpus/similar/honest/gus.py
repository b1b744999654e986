# gus - hw3. Loops where I wanted to see each step; the multi-head one goes over the heads itself.
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
        # 0 on and below the diagonal, -inf above: added to the scores it hides the future
        future = torch.full((context_length, context_length), float("-inf"))
        self.register_buffer("mask", torch.triu(future, diagonal=1))

    def forward(self, x):
        seq = x.shape[1]
        queries = self.W_query(x)
        keys = self.W_key(x)
        values = self.W_value(x)
        scale = keys.shape[-1] ** -0.5
        scores = (queries @ keys.transpose(1, 2)) * scale + self.mask[:seq, :seq]
        weights = self.dropout(torch.softmax(scores, dim=-1))
        return weights @ values


class MultiHeadAttentionWrapper(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        self.heads = nn.ModuleList()
        i = 0
        while i < num_heads:
            self.heads.append(CausalAttention(d_in, d_out, context_length, dropout, qkv_bias))
            i += 1

    def forward(self, x):
        result = self.heads[0](x)
        for head in self.heads[1:]:
            result = torch.cat((result, head(x)), dim=-1)
        return result


class MultiHeadAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        assert d_out % num_heads == 0
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)
        self.dropout = nn.Dropout(dropout)
        future = torch.full((context_length, context_length), float("-inf"))
        self.register_buffer("mask", torch.triu(future, diagonal=1))

    def forward(self, x):
        seq = x.shape[1]
        queries = self.W_query(x)
        keys = self.W_key(x)
        values = self.W_value(x)
        pieces = []
        for h in range(self.num_heads):
            cols = slice(h * self.head_dim, (h + 1) * self.head_dim)
            q, k, v = queries[..., cols], keys[..., cols], values[..., cols]
            scores = (q @ k.transpose(1, 2)) / self.head_dim ** 0.5 + self.mask[:seq, :seq]
            pieces.append(self.dropout(torch.softmax(scores, dim=-1)) @ v)
        return self.out_proj(torch.cat(pieces, dim=-1))


def transfer_weights(sa_v1, sa_v2):
    sa_v1.W_query = nn.Parameter(sa_v2.W_query.weight.transpose(0, 1))
    sa_v1.W_key = nn.Parameter(sa_v2.W_key.weight.transpose(0, 1))
    sa_v1.W_value = nn.Parameter(sa_v2.W_value.weight.transpose(0, 1))


def build_two_dim_wrapper(d_in, context_length, dropout=0.0):
    d_out = 1  # 2 heads x 1 = 2 dims
    return MultiHeadAttentionWrapper(d_in, d_out, context_length, dropout, num_heads=2)


def build_gpt2_small_attention(dropout=0.0):
    d_model = 768
    return MultiHeadAttention(d_model, d_model, 1024, dropout, num_heads=12)
