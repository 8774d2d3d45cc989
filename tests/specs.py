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


def class_measuring(folder: Path, matrix: dict[str, Any], name: str = "measured") -> str:
    """A class file in ``folder`` that scores every cell of ``matrix`` alike, for a test
    that measures cells no shipped class scores (a class none of whose cells the matrix
    measures is refused)."""
    from sweeper.spec import Matrix

    axes = {k: v for k, v in matrix.items() if k in ("patterns", "block_sizes", "concurrency")}
    cells = [c.key for c in Matrix.model_validate(axes).cells()]
    path = folder / f"{name}.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "name": name,
                "description": "every cell the test's matrix measures, weighted alike",
                "metric": "iops",
                "cells": [{"cell": c, "weight": 1} for c in cells],
            }
        )
    )
    return str(path)
