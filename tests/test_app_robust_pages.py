"""The app's Run details, Operator, Compare, Curves and Compare sweeps pages on what the store
and the operator give them, driven headless with Streamlit's AppTest: a failed run's error
shown as the tool wrote it and its missing figures as "—", a flash array's sub-millisecond
latencies to their precision, a choice that follows a switch of the sweep, a damaged run
file named, and pages opened on a sweep that runs following it as it writes.

The store: two small sweeps on the simulated all-flash array (curves of three concurrencies;
the second of other configurations), and a third made from the first whose runs failed with
an error full of Markdown.
"""

from __future__ import annotations

import json
import os
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from recommender.views import metric_text
from recommender.views.markdown import figure
from recommender.views.shading import cell_order_key
from sweeper import operator_room as operator
from sweeper.platforms import manual
from sweeper.store import ParquetStore
from sweeper.untrusted import markdown_code, markdown_prose
from tests.support.apptest import open_app
from tests.support.specs import class_measuring, one_cell_sim, write_spec
from tests.support.sweeps import copy_store, sweep
from tests.test_app_readable import _shown

#: two sweeps on the simulated all-flash array, of other configurations
CURVES_A, CURVES_B = "curvea", "curveb"
#: a sweep made of CURVES_A's runs, all failed but one that measured 0; older than both, and
#: first in the store's folder order
BROKEN = "broken"
#: what a failed run's tool said: Markdown, LaTeX between two `$`, a link, an icon, a fence
HOSTILE = (
    "TASK [fio] *** fatal: **boom** $HOME is $a$ and $b$ [click](http://evil.example) "
    ":material/warning: :red[red] _x_ ~~gone~~ <b>bold</b>\n```\n# not a heading\n`tick`"
)
#: a figure a failed run has none of
FIGURES = ("iops", "mbps", "read_iops", "write_iops", "read_mbps", "write_mbps")


def _flash_spec(folder: Path, name: str, levels: list[str]) -> Path:
    """Single ranks of the RAID ``levels`` on the simulated all-flash array (latencies of a
    tenth of a millisecond), 4k random reads at three concurrencies (a curve), once."""
    spec = one_cell_sim(name, levels)
    spec["platform_options"] = {"profile": "allflash-nvme"}
    spec["matrix"] |= {"block_sizes": ["4k"], "concurrency": ["1x1", "1x4", "1x16"]}
    spec["classes"] = [class_measuring(folder, spec["matrix"], name=f"{name}-class")]
    return write_spec(folder, spec, name)


def _failed(row: dict[str, Any]) -> dict[str, Any]:
    """The run as a failed attempt whose tool said HOSTILE."""
    gone = {k: None for k in row if k in FIGURES or k.endswith("_ms")}
    return row | gone | {"status": "failed", "error": HOSTILE, "telemetry_flag": HOSTILE}


def _measured_zero(row: dict[str, Any]) -> dict[str, Any]:
    """The run as a good one that measured nothing: every figure a real 0."""
    zeros = {k: 0.0 for k in row if (k in FIGURES or k.endswith("_ms")) and row[k] is not None}
    return row | zeros


def _broken_sweep(store: ParquetStore) -> None:
    """BROKEN: CURVES_A's runs again, each failed but the first, which measured 0."""
    record = store.get_sweep(CURVES_A) or {}
    record = record | {"sweep_id": BROKEN, "created_at": "2000-01-01T00:00:00+00:00"}
    record["spec"] = record["spec"] | {"name": BROKEN}
    store.create_sweep(BROKEN, record)
    for i, run_id in enumerate(sorted(store.runs(CURVES_A)["run_id"])):
        row = (store.run_detail(run_id) or {}) | {"sweep_id": BROKEN, "tool_version": HOSTILE}
        store.put_run(_measured_zero(row) if i == 0 else _failed(row))
    store.write_progress(BROKEN, store.read_progress(CURVES_A) or {})


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> ParquetStore:
    store = two_flash_sweeps(tmp_path_factory.mktemp("robust-pages"))
    _broken_sweep(store)
    return store


def two_flash_sweeps(folder: Path) -> ParquetStore:
    """A store in ``folder`` with two finished sweeps on the all-flash profile: CURVES_A
    (RAID 5 and 10) and CURVES_B (RAID 6)."""
    store = ParquetStore(folder / "store")
    for name, levels in ((CURVES_A, ["raid5", "raid10"]), (CURVES_B, ["raid6"])):
        _, outcome = sweep(_flash_spec(folder, name, levels), store.root)
        assert outcome.complete
    return store


def _page(at: AppTest, name: str, sweep_id: str | None = None) -> AppTest:
    """The page ``name`` on the sweep ``sweep_id`` (the sidebar's own choice without it)."""
    if sweep_id is not None:
        at.selectbox(key="sweep").set_value(sweep_id).run()
    at.switch_page(f"app_pages/{name}.py").run()
    return _no_traceback(at)


def _no_traceback(at: AppTest) -> AppTest:
    assert not at.exception, [e.message for e in at.exception]
    return at


def _metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def _pick_run(at: AppTest, run_id: str) -> AppTest:
    """Run details on ``run_id``, chosen as a heatmap cell's runs choose it."""
    at.session_state["run_pick"] = run_id
    return _no_traceback(at.run())


def _is_live(at: AppTest) -> bool:
    return any(c.value.startswith("Live:") for c in at.caption)


def _broken_runs(store: ParquetStore) -> tuple[str, str]:
    """A run of BROKEN that measured 0, and one that failed."""
    attempts = store.runs(BROKEN, include_failed=True)
    ok = attempts["status"] == "ok"
    return attempts.loc[ok, "run_id"].iloc[0], attempts.loc[~ok, "run_id"].iloc[0]


# a failed run, and text typed ----------------------------------------------------------------
def test_a_failed_runs_error_reads_as_the_tool_wrote_it(
    monkeypatch: pytest.MonkeyPatch, pristine: ParquetStore
) -> None:
    at = _page(open_app(monkeypatch, pristine.root), "run_details", BROKEN)
    _pick_run(at, _broken_runs(pristine)[1])
    assert any(e.value.startswith("The run failed") for e in at.error)
    assert [c.value for c in at.code][0] == HOSTILE
    assert not [e.value for e in at.error if "boom" in e.value]  # never as Markdown
    flag = [w.value for w in at.warning if w.value.startswith("Telemetry flag: ")]
    assert flag == [f"Telemetry flag: {markdown_prose(HOSTILE)}"]
    tool = next(c.value for c in at.caption if c.value.startswith("Run id "))
    assert tool.endswith(markdown_prose(f"raidsweep-sim {HOSTILE}")), tool


def test_a_failed_runs_missing_figures_read_as_a_dash(
    monkeypatch: pytest.MonkeyPatch, pristine: ParquetStore
) -> None:
    """ "—" where the run has no figure; a real 0 stays 0."""
    at = _page(open_app(monkeypatch, pristine.root), "run_details", BROKEN)
    zero, failed = _broken_runs(pristine)
    shown = _metrics(_pick_run(at, failed))
    assert shown["Status"] == "failed"
    assert [shown[k] for k in ("IOPS", "MB/s", "p99 latency (ms)")] == ["—"] * 3
    shown = _metrics(_pick_run(at, zero))
    assert shown["Status"] == "ok"
    assert [shown[k] for k in ("IOPS", "MB/s", "p99 latency (ms)")] == ["0", "0", "0"]


def test_a_runs_figures_read_as_every_page_writes_them(
    monkeypatch: pytest.MonkeyPatch, pristine: ParquetStore
) -> None:
    """Run details wrote IOPS whole (435) where the Curves run list wrote 435.4: both now
    write a measured figure as ``recommender.figures.figure`` does."""
    runs = pristine.runs(CURVES_A)
    small = runs[runs["iops"] < 1000]
    chosen = small.iloc[0] if len(small) else runs.iloc[0]
    at = _page(open_app(monkeypatch, pristine.root), "run_details", CURVES_A)
    shown = _metrics(_pick_run(at, str(chosen["run_id"])))
    assert shown["IOPS"] == figure(chosen["iops"]), shown
    assert shown["MB/s"] == figure(chosen["mbps"]), shown


def test_a_typed_run_id_is_quoted_as_typed(
    monkeypatch: pytest.MonkeyPatch, pristine: ParquetStore
) -> None:
    at = _page(open_app(monkeypatch, pristine.root), "run_details", CURVES_A)
    typed = "`**x**` $a$ [click](http://evil.example)"
    at.text_input(key="run_id").set_value(typed).run()
    (error,) = [e.value for e in _no_traceback(at).error]
    assert error.startswith(f"{markdown_code(typed)} is not a run id"), error


# figures as the CLI writes them --------------------------------------------------------------
def test_compare_writes_figures_as_the_cli_does(
    monkeypatch: pytest.MonkeyPatch, pristine: ParquetStore
) -> None:
    """A flash array's p99 of 0.1015 ms reads 0.102 (``format_ms``), not 0.10; a score of
    tens of thousands is grouped (``figure``), and the class metric reads IOPS."""
    at = _page(open_app(monkeypatch, pristine.root), "compare", CURVES_A)
    scores, shown = at.dataframe[0].value, _shown(at, 0)
    assert list(shown["metric"]) == ["IOPS"]
    for side in ("score A", "score B"):
        assert list(shown[side]) == [figure(v) for v in scores[side]]
        assert all("," in text for text in shown[side])  # the all-flash array: > 1,000 IOPS
    at.radio(key="compare_metric").set_value("p99 read ms").run()
    cells, shown = _no_traceback(at).dataframe[1].value, _shown(at, 1)
    for side in ("A", "B"):
        assert list(shown[side]) == [metric_text("read_lat_p99_ms", v) for v in cells[side]]
    assert any(v < 1 and metric_text("read_lat_p99_ms", v) != f"{v:.2f}" for v in cells["A"])


# Curves: the choice across sweeps, the runs in order -----------------------------------------
def test_curves_keep_configurations_chosen_across_sweeps(
    monkeypatch: pytest.MonkeyPatch, pristine: ParquetStore
) -> None:
    configs_a = sorted(pristine.runs(CURVES_A)["config_key"].unique())
    configs_b = sorted(pristine.runs(CURVES_B)["config_key"].unique())
    at = _page(open_app(monkeypatch, pristine.root), "curves", CURVES_A)
    assert sorted(at.multiselect(key="curve_configs").value) == configs_a
    at.multiselect(key="curve_configs").set_value(configs_a[:1]).run()
    # another sweep opens on its own configurations, and this one again on its choice
    for sweep_id, configs in ((CURVES_B, configs_b), (CURVES_A, configs_a[:1])):
        at.selectbox(key="sweep").set_value(sweep_id).run()
        _no_traceback(at)
        assert sorted(at.multiselect(key="curve_configs").value) == configs, sweep_id
        assert not [i.value for i in at.info if "Choose one" in i.value]
    # within one sweep, the choice made stands
    at.multiselect(key="curve_configs").set_value(configs_a[1:]).run()
    assert _no_traceback(at).multiselect(key="curve_configs").value == configs_a[1:]
    at.multiselect(key="curve_configs").set_value([]).run()
    assert _no_traceback(at).multiselect(key="curve_configs").value == []
    assert [i.value for i in at.info] == ["Choose one or more configurations."]


def test_curves_list_runs_by_concurrency_as_numbers(
    monkeypatch: pytest.MonkeyPatch, pristine: ParquetStore
) -> None:
    at = _page(open_app(monkeypatch, pristine.root), "curves", CURVES_A)
    listed = at.dataframe[-1].value
    for _, runs in listed.groupby("configuration", sort=False):
        cells = list(runs["cell"])
        assert cells == sorted(cells, key=cell_order_key) != sorted(cells), cells


# Run details after a switch of the sweep -----------------------------------------------------
def test_run_details_forgets_another_sweeps_run(
    monkeypatch: pytest.MonkeyPatch, pristine: ParquetStore
) -> None:
    at = _page(open_app(monkeypatch, pristine.root), "run_details", CURVES_A)
    _pick_run(at, pristine.runs(CURVES_A)["run_id"].iloc[0])
    at.selectbox(key="sweep").set_value(CURVES_B).run()
    _no_traceback(at)
    assert at.header[0].value.endswith(f"sweep {CURVES_B}")
    assert not at.warning, [w.value for w in at.warning]
    assert at.query_params["sweep"] == CURVES_B
    assert at.query_params["run"] in set(pristine.runs(CURVES_B)["run_id"])
    assert "raid6" in at.subheader[0].value


# a damaged run file --------------------------------------------------------------------------
def test_a_damaged_run_file_is_named_not_a_traceback(
    monkeypatch: pytest.MonkeyPatch, pristine: ParquetStore, tmp_path: Path
) -> None:
    root = copy_store(pristine.root, tmp_path)
    run_id = pristine.runs(CURVES_A)["run_id"].iloc[0]
    (damaged,) = (root / CURVES_A / "runs").glob(f"*/{run_id}.parquet")
    damaged.write_bytes(b"not a Parquet file")
    at = _page(open_app(monkeypatch, root), "run_details", CURVES_A)
    _pick_run(at, run_id)
    assert any(f"Run {run_id} cannot be read" in e.value for e in at.error)
    assert any(str(damaged) in c.value for c in at.code)


# pages opened while a sweep runs -------------------------------------------------------------
def running_copy(
    pristine: ParquetStore, folder: Path, running: str = CURVES_A, *others: str
) -> tuple[Path, Path]:
    """A copy of the sweep ``running`` (and of ``others``, as they are) in which it runs
    (this process stands in for its sweeper) and has stored no run yet; its runs are held in
    the second folder returned."""
    root = folder / "store"
    for name in (running, *others):
        shutil.copytree(pristine.root / name, root / name)
    progress = pristine.read_progress(running) or {}
    ParquetStore(root).write_progress(running, progress | {"state": "running", "pid": os.getpid()})
    held = folder / "held"
    shutil.move(root / running / "runs", held)
    return root, held


@pytest.mark.parametrize(
    ("page", "chooser"),
    [("curves", "curve_configs"), ("compare", "compare_a"), ("run_details", "run_config")],
)
def test_a_page_opened_before_the_first_run_follows_the_sweep(
    monkeypatch: pytest.MonkeyPatch,
    pristine: ParquetStore,
    tmp_path: Path,
    page: str,
    chooser: str,
) -> None:
    """No runs yet: said in the part of the page that refreshes, whose choices appear once
    runs land."""
    root, held = running_copy(pristine, tmp_path)
    at = _page(open_app(monkeypatch, root), page)
    assert at.info and _is_live(at), [i.value for i in at.info]
    shutil.move(held, root / CURVES_A / "runs")
    _no_traceback(at.run())
    widgets = at.multiselect if page == "curves" else at.selectbox
    assert _is_live(at) and chooser in [w.key for w in widgets]


def _manual(pristine: ParquetStore, folder: Path) -> tuple[Path, Path]:
    """CURVES_A as a manual sweep that runs and waits for no one yet; its store and the
    operator's room of its array."""
    root, _ = running_copy(pristine, folder)
    path = root / CURVES_A / "sweep.json"
    record = json.loads(path.read_text())
    record["spec"]["platform"] = "manual"
    path.write_text(json.dumps(record))
    return root, operator.room(root / CURVES_A / "array")


def test_the_operator_page_follows_a_wait_as_it_starts_and_ends(
    monkeypatch: pytest.MonkeyPatch, pristine: ParquetStore, tmp_path: Path
) -> None:
    root, room = _manual(pristine, tmp_path)
    at = _page(open_app(monkeypatch, root), "operator")
    assert _is_live(at) and [s.value for s in at.success] == [
        "The sweep is not waiting for the operator."
    ]
    key = "raid5/single_rank/wb-ra"
    waiting = operator.Waiting(
        key, 1, 2, ["build one RAID 5 rank", HOSTILE], datetime.now(UTC).isoformat(), [HOSTILE]
    )
    operator.post(room, waiting)
    _no_traceback(at.run())
    assert _is_live(at) and at.subheader[0].value == markdown_prose(waiting.headline)
    assert any(f"- {markdown_prose(HOSTILE)}" in m.value for m in at.markdown)
    assert [w.value for w in at.warning] == [f"Refused: {markdown_prose(HOSTILE)}"]
    operator.clear(room)
    _no_traceback(at.run())
    assert [s.value for s in at.success] == ["The sweep is not waiting for the operator."]


def test_the_operators_answer_is_shown_as_typed(
    monkeypatch: pytest.MonkeyPatch, pristine: ParquetStore, tmp_path: Path
) -> None:
    """The LUN typed and the sweep's refusal of it, as text; kept while the page refreshes."""
    root, room = _manual(pristine, tmp_path)
    key, target = "raid5/single_rank/wb-ra", "/dev/disk/by-id/`x` $a$ and $b$ **lun**"
    waiting = operator.Waiting(key, 1, 2, ["build one RAID 5 rank"], "now")
    operator.post(room, waiting)
    answers: list[str] = []

    def answer(*args: Any) -> tuple[operator.Waiting, list[tuple[str, str]]]:
        answers.append(args[3])
        return waiting, [("target", f"{args[3]!r} is mounted")] if len(answers) == 1 else []

    monkeypatch.setattr(manual, "answer_waiting_sweep", answer)
    at = _page(open_app(monkeypatch, root), "operator")
    submit = next(b for b in at.button if b.label == "Built: measure it")
    at.text_input(key="op_target").set_value(target)
    submit.click().run()
    refused = [e.value for e in _no_traceback(at).error]
    assert refused == [markdown_prose(f"target: {target!r} is mounted")]
    _no_traceback(at.run())  # a refresh keeps it
    assert [e.value for e in at.error] == refused
    next(b for b in at.button if b.label == "Built: measure it").click().run()
    said = markdown_prose(f"{key} on {target} as soon as it sees this.")
    assert [s.value for s in _no_traceback(at).success] == [f"Answered: the sweep measures {said}"]
    assert answers == [target, target] and not at.error
    operator.clear(room)  # the sweep took the answer: it is still said
    _no_traceback(at.run())
    assert [s.value for s in at.success] == [
        "The sweep is not waiting for the operator.",
        f"Answered: the sweep measures {said}",
    ]


# Compare sweeps, and a store's path ----------------------------------------------------------
def test_compare_sweeps_offers_the_newest_first_and_quotes_a_path_whole(
    monkeypatch: pytest.MonkeyPatch, pristine: ParquetStore
) -> None:
    at = _page(open_app(monkeypatch, pristine.root), "compare_sweeps", CURVES_B)
    assert at.selectbox(key="compare_sweeps_a").options == [CURVES_A, BROKEN]
    typed = "/nonexistent/`**b**` $a$ and $b$"
    at.text_input(key="compare_sweeps_store").set_value(typed).run()
    said = [i.value for i in _no_traceback(at).info]
    assert any(markdown_code(str(Path(typed))) in i for i in said), said


def test_a_store_path_is_quoted_whole(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = tmp_path / "no`such` $a$ and $b$"
    at = open_app(monkeypatch, root)
    said = " ".join(i.value for i in at.info)
    assert f"There is no folder {markdown_code(str(root.resolve()))}:" in said, said


def test_a_code_span_shows_its_text_whatever_it_holds() -> None:
    assert markdown_code("raid5/single_rank") == "`raid5/single_rank`"
    assert markdown_code("a`b") == "``a`b``"
    assert markdown_code("`a``") == "``` `a`` ```"
    assert markdown_code("two\nlines") == "`two lines`"
    assert markdown_code("") == ""
