# Exercise 3.3 script: MultiHeadAttention defines out_proj in __init__, but forward returns before applying it
import torch
import torch.nn as nn


class MultiHeadAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        assert d_out % num_heads == 0, "d_out must be divisible by num_heads"
        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)  # combine head outputs
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))

    def forward(self, x):
        b, num_tokens, d_in = x.shape
        q = self.W_query(x).view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        k = self.W_key(x).view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        v = self.W_value(x).view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        scores = q @ k.transpose(2, 3)
        scores.masked_fill_(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)
        w = self.dropout(torch.softmax(scores / self.head_dim ** 0.5, dim=-1))
        ctx = (w @ v).transpose(1, 2).contiguous().view(b, num_tokens, self.d_out)
        return ctx  # TODO: projection


# GPT-2 small: 12 heads, 768 in and out, 1024 tokens
mha = MultiHeadAttention(768, 768, 1024, 0.0, num_heads=12)
print(sum(p.numel() for p in mha.parameters() if p.requires_grad))
