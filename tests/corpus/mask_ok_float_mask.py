# mask style: additive float buffer (0 on and below the diagonal, -inf above) added to the scores — correct
import torch
import torch.nn as nn


def additive_mask(n):
    return torch.triu(torch.full((n, n), float("-inf")), diagonal=1)


class CausalAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, qkv_bias=False):
        super().__init__()
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("attn_mask", additive_mask(context_length))

    def forward(self, x):
        b, num_tokens, d_in = x.shape
        keys, queries, values = self.W_key(x), self.W_query(x), self.W_value(x)
        attn_scores = queries @ keys.transpose(1, 2) + self.attn_mask[:num_tokens, :num_tokens]
        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        return self.dropout(attn_weights) @ values


class MultiHeadAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        assert d_out % num_heads == 0
        self.d_out, self.num_heads, self.head_dim = d_out, num_heads, d_out // num_heads
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("attn_mask", additive_mask(context_length))

    def forward(self, x):
        b, num_tokens, d_in = x.shape
        shape = (b, num_tokens, self.num_heads, self.head_dim)
        keys = self.W_key(x).view(shape).transpose(1, 2)
        queries = self.W_query(x).view(shape).transpose(1, 2)
        values = self.W_value(x).view(shape).transpose(1, 2)
        attn_scores = queries @ keys.transpose(2, 3) + self.attn_mask[:num_tokens, :num_tokens]
        attn_weights = self.dropout(torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1))
        context_vec = (attn_weights @ values).transpose(1, 2)
        return self.out_proj(context_vec.contiguous().view(b, num_tokens, self.d_out))
