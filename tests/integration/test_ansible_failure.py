"""A failed play stops that configuration with the play's own error; the sweep goes on."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from sweeper.store import ParquetStore
from tests.support.cli import cli
from tests.support.paths import ROOT
from tests.support.specs import failing_play_spec, quick_base

pytestmark = pytest.mark.integration


def test_a_failing_play_fails_the_configuration(tmp_path: Path) -> None:
    """The local platform's role runs modules on the storage host; with an interpreter that
    is not there every module fails, so the play does. (A storage host the simulated array
    cannot be driven through, such as one reached over SSH, is refused at spec time.)"""
    path = failing_play_spec(tmp_path, "failing")
    store = tmp_path / "store"
    proc = cli("run", path, "--store", store, "-q", timeout=300)
    # its one configuration failed: nothing was measured, exit 1 naming it and its logs
    assert proc.returncode == 1, proc.stderr
    out = " ".join(proc.stdout.split())
    assert "configuration failed: raid10/single_rank/wb-ra: Ansible task" in out
    said = " ".join(proc.stderr.split())
    assert "no configuration was measured" in said and "raid10/single_rank/wb-ra" in said, said
    assert "FROM configurations WHERE sweep_id = 'failing'" in said, said
    results = ParquetStore(store)
    configs = results.configurations("failing")
    assert set(configs["status"]) == {"failed"} and len(configs) == 1
    assert configs["error"].str.len().gt(0).all()
    assert configs["failed_task"].notna().all()
    assert results.runs("failing", include_failed=True).empty


def test_relative_store_path_keeps_array_state_inside_the_store(tmp_path: Path) -> None:
    spec = quick_base()
    spec |= {"name": "relative", "inventory": str(ROOT / "inventories/sim/hosts.yml")}
    spec["config_space"] |= {"raid_level": ["raid10"], "layout": ["single_rank"]}
    spec["matrix"] |= {"patterns": ["randread"], "block_sizes": ["8k"], "repetitions": 1}
    spec["classes"] = ["data_file"]  # the one whose cells this matrix measures
    (tmp_path / "spec.yaml").write_text(yaml.safe_dump(spec))
    before = sorted(p.relative_to(ROOT) for p in (ROOT / "playbooks").rglob("*"))
    proc = cli("run", "spec.yaml", "--store", "rel", "-q", cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "rel" / "relative" / "array" / "array.json").is_file()
    assert sorted(p.relative_to(ROOT) for p in (ROOT / "playbooks").rglob("*")) == before
