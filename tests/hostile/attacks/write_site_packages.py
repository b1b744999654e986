# attack: drop a .pth file into site-packages: every later Python start would read it.
# Its one line is a comment, so if it does land it changes nothing (the test removes it).
import site
import sysconfig

_dirs = [*site.getsitepackages(), sysconfig.get_paths()["purelib"]]
with open(f"{_dirs[0]}/hostile-@MARK@.pth", "w") as f:
    f.write("# written by the submission\n")
