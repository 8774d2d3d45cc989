"""Specs that tests derive from examples/quick.yaml, and the problems a refused spec names."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from tests.support.paths import LOCAL_INVENTORY, QUICK, SIM_INVENTORY


def quick_spec(**change: object) -> dict[str, Any]:
    """examples/quick.yaml as a dict, its inventory the simulated array's (named whole, so
    the spec can be written anywhere), with the top-level keys of ``change`` replaced."""
    spec = yaml.safe_load(QUICK.read_text())
    spec["inventory"] = str(SIM_INVENTORY)
    return spec | change


#: the redo_log class's O_DSYNC log writes, which no pattern of the small matrix makes
REDO_SYNC_CELLS = ["write/4k/qd1x1/dsync", "write/64k/qd1x1/dsync"]


def quick_base() -> dict[str, Any]:
    """examples/quick.yaml as a dict, narrowed for a test that sets its own matrix: the two
    database classes, whose cells the small matrix holds, and as extra cells only redo_log's
    sync cells."""
    spec = quick_spec()
    spec["classes"] = ["redo_log", "data_file"]
    spec["matrix"]["extra_cells"] = list(REDO_SYNC_CELLS)
    return spec


def tiny_sim_spec(folder: Path, name: str, *, extra_cells: bool = True) -> Path:
    """A sweep of 2 configurations (RAID 5 and 10 on a single rank) × randread and randwrite
    8k at 1x16 × 2 repetitions on the simulated array, its class measuring just those cells
    (``extra_cells``: with redo_log's sync cells too), written to ``folder/<name>.yaml``."""
    spec = quick_base() | {"name": name, "inventory": str(SIM_INVENTORY)}
    spec["config_space"] = {"raid_level": ["raid5", "raid10"], "layout": ["single_rank"]}
    spec["matrix"] |= {
        "patterns": ["randread", "randwrite"],
        "block_sizes": ["8k"],
        "concurrency": ["1x16"],
        "repetitions": 2,
    }
    if not extra_cells:
        spec["matrix"].pop("extra_cells", None)
    spec["classes"] = [class_measuring(folder, spec["matrix"])]
    return write_spec(folder, spec, name)


def write_spec(folder: Path, spec: dict[str, Any], name: str) -> Path:
    """``spec`` as YAML in ``folder/<name>.yaml``; its path."""
    path = folder / f"{name}.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


def failing_play_spec(folder: Path, name: str) -> Path:
    """A ``local`` sweep ``name`` of one configuration (RAID 10 on a single rank, a 16 MiB
    file) whose play fails: its storage host's module interpreter is not there
    (``/nonexistent/python3``), so every module of the play fails. Its inventory is
    ``folder/hosts.yml``; the spec is written to ``folder/spec.yaml``."""
    inventory = folder / "hosts.yml"
    host = {"ansible_connection": "local", "ansible_python_interpreter": "/nonexistent/python3"}
    inventory.write_text(
        yaml.safe_dump({"all": {"children": {"storage": {"hosts": {"here": host}}}}})
    )
    spec = quick_base() | {
        "name": name,
        "platform": "local",
        "inventory": str(inventory),
        "platform_options": {"target": str(folder / "t.img"), "file_size": "16m"},
    }
    spec["config_space"] = {"raid_level": ["raid10"], "layout": ["single_rank"]}
    spec["matrix"] |= {"working_set": "16m", "runtime": "1s", "ramp": "0s"}
    return write_spec(folder, spec, "spec")


def problems_of(path: Path) -> list[str]:
    """The problems ``load_spec`` names for the spec at ``path`` (it must refuse it)."""
    import pytest

    from sweeper.errors import SpecError
    from sweeper.spec import load_spec

    with pytest.raises(SpecError) as info:
        load_spec(path)
    return info.value.problems


def six_configurations(folder: Path, name: str, block_sizes: list[str], **study: Any) -> Path:
    """A sim sweep ``name`` of six configurations (RAID 5, 6, 10 × single rank, host
    striping), two patterns × ``block_sizes`` × two concurrencies, two repetitions, that takes
    some seconds; ``study`` is laid over the example's study. Written to ``folder``."""
    spec = quick_base() | {"name": name}
    spec["config_space"] = {
        "raid_level": ["raid5", "raid6", "raid10"],
        "layout": ["single_rank", "host_stripe"],
        "ranks": [4],
        "stripe_kib": [64],
    }
    spec["matrix"] |= {
        "patterns": ["randread", "write"],
        "block_sizes": block_sizes,
        "concurrency": ["1x1", "1x16"],
        "repetitions": 2,
    }
    # those cells alone: redo_log's plain 4k write stands in for its O_DSYNC one
    spec["matrix"].pop("extra_cells", None)
    spec["study"] = spec.get("study", {}) | study
    return write_spec(folder, spec, name)


def quick_fio_matrix(*patterns: str, **more: Any) -> dict[str, Any]:
    """A matrix real fio runs in seconds on a small test disk: 4k, one job, 2 s a run, once,
    over 32 MiB."""
    return {
        "patterns": list(patterns),
        "block_sizes": ["4k"],
        "concurrency": ["1x1"],
        "engine": "libaio",
        "runtime": "2s",
        "ramp": "0s",
        "repetitions": 1,
        "working_set": "32m",
    } | more


def local_spec(
    folder: Path,
    name: str,
    options: dict[str, Any],
    matrix: dict[str, Any],
    classes: list[str] | None = None,
) -> Path:
    """A ``local`` sweep ``name`` of one configuration on this host (platform ``options``),
    measuring ``matrix``; scored by ``classes``, else by a class that weighs every cell of the
    matrix alike. Written to ``folder/<name>.yaml``."""
    spec: dict[str, Any] = {
        "name": name,
        "platform": "local",
        "inventory": str(LOCAL_INVENTORY),
        "platform_options": options,
        "config_space": {"raid_level": ["raid0"]},
        "matrix": matrix,
    }
    spec["classes"] = classes or [class_measuring(folder, matrix, name=f"{name}-class")]
    return write_spec(folder, spec, name)


def one_cell_sim(name: str, levels: list[str], repetitions: int = 1) -> dict[str, Any]:
    """A sweep ``name`` on the simulated array: single ranks of the RAID ``levels``, one cell
    (8k random reads, 16 jobs), ``repetitions`` each."""
    spec = quick_base() | {"name": name}
    spec["config_space"] = {"raid_level": levels, "layout": ["single_rank"]}
    spec["matrix"] |= {
        "patterns": ["randread"],
        "block_sizes": ["8k"],
        "concurrency": ["1x16"],
        "repetitions": repetitions,
    }
    spec["matrix"].pop("extra_cells", None)  # that cell alone: the test names its classes
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


def described_sweep(folder: Path, text: str, class_name: str = "measured", repetitions: int = 1):
    """A finished sweep 'hostile' on the simulated array (two configurations, one cell)
    whose description and whose class's description are ``text``; its store."""
    import json

    from sweeper.spec import load_spec
    from sweeper.store import ParquetStore
    from sweeper.sweep import run_sweep

    spec = one_cell_sim("hostile", ["raid5", "raid10"], repetitions) | {"description": text}
    cls = Path(class_measuring(folder, spec["matrix"], name=class_name))
    cls.write_text(json.dumps(yaml.safe_load(cls.read_text()) | {"description": text}))
    spec["classes"] = [str(cls)]
    path = folder / "hostile.yaml"
    path.write_text(json.dumps(spec))
    loaded, inventory = load_spec(path)
    store = ParquetStore(folder / "store")
    assert run_sweep(loaded, inventory, store, spec_path=path).complete
    return store


def vsan_spec(tmp_path: Path, inventory: Path, **options: Any) -> Path:
    """A vsan sweep on ``inventory`` (vcsim), its load from the simulated array's model:
    six configurations with and without snapshots, two cells."""
    spec = {
        "name": "vsan-test",
        "platform": "vsan",
        "inventory": str(inventory),
        "platform_options": {"load": "sim"} | options,
        "config_space": {
            "raid_level": ["raid1", "raid5", "raid6"],
            "layout": ["single_rank", "pool_stripe"],
            "ranks": [4],
            "stripe_kib": [1024],
            "cache_policy": ["wb-ra"],
            "snapshots": [False, True],
        },
        "matrix": {
            "patterns": ["randread", "randwrite"],
            "block_sizes": ["4k"],
            "concurrency": ["1x16"],
            "engine": "libaio",
            "runtime": "30s",
            "ramp": "0s",
            "repetitions": 1,
            "working_set": "100g",
        },
        "classes": ["vm_mix"],
    }
    path = tmp_path / "vsan-test.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


def self_stopping_spec() -> dict[str, Any]:
    """A sim sweep in optimize mode that stops by evidence (within 5%) before it has measured
    its 24 configurations: four patterns × four block sizes, twice, and no pruning, so that
    every configuration measured is evidence on all cells."""
    spec = quick_base()
    spec["matrix"] |= {
        "patterns": ["write", "randread", "randwrite", "randrw70"],
        "block_sizes": ["4k", "8k", "16k", "64k"],
        "repetitions": 2,
    }
    spec["config_space"] = {
        "raid_level": ["raid5", "raid6", "raid10"],
        "layout": ["single_rank", "host_stripe"],
        "ranks": [2, 4, 8],
        "stripe_kib": [64],
        "cache_policy": ["wb-ra", "wt-ra"],
    }
    spec["study"] = {"mode": "optimize", "seed": 3, "prune": False, "stop": {"within_pct": 5}}
    return spec


def partly_measured_spec() -> dict[str, Any]:
    """The self-stopping sweep's space with a fixed part measured and the rest left to predict:
    RAID 5 and RAID 6 in every layout, write back and through, and RAID 10 once (its slowest:
    one rank, write-through), as seeds with a budget of just those. Every value of every
    dimension is measured; the RAID 10 host stripes, the likely best, are not."""
    seeds = [
        f"{level}/host_stripe/ranks{ranks}/stripe64k/{cache}"
        for level in ("raid5", "raid6")
        for ranks in (2, 4, 8)
        for cache in ("wb-ra", "wt-ra")
    ]
    seeds += [
        f"{level}/single_rank/{cache}"
        for level in ("raid5", "raid6")
        for cache in ("wb-ra", "wt-ra")
    ]
    seeds.append("raid10/single_rank/wt-ra")
    spec = self_stopping_spec()
    spec["study"] = {
        "mode": "optimize",
        "prune": False,
        "seed_configurations": seeds,
        "budget": len(seeds),
    }
    return spec
