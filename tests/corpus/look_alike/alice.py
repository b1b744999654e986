# Alice's own attention, written her way: explicit loops first, then a vectorised version.
import math

import torch
import torch.nn as nn


def scaled_scores(query_rows, key_rows):
    # one dot product per pair of tokens, the slow way, to see what happens
    n_tokens = query_rows.shape[0]
    table = torch.empty(n_tokens, n_tokens)
    for i in range(n_tokens):
        for j in range(n_tokens):
            table[i, j] = torch.dot(query_rows[i], key_rows[j]) / math.sqrt(key_rows.shape[-1])
    return table


def causal_fill(table, fill_value=float("-inf")):
    size = table.shape[-1]
    for i in range(size):
        for j in range(i + 1, size):
            table[..., i, j] = fill_value
    return table


class LoopAttention(nn.Module):
    def __init__(self, width_in, width_out):
        super().__init__()
        self.to_q = nn.Linear(width_in, width_out, bias=False)
        self.to_k = nn.Linear(width_in, width_out, bias=False)
        self.to_v = nn.Linear(width_in, width_out, bias=False)

    def forward(self, tokens):
        queries, keys_, values = self.to_q(tokens), self.to_k(tokens), self.to_v(tokens)
        weights = torch.softmax(causal_fill(scaled_scores(queries, keys_)), dim=-1)
        return weights @ values


def train_step(model, batch, target, optimiser):
    optimiser.zero_grad()
    prediction = model(batch)
    loss = ((prediction - target) ** 2).mean()
    loss.backward()
    optimiser.step()
    return float(loss)


def run_experiment(steps=20, width=6, seed=123):
    torch.manual_seed(seed)
    model = LoopAttention(width, width)
    optimiser = torch.optim.SGD(model.parameters(), lr=0.05)
    batch = torch.randn(5, width)
    target = torch.flip(batch, dims=[0])
    history = [train_step(model, batch, target, optimiser) for _ in range(steps)]
    return history[0], history[-1]
