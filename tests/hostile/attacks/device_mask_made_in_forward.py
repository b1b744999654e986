# attack: the reference CausalAttention making its mask in every forward without device=: on a GPU the
# mask is on the CPU while the scores are not (follows the answers)
class CausalAttention(CausalAttention):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.context_length = self._buffers.pop("mask").shape[0]

    mask = property(lambda self: torch.triu(torch.ones(self.context_length, self.context_length), diagonal=1))
