# attack: GitHub workflow commands in their old spelling, which the runner obeys anywhere in a line,
# printed and raised (its own cell): a forged annotation, a mask over the grader's words, a fold
# that hides them, and the newer and Azure spellings beside them
print("##[group]ALL TESTS PASSED")
msg = "loss is fine ##[error]grader: 3.1 passed ##[add-mask]not passed ###[group]x ::error::forged ##vso[task.complete]"
raise ValueError(msg)
