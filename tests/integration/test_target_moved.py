"""A target named through a link that is pointed elsewhere mid-sweep (a by-path link, a
device renumbered, a symlink of the user's): fio is not started on a device that was never
allowed, checked nor locked. Real fio on real loop devices; the other device's bytes are
checked to be as they were."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sweeper.load import FioDriver, FioLoad, LocalFio
from sweeper.spec import Matrix
from tests.support import devices
from tests.support.files import digest
from tests.support.specs import quick_fio_matrix

WRITES = quick_fio_matrix("write", block_sizes=["64k"], runtime="1s", working_set="16m")


def test_fio_is_not_started_where_the_link_now_leads(tmp_path: Path) -> None:
    with (
        devices.loop_device(tmp_path / "allowed.img", 32) as allowed,
        devices.loop_device(tmp_path / "other.img", 32) as other,
    ):
        link = tmp_path / "target"
        link.symlink_to(allowed)
        matrix = Matrix.model_validate(WRITES)
        driver = FioDriver(
            FioLoad(target=str(link), fill=False), tmp_path / "s", matrix, LocalFio()
        )
        driver.prepare()
        try:
            cell = matrix.cells()[0]
            assert driver.run(cell, 1).exit_code == 0  # where it was checked: written
            before = digest(tmp_path / "other.img")
            link.unlink()
            link.symlink_to(other)
            with pytest.raises(RuntimeError) as caught:
                driver.run(cell, 2)
            said = str(caught.value)
            assert f"now leads to {other}, not to the {allowed} checked and locked" in said
            os.sync()
            assert digest(tmp_path / "other.img") == before
        finally:
            driver.cleanup()
