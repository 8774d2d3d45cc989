"""Load one of raidsweep's Ansible modules as Python, for tests of its pure parts."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import ansible.module_utils

from tests.support.paths import PLAYBOOKS


def load_module(path: Path) -> ModuleType:
    """The module at ``path``, importing its shared code as Ansible ships it
    (``ansible.module_utils.raidsweep``)."""
    module_utils = str(PLAYBOOKS / "module_utils")
    if module_utils not in ansible.module_utils.__path__:
        ansible.module_utils.__path__.append(module_utils)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
