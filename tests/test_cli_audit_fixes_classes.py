"""A class weight has a lower bound, as it has an upper one: a weight of 5e-324 (a subnormal
number) was taken and ranked silently wrong, its products with the log of each figure rounded
to a few multiples of the weight. The bound, 1e-6, is where the arithmetic still holds: beside
the heaviest weight (1e6) the lightest cell still moves the score."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest
from pydantic import ValidationError

from recommender.classes import ClassCell, WorkloadClass, load_class
from recommender.scoring import rank, score_class
from sweeper.errors import InputError

READ, WRITE = "randread/8k/qd1x16", "randwrite/8k/qd1x16"
#: the bounds of a weight (``recommender.classes.WEIGHT_MIN``, ``WEIGHT_MAX``)
WEIGHT_MIN, WEIGHT_MAX = 1e-6, 1e6


def _runs(figures: dict[str, dict[str, float]]) -> pd.DataFrame:
    """One repetition per configuration and cell: ``{config: {cell: iops}}``."""
    return pd.DataFrame(
        [
            {"config_key": config, "cell_key": cell, "repetition": 1, "iops": iops}
            for config, cells in figures.items()
            for cell, iops in cells.items()
        ]
    )


def test_a_class_file_with_a_subnormal_weight_is_refused_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "tiny.yaml"
    path.write_text(
        f"name: tiny\ncells:\n  - {{cell: {READ}, weight: 1}}\n"
        f"  - {{cell: {WRITE}, weight: 5.0e-324}}\n"
    )
    with pytest.raises(InputError) as info:
        load_class(path)
    said = info.value.render()
    assert str(path) in said and "line 4: cells[1].weight: 5e-324 is below" in said, said
    assert f"the lightest weight, {WEIGHT_MIN:g}" in said, said


@pytest.mark.parametrize("weight", [5e-324, 1e-300, 9.99e-7])
def test_weights_below_the_bound_are_refused(weight: float) -> None:
    with pytest.raises(ValidationError, match="below the lightest weight"):
        ClassCell(cell=READ, weight=weight)


@pytest.mark.parametrize("weight", [WEIGHT_MIN, 0.5, WEIGHT_MAX])
def test_weights_within_the_bounds_are_taken(weight: float) -> None:
    assert ClassCell(cell=READ, weight=weight).weight == weight


def test_at_the_bounds_the_lightest_cell_still_decides() -> None:
    """Weights 1e6 and 1e-6: two configurations alike in the heavy cell, one twice as fast
    in the light one, rank apart in the right order."""
    wclass = WorkloadClass(
        name="bounds",
        cells=[
            ClassCell(cell=READ, weight=WEIGHT_MAX),
            ClassCell(cell=WRITE, weight=WEIGHT_MIN),
        ],
    )
    runs = _runs({"a": {READ: 1000.0, WRITE: 500.0}, "b": {READ: 1000.0, WRITE: 1000.0}})
    ranked = rank(score_class(runs, wclass)).set_index("config_key")
    assert ranked.loc["b", "score"] > ranked.loc["a", "score"]
    assert (ranked.loc["b", "rank"], ranked.loc["a", "rank"]) == (1, 2)
    share = WEIGHT_MIN / (WEIGHT_MAX + WEIGHT_MIN)
    expected = math.exp(share * math.log(2))  # the light cell's pull, exactly
    assert ranked.loc["b", "score"] / ranked.loc["a", "score"] == pytest.approx(expected, rel=1e-14)


def test_below_the_bound_the_score_was_wrong() -> None:
    """Why the bound: a class with one cell of weight 5e-324 (built past validation, as the
    models once took it) scores 10,000 and 12,000 IOPS alike, and not as the IOPS."""
    cell = ClassCell.model_construct(cell=READ, weight=5e-324, stand_in=None)
    wclass = WorkloadClass.model_construct(
        name="subnormal", description="", metric="iops", cells=[cell], limits=[], tie_break=[]
    )
    scored = score_class(_runs({"a": {READ: 10_000.0}, "b": {READ: 12_000.0}}), wclass)
    scores = scored.set_index("config_key")["score"]
    assert scores["a"] == scores["b"] and scores["a"] != pytest.approx(10_000)


def test_the_bounds_are_the_models() -> None:
    from recommender import classes

    assert (classes.WEIGHT_MIN, classes.WEIGHT_MAX) == (WEIGHT_MIN, WEIGHT_MAX)
