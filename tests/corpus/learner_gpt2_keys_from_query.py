# Exercise 3.3 script: GPT-2-sized MultiHeadAttention whose forward computes the keys and the values with
# W_query too (the query line copied three times): W_key and W_value exist and are counted, but unused
import torch
import torch.nn as nn


class MultiHeadAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))

    def split_heads(self, t, b, num_tokens):
        return t.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)

    def forward(self, x):
        b, num_tokens, d_in = x.shape
        queries = self.split_heads(self.W_query(x), b, num_tokens)
        keys = self.split_heads(self.W_query(x), b, num_tokens)
        values = self.split_heads(self.W_query(x), b, num_tokens)

        attn_scores = queries @ keys.transpose(2, 3)
        attn_scores.masked_fill_(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)
        attn_weights = self.dropout(torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1))

        context_vec = (attn_weights @ values).transpose(1, 2)
        context_vec = context_vec.reshape(b, num_tokens, self.d_out)
        return self.out_proj(context_vec)


def build_gpt2_small_attention(dropout=0.0):
    return MultiHeadAttention(768, 768, context_length=1024, dropout=dropout, num_heads=12)


mha = build_gpt2_small_attention()
print(sum(p.numel() for p in mha.parameters() if p.requires_grad))  # 2360064
