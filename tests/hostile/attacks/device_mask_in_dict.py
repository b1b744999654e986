# attack: the reference CausalAttention with its mask kept in a dict attribute, which .to(device) leaves
# on the CPU (follows the answers)
class CausalAttention(CausalAttention):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.cache = {"mask": self._buffers.pop("mask")}

    mask = property(lambda self: self.cache["mask"])
