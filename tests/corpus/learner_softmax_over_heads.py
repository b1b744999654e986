# Exercise 3.3 script: MultiHeadAttention whose softmax runs over dim=1 of the (b, heads, tokens, tokens) scores
import torch
import torch.nn as nn


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
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))

    def forward(self, x):
        b, num_tokens, _ = x.shape
        # (b, T, d_out) -> (b, heads, T, head_dim)
        q = self.W_query(x).view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        k = self.W_key(x).view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        v = self.W_value(x).view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        att = q @ k.transpose(2, 3)
        att.masked_fill_(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)
        att = torch.softmax(att / k.shape[-1] ** 0.5, dim=1)  # 归一化
        att = self.dropout(att)
        out = (att @ v).transpose(1, 2).contiguous().view(b, num_tokens, self.d_out)
        return self.out_proj(out)


gpt2_mha = MultiHeadAttention(768, 768, 1024, 0.0, num_heads=12)
print(sum(p.numel() for p in gpt2_mha.parameters()))
