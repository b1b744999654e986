# attack: the reference CausalAttention rebuilt by a factory whose mask lives in the forward's closure,
# out of reach of .to(device) (follows the answers)
def _with_closed_mask(reference):
    mask = torch.triu(torch.ones(64, 64), diagonal=1)

    class CausalAttention(reference):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            del self._buffers["mask"]

        def forward(self, x):
            n = x.shape[1]
            scores = self.W_query(x) @ self.W_key(x).transpose(1, 2)
            scores = scores.masked_fill(mask.bool()[:n, :n], -torch.inf)
            weights = torch.softmax(scores / self.W_key.weight.shape[0] ** 0.5, dim=-1)
            return self.dropout(weights) @ self.W_value(x)

    return CausalAttention


CausalAttention = _with_closed_mask(CausalAttention)
