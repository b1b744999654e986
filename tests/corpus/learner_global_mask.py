# Chapter 3 notebook export: CausalAttention keeps a plain score_mask it never uses; forward reads the global `mask`
import torch
import torch.nn as nn

torch.manual_seed(789)
context_length = 6
max_len = 32  # big enough for any batch we try
mask = torch.triu(torch.ones(max_len, max_len), diagonal=1)  # 上三角掩码 (from section 3.5.1)


class CausalAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, qkv_bias=False):
        super().__init__()
        self.d_out = d_out
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.dropout = nn.Dropout(dropout)
        self.score_mask = torch.triu(torch.ones(context_length, context_length), diagonal=1)

    def forward(self, x):
        b, num_tokens, d_in = x.shape
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)
        attn_scores = queries @ keys.transpose(1, 2)
        attn_scores = attn_scores.masked_fill(mask.bool()[:num_tokens, :num_tokens], -torch.inf)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)
        return self.dropout(attn_weights) @ values


batch = torch.rand(2, context_length, 3)
ca = CausalAttention(3, 2, context_length, 0.0)
print(ca(batch).shape)
