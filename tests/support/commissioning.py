"""Short sweeps of a commissioning on the simulated array: the old array and the new one (or
the same array again), each into a store of its own, for ``compare`` and ``accept``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.specs import one_cell_sim, write_spec
from tests.support.sweeps import sweep

#: the cells of the shipped redo_log and data_file classes, and nothing else
CELLS = [
    "randrw70/8k/qd1x16",
    "randread/16k/qd1x16",
    "write/4k/qd1x1/dsync",
    "write/64k/qd1x1/dsync",
    "randwrite/8k/qd1x1",
]

#: the configuration every sweep here has, whatever the array's profile
RAID10 = "raid10/single_rank/wb-ra"
#: the gates of the sweep after a firmware update: within 5% of before, and a datasheet latency
FIRMWARE_GATES = {
    "baseline": {"sweep": "old-array", "tolerance_pct": 5},
    "configuration": RAID10,
    "gates": [
        {"class": "redo_log", "min_iops": "baseline"},
        {"cell": "randread/8k/qd1x16", "max_latency": {"read_lat_p99": "200ms"}},
    ],
}


def array_spec(
    folder: Path,
    name: str,
    profile: str = "ds8800-like",
    seed: int = 42,
    acceptance: dict[str, Any] | None = None,
    repetitions: int = 3,
) -> Path:
    """A sweep ``name`` of RAID 5 and RAID 10 (one rank each) on the simulated ``profile``,
    the redo_log and data_file cells, ``repetitions`` each; written to ``folder``."""
    spec = one_cell_sim(name, ["raid5", "raid10"], repetitions)
    spec["platform_options"] = {"profile": profile}
    spec["matrix"]["extra_cells"] = CELLS
    spec["study"] = {"mode": "grid", "seed": seed}
    spec.pop("prices", None)
    if acceptance is not None:
        spec["acceptance"] = acceptance
    return write_spec(folder, spec, name)


def array_sweep(folder: Path, name: str, **kwargs: Any) -> Path:
    """``array_spec``'s sweep run to its end into ``folder/store``; the store's folder."""
    folder.mkdir(parents=True, exist_ok=True)
    store = folder / "store"
    _, outcome = sweep(array_spec(folder, name, **kwargs), store)
    assert outcome.complete and not outcome.configurations_failed
    return store
