"""The repository's folders and files that the tests read, defined once."""

from __future__ import annotations

import sys
from pathlib import Path

#: the repository's root
ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
EXAMPLES = ROOT / "examples"
QUICK = EXAMPLES / "quick.yaml"
PLAYBOOKS = ROOT / "playbooks"
ROLES = PLAYBOOKS / "roles"
INVENTORIES = ROOT / "inventories"
SIM_INVENTORY = INVENTORIES / "sim" / "hosts.yml"
LOCAL_INVENTORY = INVENTORIES / "local" / "hosts.yml"
APP = ROOT / "app.py"
#: recorded inputs (fio output, bad specs, linux_md facts)
FIXTURES = TESTS / "fixtures"
FIO_FIXTURES = FIXTURES / "fio"
#: the virtual environment's scripts, and the installed command
BIN = Path(sys.executable).parent
RAIDSWEEP = BIN / "raidsweep"
