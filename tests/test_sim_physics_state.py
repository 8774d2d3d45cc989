"""The simulated load refuses an array state record (``array.json``) the model cannot answer
for, naming the file and the problem, before any run: a field missing or mistyped, or a
configuration the profile cannot build."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sweeper.errors import InputError
from sweeper.load.sim import SimDriver
from sweeper.platforms.sim import read_array_state
from sweeper.sim import load_profile

GOOD = {"raid_level": "raid5", "layout": "pool_stripe", "ranks": 4, "stripe_kib": 1048576}
GOOD |= {"cache_policy": "wb-ra"}

TAMPERED = [
    ({"raid_level": None}, "raid_level"),
    ({"ranks": 0}, "ranks 0"),
    ({"ranks": 400}, "ranks 400"),
    ({"ranks": "four"}, "four"),
    ({"raid_level": "raid7"}, "raid7"),
    ({"layout": "sideways"}, "sideways"),
    ({"cache_policy": "wb-maybe"}, "wb-maybe"),
    ({"stripe_kib": 0}, "stripe_kib"),
    ({"rank_drives": 3, "raid_level": "raid10"}, "rank_drives"),
    ({"health": "sickly"}, "sickly"),
    ({"layout": "single_rank", "ranks": 3, "stripe_kib": None}, "single_rank"),
]


def _driver(tmp_path: Path, record: dict) -> SimDriver:
    record = {k: v for k, v in record.items() if v is not None}
    (tmp_path / "array.json").write_text(json.dumps(record))
    return SimDriver(load_profile("ds8800-like"), None, 1, lambda: read_array_state(tmp_path))


def test_a_good_record_is_read(tmp_path: Path) -> None:
    driver = _driver(tmp_path, GOOD)
    driver.prepare()
    assert driver.state is not None and driver.state.ranks == 4


@pytest.mark.parametrize(("change", "named"), TAMPERED)
def test_a_tampered_record_is_refused_naming_the_file(
    tmp_path: Path, change: dict, named: str
) -> None:
    driver = _driver(tmp_path, GOOD | change)
    with pytest.raises(InputError) as err:
        driver.prepare()
    text = err.value.render()
    assert "array.json" in text and named in text
    assert driver.state is None


def test_a_stripe_the_sim_platform_would_not_build_is_still_answered(tmp_path: Path) -> None:
    """Other platforms' states reach the model too (vSAN's policies, mapped onto a profile,
    with stripe widths of their own): only what the model cannot answer for is refused."""
    driver = _driver(tmp_path, GOOD | {"stripe_kib": 1024})
    driver.prepare()
    assert driver.state is not None and driver.state.stripe_kib == 1024
