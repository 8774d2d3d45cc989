"""``raidsweep compare`` and ``raidsweep accept`` on real stores made by real short sweeps of
the simulated array (Ansible plays included): the old array (ds8800-like) and the same array
after a firmware update (another seed) in one store, the new array (allflash-nvme) in another.
Every expected figure is computed here from the stores' runs, by other code than the tool's.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from streamlit.testing.v1 import AppTest

from recommender.acceptance import EXIT_STATUS, AcceptanceError
from recommender.acceptance_io import verdict_for
from recommender.data import sweep_classes
from recommender.repeatability import cell_statistics
from recommender.scoring import score_class
from sweeper.spec.acceptance import Acceptance
from sweeper.store import ParquetStore
from tests.support.cli import cli
from tests.support.commissioning import FIRMWARE_GATES, RAID10, array_spec, array_sweep
from tests.support.paths import ROOT


@dataclass(frozen=True)
class Stores:
    one: Path  # old-array and after-firmware
    two: Path  # new-array
    folder: Path


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> Stores:
    folder = tmp_path_factory.mktemp("commissioning")
    one = array_sweep(folder / "one", "old-array")
    array_sweep(folder / "one", "after-firmware", seed=43, acceptance=FIRMWARE_GATES)
    two = array_sweep(folder / "two", "new-array", profile="allflash-nvme", seed=7)
    return Stores(one, two, folder)


def _json(*args: str | Path) -> tuple[int, dict]:
    done = cli(*args, "--json")
    assert done.returncode in (0, 3, 4), done.stderr
    return done.returncode, json.loads(done.stdout)


def _runs(store: Path, sweep: str):  # noqa: ANN202 - a DataFrame
    return ParquetStore(store).runs(sweep)


def test_compare_across_stores_matches_welch_on_the_runs(stores: Stores) -> None:
    _, doc = _json(
        "compare", "old-array", "new-array", "--store", stores.one, "--store-b", stores.two
    )
    assert doc["schema"] == "raidsweep.compare/1" and doc["a"] == "old-array"
    a, b = _runs(stores.one, "old-array"), _runs(stores.two, "new-array")
    row = next(
        r
        for r in doc["cells"]
        if r["config_a"] == r["config_b"] == RAID10
        and r["cell"] == "randread/8k/qd1x16"
        and r["figure"] == "iops"
    )
    pick = lambda runs: np.log(  # noqa: E731
        runs[(runs.config_key == RAID10) & (runs.cell_key == "randread/8k/qd1x16")]["iops"]
    )
    la, lb = pick(a), pick(b)
    ci = stats.ttest_ind(lb, la, equal_var=False).confidence_interval(0.95)
    assert row["change_pct"] == pytest.approx(100 * (math.exp(lb.mean() - la.mean()) - 1))
    assert row["change_lo_pct"] == pytest.approx(100 * (math.exp(ci.low) - 1))
    assert row["change_hi_pct"] == pytest.approx(100 * (math.exp(ci.high) - 1))
    expected = "better" if ci.low > 0 else "worse" if ci.high < 0 else "no significant change"
    assert row["verdict"] == expected
    # a class score of A is the ranking's own score of that configuration
    classes = {c.name: c for c in sweep_classes(ParquetStore(stores.one).get_sweep("old-array"))}
    scored = score_class(a, classes["data_file"]).set_index("config_key")
    same = next(
        r for r in doc["classes"] if r["class"] == "data_file" and r["config_a"] == r["config_b"]
    )
    assert same["a"] == pytest.approx(scored.loc[same["config_a"], "score"])
    assert same["a_lo"] == pytest.approx(scored.loc[same["config_a"], "score_lo"])
    # per class, the pairing of each sweep's recommended configuration is there
    assert {r["pairing"] for r in doc["classes"]} >= {
        "recommended for redo_log",
        "recommended for data_file",
        "same configuration",
    }


def test_a_sweep_against_itself_changes_nothing(stores: Stores) -> None:
    _, doc = _json("compare", "old-array", "old-array", "--store", stores.one)
    rows = doc["classes"] + doc["cells"]
    assert rows
    assert {r["verdict"] for r in rows} == {"no significant change"}
    assert all(abs(r["change_pct"]) < 1e-9 for r in rows)


def test_compare_text_names_the_significant_changes(stores: Stores) -> None:
    done = cli(
        "compare",
        "old-array",
        "new-array",
        "--store",
        stores.one,
        "--store-b",
        stores.two,
        "--config-a",
        RAID10,
        columns=200,
    )
    assert done.returncode == 0, done.stderr
    assert "per class" in done.stdout and "better" in done.stdout
    assert "recommended for" not in done.stdout  # --config-a: only the pair chosen


def test_compare_text_at_80_columns_stacks_its_rows_whole(stores: Stores) -> None:
    args = ("compare", "old-array", "new-array", "--store", stores.one, "--store-b", stores.two)
    wide = cli(*args, "--all", columns=200)
    narrow = cli(*args, "--all", columns=80)
    assert wide.returncode == narrow.returncode == 0, narrow.stderr
    assert max(len(line) for line in narrow.stdout.splitlines()) <= 80
    assert "change %" in narrow.stdout and "A (95% CI)" not in narrow.stdout  # stacked
    # every figure the wide table prints is in the stacked text, no word folded
    for name in ("randread/", "redo_log (IOPS)", "better"):
        assert name in wide.stdout and name in narrow.stdout
    # each figure with its unit, as the runs' tables head them; no change reads -0.0
    for out in (wide.stdout, narrow.stdout):
        assert "MB/s" in out and "p99 read ms" in out and "p99 write ms" in out
        assert " mbps" not in out and "read_lat_p99" not in out and "-0.0" not in out


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        (("old-array", "no-such-sweep"), "no sweep 'no-such-sweep'"),
        (("old-array", "after-firmware", "--config-a", "raid6/x"), "no runs of configuration"),
        (("old-array", "after-firmware", "--config-b", RAID10), "--config-b needs --config-a"),
        (
            ("old-array", "after-firmware", "--config-a", RAID10, "--config-b", ""),
            "has no runs of configuration ''",
        ),
        (("old-array", "new-array", "--store-b", "{{ x }}"), "--store-b"),
    ],
)
def test_compare_bad_input_exits_2(stores: Stores, args: tuple[str, ...], problem: str) -> None:
    done = cli("compare", *args, "--store", stores.one)
    assert done.returncode == 2, done.stdout + done.stderr
    assert problem in " ".join(done.stderr.split()), done.stderr
    assert "Traceback" not in done.stderr


def _gates_spec(stores: Stores, name: str, gates: dict) -> Path:
    """A spec file carrying ``gates`` (the new array's sweep spec, written after the sweep)."""
    folder = stores.folder / "gates" / name
    folder.mkdir(parents=True, exist_ok=True)
    return array_spec(folder, "new-array", profile="allflash-nvme", seed=7, acceptance=gates)


def _accept(stores: Stores, gates: dict, *extra: str | Path) -> tuple[int, dict]:
    spec = _gates_spec(stores, f"g{abs(hash(json.dumps(gates, sort_keys=True)))}", gates)
    return _json("accept", "new-array", "--store", stores.two, "--spec", spec, *extra)


def _interval(stores: Stores, cell: str, metric: str) -> tuple[float, float, float]:
    runs = _runs(stores.two, "new-array")
    stats_ = cell_statistics(runs[runs.config_key == RAID10], metric).set_index("cell_key")
    row = stats_.loc[cell]
    assert row.ci_lo < row["mean"] < row.ci_hi
    return float(row.ci_lo), float(row["mean"]), float(row.ci_hi)


def test_a_borderline_minimum_is_decided_by_the_interval(stores: Stores) -> None:
    """A minimum the mean clears but the interval straddles is undecided (exit 4), not a
    pass; below the interval it passes (exit 0), above it fails (exit 3)."""
    lo, mean, hi = _interval(stores, "randread/8k/qd1x16", "mbps")

    def gate(bound: float) -> dict:
        cell = {"cell": "randread/8k/qd1x16", "min_mbps": round(bound, 3)}
        return {"configuration": RAID10, "gates": [cell]}

    for bound, verdict in (
        ((lo + mean) / 2, "undecided"),
        (lo * 0.999, "pass"),
        (hi * 1.001, "fail"),
    ):
        status, doc = _accept(stores, gate(bound))
        assert doc["schema"] == "raidsweep.accept/1"
        assert [c["verdict"] for c in doc["checks"]] == [verdict], (bound, lo, mean, hi)
        assert doc["verdict"] == verdict and status == EXIT_STATUS[verdict]
        check = doc["checks"][0]
        assert (check["lo"], check["value"], check["hi"]) == pytest.approx((lo, mean, hi))


def test_a_borderline_latency_maximum_is_decided_by_the_interval(stores: Stores) -> None:
    lo, mean, hi = _interval(stores, "randread/8k/qd1x16", "read_lat_p99_ms")
    ms = lambda v: f"{v * 1000:.3f}us"  # noqa: E731
    for bound, verdict in (
        (ms((mean + hi) / 2), "undecided"),
        (ms(hi * 1.01), "pass"),
        (ms(lo * 0.99), "fail"),
    ):
        gates = {
            "configuration": RAID10,
            "gates": [{"cell": "randread/8k/qd1x16", "max_latency": {"read_lat_p99": bound}}],
        }
        status, doc = _accept(stores, gates)
        assert doc["verdict"] == verdict, (bound, lo, mean, hi)
        assert status == EXIT_STATUS[verdict]


def test_undecided_counts_below_a_failure(stores: Stores) -> None:
    lo, mean, hi = _interval(stores, "randread/8k/qd1x16", "mbps")
    straddles = {"cell": "randread/8k/qd1x16", "min_mbps": round((lo + mean) / 2, 3)}
    passes = {"cell": "randread/8k/qd1x16", "min_mbps": round(lo * 0.9, 3)}
    fails = {"cell": "randread/8k/qd1x16", "min_mbps": round(hi * 2, 3)}
    status, doc = _accept(stores, {"configuration": RAID10, "gates": [passes, straddles]})
    assert (status, doc["verdict"], doc["counts"]) == (
        4,
        "undecided",
        {"pass": 1, "fail": 0, "undecided": 1},
    )
    status, doc = _accept(stores, {"configuration": RAID10, "gates": [straddles, fails]})
    assert (status, doc["verdict"]) == (3, "fail")


def test_relative_gates_against_a_baseline_in_another_store(stores: Stores) -> None:
    """The new (flash) array against the old one: at least the old one's figures pass; the old
    array judged against the new one fails."""
    gates = {
        "baseline": {"sweep": "old-array", "tolerance_pct": 5},
        "gates": [{"class": "data_file", "min_iops": "baseline"}],
    }
    status, doc = _accept(stores, gates, "--baseline-store", stores.one)
    assert (status, doc["verdict"], doc["baseline"]) == (0, "pass", "old-array")
    check = doc["checks"][0]
    assert check["relative"] and check["lo"] > 0.95
    # the other way round: the old array does not reach the new one
    old_spec = stores.folder / "one" / "old-array.yaml"
    text = old_spec.read_text()
    reverse = stores.folder / "reverse.yaml"
    reverse.write_text(
        text
        + "acceptance:\n  baseline: {sweep: new-array}\n"
        + "  gates: [{class: data_file, min_iops: baseline}]\n"
    )
    done = cli(
        "accept",
        "old-array",
        "--store",
        stores.one,
        "--spec",
        reverse,
        "--baseline-store",
        stores.two,
        "--json",
    )
    assert done.returncode == 3, done.stderr
    assert json.loads(done.stdout)["verdict"] == "fail"


def test_the_report_carries_the_sweeps_own_verdict(stores: Stores, tmp_path: Path) -> None:
    status, doc = _json("accept", "after-firmware", "--store", stores.one)
    assert status == EXIT_STATUS[doc["verdict"]]
    assert doc["baseline"] == "old-array" and len(doc["checks"]) == 2
    out = tmp_path / "r.html"
    done = cli("report", "after-firmware", "--store", stores.one, "-o", out)
    assert done.returncode == 0, done.stderr
    html = out.read_text()
    assert '<h2 id="acceptance">Acceptance</h2>' in html
    assert f"Verdict: {doc['verdict'].upper()}" in html
    markdown = out.with_suffix(".md").read_text()
    assert "## Acceptance" in markdown and f"**Verdict: {doc['verdict'].upper()}**" in markdown
    # accept --report: the hand-over report with gates given after the sweep
    lo, mean, _ = _interval(stores, "randread/8k/qd1x16", "mbps")
    gates = {
        "configuration": RAID10,
        "gates": [{"cell": "randread/8k/qd1x16", "min_mbps": round(lo * 0.9, 3)}],
    }
    handover = tmp_path / "handover.html"
    status, _ = _accept(stores, gates, "--report", handover)
    assert status == 0
    assert "Verdict: PASS" in handover.read_text()


@pytest.mark.parametrize(
    ("gates", "problem"),
    [
        (
            {"gates": [{"class": "dss_scan", "min_iops": 5}]},
            "gates[0].class: 'dss_scan' is not one of",
        ),
        ({"gates": [{"cell": "read/1m/qd1x1", "min_iops": 5}]}, "not a cell the matrix measures"),
        ({"gates": [{"cell": "randread/8k/qd1x16", "min_iops": -5}]}, "gates[0].min_iops"),
        (
            {
                "baseline": {"sweep": "gone"},
                "gates": [{"class": "redo_log", "min_iops": "baseline"}],
            },
            "acceptance.baseline.sweep: no sweep 'gone'",
        ),
        (
            {"gates": [{"cell": "randread/8k/qd1x16", "min_iops": 5}]},
            "name acceptance.configuration",
        ),
        (
            {
                "configuration": RAID10,
                "gates": [{"cell": "write/4k/qd1x1/dsync", "max_latency": {"read_lat_p99": "1ms"}}],
            },
            "has no read_lat_p99",
        ),
    ],
)
def test_accept_bad_input_exits_2_writing_nothing(
    stores: Stores, tmp_path: Path, gates: dict, problem: str
) -> None:
    report = tmp_path / "r.html"
    spec = _gates_spec(stores, f"bad{abs(hash(problem))}", gates)
    done = cli("accept", "new-array", "--store", stores.two, "--spec", spec, "--report", report)
    assert done.returncode == 2, done.stdout + done.stderr
    assert problem in " ".join(done.stderr.split()), done.stderr
    assert "Traceback" not in done.stderr
    assert not report.exists() and list(tmp_path.iterdir()) == []


def test_accept_without_gates_and_run_with_bad_gates_exit_2(stores: Stores, tmp_path: Path) -> None:
    done = cli("accept", "new-array", "--store", stores.two)
    assert done.returncode == 2 and "no acceptance block" in done.stderr
    bad = array_spec(
        tmp_path, "bad-gates", acceptance={"gates": [{"class": "redo_log", "min_iops": -1}]}
    )
    store = tmp_path / "store"
    done = cli("run", bad, "--store", store)
    assert done.returncode == 2 and "acceptance.gates[0].min_iops" in done.stderr
    assert not store.exists() or not any(store.iterdir())


def test_the_compare_sweeps_page(stores: Stores, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAIDSWEEP_STORE", str(stores.one))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    at.sidebar.selectbox[0].set_value("after-firmware").run()
    at.switch_page("app_pages/compare_sweeps.py").run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.selectbox(key="compare_sweeps_a").value == "old-array"
    headers = [s.value for s in at.subheader]
    assert "Per class" in headers and "Per cell" in headers
    assert any(h.startswith("Acceptance: ") for h in headers), headers
    # across stores: sweep A from the new array's store
    at.text_input(key="compare_sweeps_store").set_value(str(stores.two)).run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.selectbox(key="compare_sweeps_a").value == "new-array"
    assert not at.error, [e.value for e in at.error]
    # this store named by its path (another spelling of it): B is never offered as its own A
    at.text_input(key="compare_sweeps_store").set_value(f"{stores.one}/.").run()
    assert "after-firmware" not in at.selectbox(key="compare_sweeps_a").options
    # a path that names no folder is said to be one
    at.text_input(key="compare_sweeps_store").set_value(str(stores.one) + "-typo").run()
    assert any("There is no folder" in i.value for i in at.info), [i.value for i in at.info]


def test_a_class_the_sweep_does_not_rank_is_named(stores: Stores) -> None:
    """A class checked only when the sweep is judged (a spec naming class files defers it)."""
    store = ParquetStore(stores.two)
    record = store.get_sweep("new-array")
    acceptance = Acceptance.model_validate({"gates": [{"class": "wal", "min_iops": 1}]})
    with pytest.raises(AcceptanceError) as info:
        verdict_for(store, record, acceptance)
    assert info.value.problems == [
        "acceptance.gates[0].class: 'wal' is not one of the sweep's classes (redo_log, data_file)"
    ]
