# attack: the reference MultiHeadAttentionWrapper with its heads in a plain list instead of an
# nn.ModuleList: .to(device) never reaches the heads' weights (follows the answers)
class MultiHeadAttentionWrapper(MultiHeadAttentionWrapper):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        heads = list(self.heads)
        del self.heads
        self.heads = heads
