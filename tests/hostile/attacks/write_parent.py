# attack: write into the folder above the submission's (filled in by the test as @DIR@/..)
with open("@DIR@/../parent-@MARK@.txt", "w") as f:
    f.write("written by the submission\n")
