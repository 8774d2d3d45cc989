"""The linux_md platform's purge without a host: what the spec may ask (discard or zero; never
nvme format, the test volume being LVM on md arrays), what ``--check`` says, and what the fio
driver is handed. (The purge itself runs in the lab VM:
tests/integration/test_linux_md_measurement.py.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from sweeper.configuration import enumerate_configurations
from sweeper.platforms.linux_md import FS_TARGET, VOLUME, LinuxMdPlatform
from sweeper.spec import load_spec
from tests.support.paths import FIXTURES
from tests.support.specs import problems_of, quick_fio_matrix

INVENTORY = FIXTURES / "linux_md" / "hosts.yml"


def _spec(folder: Path, options: dict[str, Any], **space: Any) -> Path:
    spec = {
        "name": "md-purge",
        "platform": "linux_md",
        "inventory": str(INVENTORY),
        "platform_options": {"rank_devices": 4} | options,
        "config_space": {"raid_level": ["raid5"], "layout": ["single_rank"]} | space,
        "matrix": quick_fio_matrix("write", sync=["dsync"]),
        "classes": ["redo_log"],
    }
    path = folder / "md-purge.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


def _platform(path: Path) -> tuple[LinuxMdPlatform, Any]:
    spec, inventory = load_spec(path)
    platform = LinuxMdPlatform(spec.platform_options, path.parent / "state", inventory)
    return platform, spec


@pytest.mark.parametrize("method", ["discard", "zero"])
def test_the_purge_is_planned_and_handed_to_fio_on_the_volume(tmp_path: Path, method: str) -> None:
    platform, spec = _platform(_spec(tmp_path, {"purge": method}))
    (line,) = [s for s in platform.plan_lines(spec.matrix) if s.startswith("purges")]
    assert f"the whole of {VOLUME}" in line
    assert ("blkdiscard" in line) == (method == "discard") and "zeros with fio" in line
    (config,) = enumerate_configurations(spec.config_space)
    driver = platform.load_driver(config, spec.matrix, seed=1)
    assert (driver.load.target, driver.load.purge) == (VOLUME, method)


def test_on_a_filesystem_the_file_fio_measures_is_purged(tmp_path: Path) -> None:
    platform, spec = _platform(_spec(tmp_path, {"purge": "zero"}, filesystem=["xfs"]))
    (config,) = enumerate_configurations(spec.config_space)
    driver = platform.load_driver(config, spec.matrix, seed=1)
    assert (driver.load.target, driver.load.purge) == (FS_TARGET, "zero")


def test_without_purge_nothing_is_planned_or_purged(tmp_path: Path) -> None:
    platform, spec = _platform(_spec(tmp_path, {}))
    assert not [s for s in platform.plan_lines(spec.matrix) if "purge" in s]
    (config,) = enumerate_configurations(spec.config_space)
    assert platform.load_driver(config, spec.matrix, seed=1).load.purge is None


@pytest.mark.parametrize(
    ("purge", "problem"),
    [
        ("nvme-format", f"nvme-format needs an NVMe namespace, not {VOLUME}"),
        ("blkdiscard", "'discard', 'zero' or 'nvme-format'"),
    ],
)
def test_a_purge_the_volume_cannot_take_is_refused(
    tmp_path: Path, purge: str, problem: str
) -> None:
    (found,) = problems_of(_spec(tmp_path, {"purge": purge}))
    assert "platform_options.purge" in found and problem in found, found
