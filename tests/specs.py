"""Specs that tests derive from examples/quick.yaml."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
QUICK = ROOT / "examples" / "quick.yaml"


def quick_base() -> dict[str, Any]:
    """examples/quick.yaml as a dict, narrowed for a test that sets its own matrix: the two
    database classes, whose cells the small matrix holds, and no extra cells."""
    spec = yaml.safe_load(QUICK.read_text())
    spec["classes"] = ["redo_log", "data_file"]
    spec["matrix"].pop("extra_cells", None)
    spec["inventory"] = str(ROOT / "inventories/sim/hosts.yml")
    return spec
