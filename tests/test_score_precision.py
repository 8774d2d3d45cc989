"""One precision for a class's scores on every surface (``recommender.figures``): the CLI's
ranking, the report's HTML and Markdown and the app's ranking write a score and its 95%
interval alike, whole from 100, else three digits of the class's largest score."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

from recommender.figures import interval_text, score_decimals, score_spec, score_text
from sweeper.cli import app
from tests.support.specs import tiny_sim_spec


@pytest.mark.parametrize(
    ("scores", "decimals"),
    [
        ([3423.4, 694.2], 0),
        ([694.2, 12.0], 0),
        ([100.0], 0),
        ([99.96], 0),  # written 100: whole
        ([99.94, 3.0], 1),
        ([45.67], 1),
        ([-45.67, 1.0], 1),
        ([4.567], 2),
        ([0.0456], 4),
        ([], 0),
        ([0.0], 0),
        ([float("nan"), 4.567], 2),
        ([float("inf"), 45.0], 1),
        ([True, 4.5], 2),  # a flag is not a score
        ([None, "x", 4.5], 2),
    ],
)
def test_a_class_takes_the_precision_of_its_largest_score(scores, decimals) -> None:
    assert score_decimals(scores) == decimals
    assert score_spec(scores) == f",.{decimals}f"


def test_a_score_and_its_interval_share_the_precision() -> None:
    assert score_text(694.2, 671.8, 716.7, 0) == "694 (672–717)"
    assert score_text(45.67, 44.1, 47.2, 1) == "45.7 (44.1–47.2)"
    # fixed decimals keep their zeros, as the score beside them does
    assert score_text(45.0, 44.0, 46.0, 1) == "45.0 (44.0–46.0)"
    # distinct ends that would read alike still get a decimal more
    assert interval_text(3304.2, 3304.4, 0) == "3,304.2–3,304.4"
    assert score_text(math.nan, 1.0, 2.0, 0) == "– (1–2)"


def _cli(*args: str | Path) -> str:
    result = CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    return result.output


def test_every_surface_writes_a_small_score_alike(tmp_path: Path) -> None:
    """A class in MB/s over 8k random I/O scores below 100: each surface writes its scores
    with one decimal, not whole (the CLI and the report did) nor four digits (the app did)."""
    from app_pages import _frame
    from recommender import views
    from recommender.data import load_recommendations
    from sweeper.store import ParquetStore

    spec_path = tiny_sim_spec(tmp_path, "small", extra_cells=False)
    spec = yaml.safe_load(spec_path.read_text())
    class_path = Path(spec["classes"][0])
    wclass = yaml.safe_load(class_path.read_text()) | {"metric": "mbps"}
    class_path.write_text(yaml.safe_dump(wclass))
    store_path = tmp_path / "store"
    _cli("run", spec_path, "--store", store_path)

    store = ParquetStore(store_path)
    (rec,) = load_recommendations(store, store.get_sweep("small"))
    ranked = rec.ranked
    assert 10 <= ranked["score"].max() < 100, ranked["score"]  # the case this test is about
    want = [
        (f"{s:,.1f}", f"{lo:,.1f}–{hi:,.1f}")
        for s, lo, hi in zip(ranked["score"], ranked["score_lo"], ranked["score_hi"], strict=True)
    ]

    cli = _cli("recommend", "small", "--store", store_path)
    html_path = tmp_path / "report.html"
    _cli("report", "small", "--store", store_path, "--output", html_path)
    html = html_path.read_text()
    markdown = html_path.with_suffix(".md").read_text()
    table = views.recommendation_table(ranked, prices=False)
    printf = _frame._printf(_frame.score_format(table["score"]))
    md_cells = [
        [c.strip() for c in line.strip("|").split("|")]
        for line in markdown.splitlines()
        if line.startswith("|")
    ]
    for (score, interval), (_, row) in zip(want, table.iterrows(), strict=True):
        assert f"{score} ({interval})" in cli, cli
        assert f'<td class="num">{score}</td>\n<td class="num">{interval}</td>' in html
        lo, hi = interval.split("–")
        assert any(cells[2:5] == [score, lo, hi] for cells in md_cells), markdown
        assert (printf(row["score"]), row["95% interval"]) == (score, interval)
    assert isinstance(table, pd.DataFrame)
