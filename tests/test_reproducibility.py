"""The disclosure's "can it be repeated?" checklist: each of the seven questions answered from
the record, stated in the spec, found in the facts, or said to be missing with where to state
it; and the report shows the user's text as text."""

from __future__ import annotations

from typing import Any

from sweeper.reproducibility import MISSING, NOT_APPLICABLE, QUESTIONS, RECORDED, STATED, checklist
from sweeper.store import ParquetStore


def _record(platform: str = "local", **more: Any) -> dict[str, Any]:
    return {
        "platform": platform,
        "load_hosts": [{"hostname": "lh1", "os": "Linux 6.1", "kernel": "#1 SMP"}],
        "tool": {"name": "fio", "version": "fio-3.33"},
        "measurement": {"ramp": "30s", "measurement_interval": "5m00s"},
        "configurations": [],
        "spec": {},
    } | more


def _by_question(rows: list[dict[str, str]]) -> dict[str, dict[str, str]]:
    assert [r["question"] for r in rows] == list(QUESTIONS)
    return {r["question"]: r for r in rows}


def test_a_local_sweep_says_what_it_cannot_know() -> None:
    rows = _by_question(checklist(_record()))
    assert rows["how many load hosts"] == {
        "question": "how many load hosts",
        "answer": "1 (lh1)",
        "source": RECORDED,
    }
    assert rows["which tool"]["answer"] == "fio fio-3.33"
    assert rows["was there a ramp-up"]["answer"].startswith("30s")
    for q, key in (("which switches", "fabric"), ("which multipath software", "multipath")):
        assert rows[q]["source"] == MISSING
        assert f"environment.{key}" in rows[q]["answer"]


def test_stated_facts_and_recorded_maps_answer() -> None:
    facts = {"lun": {"multipath": {"map": "mpatha", "multipath_ll": "mpatha (3600…) dm-0"}}}
    record = _record(
        spec={"environment": {"switches": "two Brocade G620"}},
        configurations=[{"facts": facts}, {"facts": {"lun": {"multipath": None}}}],
    )
    rows = _by_question(checklist(record))
    assert rows["which switches"] == {
        "question": "which switches",
        "answer": "two Brocade G620",
        "source": STATED,
    }
    assert rows["which multipath software"]["source"] == RECORDED
    assert "1 configuration" in rows["which multipath software"]["answer"]
    # what the spec states wins over what the facts show
    record["spec"]["environment"]["multipath"] = "DM-multipath, round-robin"
    assert _by_question(checklist(record))["which multipath software"]["source"] == STATED


def test_the_simulated_array_has_no_fabric_and_no_runs_means_missing() -> None:
    rows = _by_question(checklist(_record("sim")))
    assert rows["which switches"]["source"] == NOT_APPLICABLE
    empty = _by_question(checklist({"platform": "local", "spec": {}}))
    assert {r["source"] for r in empty.values()} == {MISSING}


def test_the_report_shows_the_checklist_and_the_users_text_as_text(
    quick_store: ParquetStore, tmp_path
) -> None:
    from recommender.report import write_report

    record = dict(quick_store.get_sweep("quick"))
    record["spec"] = dict(record["spec"]) | {
        "environment": {"fabric": "<img src=x onerror=alert(1)> [link](http://x)"}
    }
    write_report(quick_store, record, tmp_path / "report.html")
    page = (tmp_path / "report.html").read_text()
    assert "Can it be repeated?" in page and "which multipath software" in page
    assert "<img src=x" not in page and "&lt;img src=x" in page
    md = (tmp_path / "report.md").read_text()
    assert "which switches: &lt;img src=x" in md and "\\[link\\]" in md
