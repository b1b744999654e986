"""A submission handed in as a package (its __init__.py and modules beside the file graded): the file's cells run as
the package's module, so that its relative imports find the package's other modules."""
from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
from typing import Any


class _PackageFinder(importlib.abc.MetaPathFinder):
    """Finds the package the submission's folder is, under its name: the scratch folder holds the package's
    files (its __init__.py and modules), so its __path__ is the scratch folder."""

    def __init__(self, name: str, folder: str) -> None:
        self.name, self.folder = name, folder

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        if fullname != self.name:
            return None
        return importlib.util.spec_from_file_location(fullname, os.path.join(self.folder, "__init__.py"),
                                                      submodule_search_locations=[self.folder])


def run_as_package(namespace: dict[str, Any], name: str, folder: str) -> None:
    """Run the cells as the module `name.main` runs under `python -m name.main`: a file of a package handed in
    with its __init__.py and modules, whose `from .attention import CausalAttention` needs the package.
    The package (its __init__.py) is imported as Python imports it, at the first import that needs it."""
    sys.meta_path.insert(0, _PackageFinder(name, folder))
    namespace["__package__"] = name
