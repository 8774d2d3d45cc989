"""The read commands as scripts and people see them, on the real quick sweep: ``recommend`` laid
out for 80, 120 and 200 columns with nothing cut, ``--json`` of recommend, status and curves
against their published schemas, and ``--top`` refused when it is not a number of rows."""

from __future__ import annotations

import json

import jsonschema
import pytest

from recommender.curves import sweep_curves
from recommender.data import load_recommendations
from recommender.views import RANK_CAPTION, rank_label
from recommender.views.documents import CURVES_SCHEMA, RECOMMEND_SCHEMA, STATUS_SCHEMA
from sweeper.status import sweep_status
from sweeper.store import ParquetStore
from tests.support.cli import cli

pytestmark = pytest.mark.integration
TOP = 6


@pytest.mark.parametrize("width", [80, 120, 200])
def test_recommend_reads_at_every_width(quick_store: ParquetStore, width: int) -> None:
    result = cli(
        "recommend", "quick", "--store", quick_store.root, "--top", str(TOP), columns=width
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    too_long = [ln for ln in lines if len(ln.rstrip()) > width]
    assert too_long == [], too_long
    assert "…" not in result.stdout
    record = quick_store.get_sweep("quick")
    recs = load_recommendations(quick_store, record)
    stripped = [ln.strip() for ln in lines]
    for rec in recs:
        shown = rec.ranked.head(TOP)
        for r in shown.itertuples():
            # rank and configuration together, then each broken limit in full on one line
            label = rank_label(r.rank, r.tied)
            assert any(
                ln.startswith(label + " ") and r.config_key in ln.split() for ln in stripped
            ), (label, r.config_key)
            for broken in filter(None, r.violations.split("; ")):
                assert any(broken in ln for ln in lines), broken
        assert f"{len(shown)} of {len(rec.ranked)} configurations" in result.stdout
    table = any(ln.split()[:2] == ["rank", "configuration"] for ln in lines if ln.strip())
    assert table == (width == 200)  # a table only where every column fits in full
    assert " ".join(RANK_CAPTION.split()) in " ".join(result.stdout.split())


@pytest.mark.parametrize("top", ["0", "-1", "-20", "x"])
def test_top_must_be_a_number_of_rows(quick_store: ParquetStore, top: str) -> None:
    result = cli("recommend", "quick", "--store", quick_store.root, "--top", top, columns=120)
    assert result.returncode == 2
    assert "--top" in result.stderr and result.stdout == ""


def _json(*args: object) -> dict:
    result = cli(*args, "--json", columns=80)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)  # the whole of stdout is the document


def test_recommend_json(quick_store: ParquetStore) -> None:
    doc = _json("recommend", "quick", "--store", quick_store.root, "--top", "3")
    jsonschema.validate(doc, RECOMMEND_SCHEMA)
    recs = load_recommendations(quick_store, quick_store.get_sweep("quick"))
    assert [c["name"] for c in doc["classes"]] == [r.name for r in recs]
    for c, rec in zip(doc["classes"], recs, strict=True):
        assert c["recommended"] == rec.best["config_key"] and c["decision"] == rec.sentence()
        assert c["tied_with"] == rec.tied_set and c["configurations"] == len(rec.ranked)
        expected = rec.ranked.head(3)
        assert [r["configuration"] for r in c["rankings"]] == list(expected["config_key"])
        assert [r["rank"] for r in c["rankings"]] == list(expected["rank"])
        assert [r["rank_label"] for r in c["rankings"]] == [
            rank_label(r, t) for r, t in zip(expected["rank"], expected["tied"], strict=True)
        ]
        assert [r["score"] for r in c["rankings"]] == pytest.approx(list(expected["score"]))
    assert doc["rank_convention"] == RANK_CAPTION and doc["provisional"] is None


def test_status_json(quick_store: ParquetStore) -> None:
    doc = _json("status", "--store", quick_store.root)
    jsonschema.validate(doc, STATUS_SCHEMA)
    (sweep,) = doc["sweeps"]
    s = sweep_status(quick_store, "quick")
    assert sweep["sweep"] == "quick" and sweep["state"] == s.state == "finished"
    assert sweep["totals_known"] is True
    assert (sweep["runs_done"], sweep["runs_total"]) == (s.runs_done, s.runs_total) == (1134, 1134)
    assert sweep["configurations_done"] == 9


def test_curves_json(quick_store: ParquetStore) -> None:
    doc = _json("curves", "quick", "--store", quick_store.root)
    jsonschema.validate(doc, CURVES_SCHEMA)
    record = quick_store.get_sweep("quick")
    table = sweep_curves(quick_store.runs("quick"), record["spec"]["matrix"])
    assert len(doc["curves"]) == len(table) > 0
    first, row = doc["curves"][0], table.iloc[0]
    assert first["configuration"] == row["config_key"]
    assert first["maximum"]["iops"] == pytest.approx(row["maximum"].iops)


def test_the_schemas_refuse_what_they_do_not_describe() -> None:
    """The schema tests can fail: a document with a rank label of another spelling, or a
    NaN-free figure turned into text, is refused."""
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"schema": "raidsweep.status/1", "sweeps": [{}]}, STATUS_SCHEMA)
    bad = {
        "schema": "raidsweep.recommend/1",
        "sweep": "s",
        "provisional": None,
        "rank_convention": "",
        "classes": [],
        "pareto": [{"configuration": "k", "scores": {"c": "12"}}],
    }
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, RECOMMEND_SCHEMA)
