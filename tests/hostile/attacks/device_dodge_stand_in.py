# attack: a mask kept in a list, and a forward that first calls .tolist(), which a tensor subclass
# refuses: a device check that moves the module to a stand-in device cannot run it, and must not take
# that as a pass (follows the answers)
class CausalAttention(CausalAttention):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.masks = [self._buffers.pop("mask")]

    mask = property(lambda self: self.masks[0])

    def forward(self, x):
        x.tolist()
        return super().forward(x)
