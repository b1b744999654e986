# attack: an exception whose message holds a lone surrogate, which no UTF-8 writer can encode: the batch
# worker wrote its answer with json.dumps(ensure_ascii=False) into a strict UTF-8 pipe, so it died, the
# student was recorded as the grader's fault and every rerun did the same (the Jupyter judge wrote the same
# way). The student's answers follow and must keep their points; the message is shown, escaped.
# %%
raise ValueError("bad token id \ud800 in the vocabulary")
# %%
