"""Dynamic repetitions on the simulated array: more runs only where the figures still vary."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sweeper.repetitions import summarize
from sweeper.store import ParquetStore
from tests.support.paths import ROOT
from tests.support.specs import class_measuring, quick_base, write_spec
from tests.support.sweeps import sweep

pytestmark = pytest.mark.integration


def _sweep(tmp_path: Path, name: str, **matrix: Any) -> ParquetStore:
    spec = quick_base()
    spec |= {"name": name, "inventory": str(ROOT / "inventories/sim/hosts.yml")}
    spec["config_space"] |= {"raid_level": ["raid10"], "layout": ["single_rank"]}
    spec["matrix"] |= {"patterns": ["randread", "write"], "block_sizes": ["8k"]} | matrix
    spec["classes"] = [class_measuring(tmp_path, spec["matrix"])]
    return sweep(write_spec(tmp_path, spec, name), tmp_path / "store")[0]


def _reps(store: ParquetStore, name: str) -> dict[str, list[float]]:
    runs = store.runs(name)
    return {c: list(g.sort_values("repetition")["iops"]) for c, g in runs.groupby("cell_key")}


def test_cells_repeat_until_they_agree_or_reach_the_cap(tmp_path: Path) -> None:
    # The simulated array's run-to-run noise (a few %) never agrees within 0.01 %: the cap.
    strict = _reps(
        _sweep(tmp_path, "strict", repetitions=3, dynamic_repetitions={"cv_pct": 0.01, "max": 6}),
        "strict",
    )
    assert strict and all(len(v) == 6 for v in strict.values())
    # Within 50 % they agree at once: the fixed three and no more.
    loose = _reps(
        _sweep(tmp_path, "loose", repetitions=3, dynamic_repetitions={"cv_pct": 50, "max": 6}),
        "loose",
    )
    assert all(len(v) == 3 for v in loose.values())
    # A threshold between: each cell stops at the first count whose CV is under it.
    middle_cv = sorted(summarize(v[:3]).cv_pct for v in strict.values())[0] * 1.01
    mid = _reps(
        _sweep(tmp_path, "mid", repetitions=3, dynamic_repetitions={"cv_pct": middle_cv, "max": 6}),
        "mid",
    )
    for values in mid.values():
        n = len(values)
        assert 3 <= n <= 6
        assert n == 6 or summarize(values).cv_pct <= middle_cv
        assert all(summarize(values[:k]).cv_pct > middle_cv for k in range(3, n))


def test_cap_below_the_fixed_repetitions_is_refused(tmp_path: Path) -> None:
    with pytest.raises(Exception, match="dynamic_repetitions.max \\(2\\) is below repetitions"):
        _sweep(tmp_path, "bad", repetitions=3, dynamic_repetitions={"max": 2})
