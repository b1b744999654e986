"""Reference implementations for the `gpt` exercises: the first part of "Let's build GPT".

A character tokenizer, the 90/10 split, get_batch and the bigram language model, written as in the
lecture (with the split's bug fixed) so the judge can compute what a submission should give.
"""
import torch
import torch.nn as nn
from torch.nn import functional as F

TRAIN_FRACTION = 0.9


class CharTokenizer:
    """The vocabulary is the sorted set of the text's characters; a character's id is its index there."""

    def __init__(self, text):
        self.chars = sorted(set(text))
        self.stoi = {ch: i for i, ch in enumerate(self.chars)}
        self.itos = {i: ch for i, ch in enumerate(self.chars)}

    @property
    def vocab_size(self):
        return len(self.chars)

    def encode(self, s):
        return [self.stoi[c] for c in s]

    def decode(self, ids):
        return "".join(self.itos[int(i)] for i in ids)


def encode_text(text):
    """The whole text as the lecture's `data`: a 1-D long tensor of ids. What CharTokenizer(text).encode(text)
    gives, found by code point in C (a character's id is its place among the text's sorted code points):
    one character at a time in Python, a text of tens of MB costs the judge seconds."""
    raw = bytearray(text.encode("utf-32-le", "surrogatepass"))
    codes = torch.frombuffer(raw, dtype=torch.int32).long() if raw else torch.zeros(0, dtype=torch.long)
    return torch.searchsorted(torch.tensor(sorted(map(ord, set(text))), dtype=torch.long), codes)


def split_point(length):
    return int(TRAIN_FRACTION * length)


def split(data):
    """(train_data, val_data): the first 90% and the rest, in order and disjoint."""
    n = split_point(len(data))
    return data[:n], data[n:]


def get_batch(data, batch_size, block_size, generator=None):
    """x: batch_size windows of block_size ids from random offsets; y: the same windows one id later."""
    ix = torch.randint(len(data) - block_size, (batch_size,), generator=generator)
    x = torch.stack([data[i:i + block_size] for i in ix])
    y = torch.stack([data[i + 1:i + block_size + 1] for i in ix])
    return x, y


class BigramLanguageModel(nn.Module):
    def __init__(self, vocab_size):
        super().__init__()
        # each token reads the logits of the next token straight from a lookup table
        self.token_embedding_table = nn.Embedding(vocab_size, vocab_size)

    def forward(self, idx, targets=None):
        logits = self.token_embedding_table(idx)  # (B, T, C)
        if targets is None:
            return logits, None
        B, T, C = logits.shape
        logits = logits.view(B * T, C)
        targets = targets.view(B * T)
        return logits, F.cross_entropy(logits, targets)

    def generate(self, idx, max_new_tokens, generator=None):
        for _ in range(max_new_tokens):
            logits, _ = self(idx)
            probs = F.softmax(logits[:, -1, :], dim=-1)  # (B, C): the last position only
            idx_next = torch.multinomial(probs, num_samples=1, generator=generator)  # (B, 1)
            idx = torch.cat((idx, idx_next), dim=1)  # (B, T + 1)
        return idx
