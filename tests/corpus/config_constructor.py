# device: MultiHeadAttention takes one config dict, as the book's chapter 4 builds it, not the chapter 3 arguments — correct
import torch
import torch.nn as nn


class CausalAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, qkv_bias=False):
        super().__init__()
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))

    def forward(self, x):
        num_tokens = x.shape[1]
        queries, keys, values = self.W_query(x), self.W_key(x), self.W_value(x)
        scores = queries @ keys.transpose(1, 2)
        scores = scores.masked_fill(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)
        weights = self.dropout(torch.softmax(scores / keys.shape[-1] ** 0.5, dim=-1))
        return weights @ values


class MultiHeadAttention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        d_in, d_out = cfg["emb_dim"], cfg["emb_dim"]
        self.num_heads = cfg["n_heads"]
        self.head_dim = d_out // self.num_heads
        self.W_query = nn.Linear(d_in, d_out, bias=cfg["qkv_bias"])
        self.W_key = nn.Linear(d_in, d_out, bias=cfg["qkv_bias"])
        self.W_value = nn.Linear(d_in, d_out, bias=cfg["qkv_bias"])
        self.out_proj = nn.Linear(d_out, d_out)
        self.dropout = nn.Dropout(cfg["drop_rate"])
        context_length = cfg["context_length"]
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))

    def forward(self, x):
        b, num_tokens, d_out = x.shape

        def heads(t):
            return t.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)

        queries, keys, values = heads(self.W_query(x)), heads(self.W_key(x)), heads(self.W_value(x))
        scores = queries @ keys.transpose(2, 3)
        scores = scores.masked_fill(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)
        weights = self.dropout(torch.softmax(scores / keys.shape[-1] ** 0.5, dim=-1))
        context = (weights @ values).transpose(1, 2).contiguous().view(b, num_tokens, d_out)
        return self.out_proj(context)


cfg = {"emb_dim": 8, "n_heads": 2, "context_length": 6, "drop_rate": 0.0, "qkv_bias": False}
mha = MultiHeadAttention(cfg)
