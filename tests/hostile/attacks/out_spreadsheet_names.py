# attack: a hand-in not started yet, as a learner leaves it, handed in under file names a spreadsheet
# splits and runs: a formula after a `;` (Europe's list separator), after a tab, after a `,` and a space,
# and after a quote; the test names the files
# %%
import torch

inputs = torch.tensor([[0.43, 0.15, 0.89], [0.55, 0.87, 0.66]])  # TODO: attention, next week
