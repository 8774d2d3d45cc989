"""linux_md's declared dimensions against a real kernel in the lab VM: one sweep over the RAID
chunk, the drives per rank, the filesystem layer and the array's health, verified from the
guest's own view (``mdadm --detail``, the members per array, ``dumpe2fs`` and ``xfs_info``,
the array degraded or resyncing through the runs and whole again after). Two configurations
cover every dimension's values but ``optimal`` and ``xfs``: making the rebuilt array whole
again, with xfs on it, proves those.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from sweeper.ansible import run_playbook
from sweeper.configuration import Configuration
from sweeper.lab import Lab
from sweeper.platforms.linux_md import LinuxMdPlatform
from sweeper.store import ParquetStore
from tests.integration.test_linux_md import ALLOW, LAB_BUILD_TIMEOUT_S, cli, inventory
from tests.support.campaign import FIGURES
from tests.support.lab import clean
from tests.support.specs import quick_fio_matrix

pytestmark = pytest.mark.integration
OPTIONS = {"rebuild_kib_s": 1000}  # md's floor: a 256 MiB member takes minutes to rebuild
DEGRADED = "raid5/single_rank/wb-ra/chunk_kib=64/drives_per_rank=3/filesystem=ext4/health=degraded"
REBUILDING = (
    "raid5/single_rank/wb-ra/chunk_kib=128/drives_per_rank=4/filesystem=none/health=rebuilding"
)


@pytest.fixture(autouse=True)
def _task_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANSIBLE_TASK_TIMEOUT", "300")


def _spec(folder: Path, inv: Path) -> Path:
    doc = {
        "name": "md-dims",
        "platform": "linux_md",
        "inventory": str(inv),
        "platform_options": OPTIONS,
        "config_space": {
            "raid_level": ["raid5"],
            "chunk_kib": [64, 128],
            "drives_per_rank": [3, 4],
            "filesystem": ["none", "ext4"],
            "health": ["optimal", "degraded", "rebuilding"],
        },
        "matrix": quick_fio_matrix("write"),
        "classes": ["redo_log"],
        # the two configurations that cover every dimension, and no more
        "study": {
            "mode": "optimize",
            "budget": 2,
            "prune": False,
            "seed_configurations": [DEGRADED, REBUILDING],
        },
    }
    path = folder / "md-dims.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


def _job_file(store: ParquetStore, run_id: str) -> str:
    detail = store.run_detail(run_id)
    assert detail is not None
    return str(detail["job_file"])


@pytest.mark.timeout(LAB_BUILD_TIMEOUT_S)
def test_chunk_width_filesystem_and_health_swept_in_the_lab(lab_vm: Lab, tmp_path: Path) -> None:
    clean(lab_vm)
    inv = inventory(lab_vm, tmp_path, ALLOW)
    store_dir = tmp_path / "store"
    out = cli("run", str(_spec(tmp_path, inv)), "--store", str(store_dir), "-q")
    assert out.returncode == 0, out.stdout + out.stderr
    store = ParquetStore(store_dir)
    configs = store.configurations("md-dims").set_index("config_key")
    assert sorted(configs.index) == sorted([DEGRADED, REBUILDING])
    assert set(configs["status"]) == {"successful"}
    runs = store.runs("md-dims")
    assert set(runs["status"]) == {"ok"} and (runs["iops"] > 0).all()

    # Degraded: 64 KiB chunks over 3 drives, one failed; ext4 with a 64 KiB stride and a
    # 128 KiB stripe width (2 data drives); fio wrote a file on it.
    facts = json.loads(configs.loc[DEGRADED, "facts"])
    (array,) = facts["arrays"]
    assert "Chunk Size : 64K" in array["detail"] and "Raid Devices : 3" in array["detail"]
    health = facts["health"]
    assert health["now"] == "degraded" and health["found"]["health"] == "optimal"
    assert re.search(r"State : clean, degraded", health["detail"])
    assert "Active Devices : 2" in health["detail"] and "removed" in health["detail"]
    fs = facts["filesystem"]
    assert fs["kind"] == "ext4" and fs["target"] == "/mnt/raidsweep/fio.data"
    assert (fs["geometry"]["tool"], fs["geometry"]["unit_kib"], fs["geometry"]["width_kib"]) == (
        "dumpe2fs -h",
        64,
        128,
    )
    ext4_runs = runs[runs["config_key"] == DEGRADED]
    assert all(
        "filename=/mnt/raidsweep/fio.data" in _job_file(store, r) for r in ext4_runs["run_id"]
    )
    # ... and still degraded after its runs: the next build found it with two members
    later = json.loads(configs.loc[REBUILDING, "facts"])
    assert any(
        re.search(r"destroy md array raidsweep-r0 \(/dev/md\d+: raid5 over vd., vd.;", step)
        for step in later["plan"]
    ), later["plan"]

    # Rebuilding: 128 KiB chunks over 4 drives, a blank spare resyncing at the cap; fio on
    # the raw volume (no filesystem).
    (array,) = later["arrays"]
    assert "Chunk Size : 128K" in array["detail"]
    health = later["health"]
    assert health["now"] == "rebuilding" and "recovering" in health["detail"]
    rebuild = health["rebuild"]
    assert rebuild["cap_kib_s"] == 1000 and rebuild["rate_kib_s"] is not None
    assert rebuild["md_sync_speed_kib_s"] >= 0 and rebuild["sync_completed"] != "none"
    assert later["filesystem"] == {
        "kind": "none",
        "target": "/dev/raidsweep/volume",
        "geometry": None,
        "size_bytes": None,
    }
    raw_runs = runs[runs["config_key"] == REBUILDING]
    assert all("filename=/dev/raidsweep/volume" in _job_file(store, r) for r in raw_runs["run_id"])

    # Whole again: the same build with health optimal finds the rebuild still running (it
    # lasted through the runs), lifts the cap and waits for it; the guest sees 4 of 4.
    # ... with xfs on the volume now (a volume-cost change: no array is rebuilt), aligned to
    # the 128 KiB chunk × 3 data drives, as xfs_info reports it.
    platform = LinuxMdPlatform(OPTIONS, tmp_path, inv)
    whole = Configuration.from_key(
        REBUILDING.replace("health=rebuilding", "health=optimal").replace("=none/", "=xfs/")
    )
    assert "filesystem=xfs" in whole.key
    play = run_playbook("reconfigure.yml", inv, platform.extravars(whole))
    assert play.ok, play.failure()
    found = play.facts["health"]["found"]
    assert found["health"] == "rebuilding"
    # the rebuild's rate over the runs, from where it was at their start and at their end
    sectors = [int(x["sync_completed"].split("/")[0]) for x in (rebuild, found)]
    over_runs = (sectors[1] - sectors[0]) / 2 / (found["at"] - rebuild["at"])
    assert 0 < over_runs < 2500, over_runs  # md held the cap (1000 KiB/s, with slack)
    assert play.facts["health"]["now"] == "optimal"
    assert not any("destroy md array" in step for step in play.facts["plan"])  # no rebuild
    detail = lab_vm.ssh("mdadm --detail /dev/md/raidsweep-r0").stdout
    assert "Active Devices : 4" in detail and "Working Devices : 4" in detail
    assert re.search(r"State : (clean|active)\s*$", detail, re.M), detail
    assert "Chunk Size : 128K" in detail
    xfs = play.facts["filesystem"]
    assert xfs["kind"] == "xfs" and xfs["target"] == "/mnt/raidsweep/fio.data"
    assert (xfs["geometry"]["tool"], xfs["geometry"]["unit_kib"]) == ("xfs_info", 128)
    assert xfs["geometry"]["width_kib"] == 384, xfs["geometry"]
    assert "xfs" in lab_vm.ssh("findmnt -no FSTYPE /mnt/raidsweep").stdout
    again = run_playbook("reconfigure.yml", inv, platform.extravars(whole))
    assert again.ok and again.changed == 0, again.facts.get("plan")
    FIGURES.setdefault("linux_md in the lab VM", []).append(
        "declared dimensions: 2 configurations (chunk 64/128 KiB, 3/4 drives, ext4/raw, "
        "degraded/rebuilding) swept, then made whole with xfs; "
        f"rebuild at {rebuild['rate_kib_s']} KiB/s as it started "
        f"(md: {rebuild['md_sync_speed_kib_s']} KiB/s), "
        f"{over_runs:.0f} KiB/s over the runs (cap 1000 KiB/s)"
    )
    out = cli("teardown", str(_spec(tmp_path, inv)), "--store", str(store_dir))
    assert out.returncode == 0, out.stderr
    state = lab_vm.ssh(
        "cat /proc/mdstat; vgs --noheadings; grep raidsweep /proc/mounts", check=False
    ).stdout
    assert "raidsweep" not in state and "md12" not in state
    clean(lab_vm)
