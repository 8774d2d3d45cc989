"""The simulated array's rank width through real Ansible: a sweep that gives RAID 10 ranks of
four drives (``platform_options.rank_drives``) and sweeps ``drives_per_rank`` builds each
configuration with its own width, as the array reports it back, and the runs follow it."""

from __future__ import annotations

import json
from pathlib import Path

from sweeper.spec import load_spec
from sweeper.store import ParquetStore
from sweeper.sweep import run_sweep
from tests.support.specs import one_cell_sim, write_spec


def test_each_configuration_is_built_and_measured_with_its_width(tmp_path: Path) -> None:
    spec = one_cell_sim("width", ["raid10"]) | {
        "platform_options": {"profile": "ds8800-like", "rank_drives": {"raid10": 4}},
        "classes": ["data_file"],
    }
    spec["config_space"] = {
        "raid_level": ["raid10"],
        "layout": ["host_stripe"],
        "ranks": [4],
        "stripe_kib": [16],
        "drives_per_rank": [4, 8],
    }
    spec["matrix"] |= {"runtime": "60s", "ramp": "5s", "working_set": "360g"}
    spec_file = write_spec(tmp_path, spec, "width")
    spec, inventory = load_spec(spec_file)
    store = ParquetStore(tmp_path / "store")
    outcome = run_sweep(spec, inventory, store)
    assert outcome.configurations_done == 2 and not outcome.configurations_failed
    runs = store.runs("width").set_index("config_key")
    base = "raid10/host_stripe/ranks4/stripe16k/wb-ra/drives_per_rank="
    narrow, wide = (runs.loc[f"{base}{w}"] for w in (4, 8))
    assert narrow["iops"] < wide["iops"]  # 16 drives serve the random reads, not 32
    for width, run in ((4, narrow), (8, wide)):
        detail = store.run_detail(run["run_id"])
        assert detail is not None
        disclosure = json.loads(detail["disclosure"])
        assert disclosure["array_state"]["rank_drives"] == width
        assert disclosure["model"]["drives_busy"] == 4 * width
