# attack: write next to the submission's own file, and append to that file itself.
# @DIR@ is where the student's file lies (filled in by the test: the sandbox runs a copy elsewhere).
with open("@DIR@/beside-@MARK@.txt", "w") as f:
    f.write("written by the submission\n")
with open("@DIR@/@NAME@", "a") as f:
    f.write("\n# appended by the submission\n")
