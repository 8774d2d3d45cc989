"""A failed play stops that configuration with the play's own error; the sweep goes on."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from sweeper.store import ParquetStore
from tests.specs import quick_base

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]


def test_unreachable_storage_host_fails_the_configuration(tmp_path: Path) -> None:
    inventory = tmp_path / "hosts.yml"
    # A real host entry that cannot be reached: nothing listens on port 1 of loopback.
    inventory.write_text(
        yaml.safe_dump(
            {
                "all": {
                    "children": {
                        "storage": {
                            "hosts": {
                                "array-ctl": {
                                    "ansible_host": "127.0.0.1",
                                    "ansible_port": 1,
                                    "ansible_connection": "ssh",
                                }
                            }
                        }
                    }
                }
            }
        )
    )
    spec = quick_base()
    spec |= {"name": "unreachable", "inventory": str(inventory)}
    spec["config_space"] |= {"raid_level": ["raid5", "raid10"], "layout": ["single_rank"]}
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(spec))
    store = tmp_path / "store"
    proc = subprocess.run(
        [sys.executable, "-m", "sweeper.cli", "run", str(path), "--store", str(store), "-q"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    out = " ".join(proc.stdout.split())
    assert "configuration failed: raid5/single_rank/wb-ra: Ansible task" in out
    assert "configuration failed: raid10/single_rank/wb-ra: Ansible task" in out
    results = ParquetStore(store)
    configs = results.configurations("unreachable")
    assert set(configs["status"]) == {"failed"} and len(configs) == 2
    assert configs["error"].str.len().gt(0).all()
    assert configs["failed_task"].notna().all()
    assert results.runs("unreachable", include_failed=True).empty


def test_relative_store_path_keeps_array_state_inside_the_store(tmp_path: Path) -> None:
    spec = quick_base()
    spec |= {"name": "relative", "inventory": str(ROOT / "inventories/sim/hosts.yml")}
    spec["config_space"] |= {"raid_level": ["raid10"], "layout": ["single_rank"]}
    spec["matrix"] |= {"patterns": ["randread"], "block_sizes": ["8k"], "repetitions": 1}
    (tmp_path / "spec.yaml").write_text(yaml.safe_dump(spec))
    before = sorted(p.relative_to(ROOT) for p in (ROOT / "playbooks").rglob("*"))
    proc = subprocess.run(
        [sys.executable, "-m", "sweeper.cli", "run", "spec.yaml", "--store", "rel", "-q"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "rel" / "relative" / "array" / "array.json").is_file()
    assert sorted(p.relative_to(ROOT) for p in (ROOT / "playbooks").rglob("*")) == before
