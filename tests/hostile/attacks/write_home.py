# attack: write a file into the user's home directory (a dotfile a shell or tool might read later)
import os

with open(os.path.join(os.path.expanduser("~"), ".hostile-@MARK@"), "w") as f:
    f.write("written by the submission\n")
