"""The Compare page's limits, driven headless with Streamlit's AppTest: the per-class table
counts the limits each configuration breaks (a data grid does not wrap, so a list there was
cut off, "randrw70/8k/c…", and two wide columns pushed "limits B" beyond the frame), and
under it every limit broken is listed whole, per class and side, the class's name as code
and the limit's words as text, never read as Markdown.

The store: a small sweep on the simulated array (RAID 5 and 10 on a single rank, random 4k
and 8k reads and writes) ranked by a class whose p99 read latency bound no disk array keeps
(every configuration breaks it on each read cell) and by one without limits."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest
import yaml
from markdown_it import MarkdownIt
from streamlit.testing.v1 import AppTest

from recommender import views
from recommender.data import load_recommendations
from sweeper.store import ParquetStore
from tests.support.apptest import open_app
from tests.support.specs import class_measuring, quick_base, write_spec
from tests.support.sweeps import sweep

SWEEP = "limits"
#: the class whose limit every configuration breaks, on several cells
TIGHT = "tight"
#: the class with no limit
ROOMY = "roomy"
A, B = "raid10/single_rank/wb-ra", "raid5/single_rank/wb-ra"
#: a class's name and a limit's words that are Markdown, LaTeX, a link, an icon and HTML
HOSTILE_CLASS = "**x** $a$ [click](http://192.0.2.1/) :material/warning: `tick` <b>b</b>"
HOSTILE_LIMIT = "# cell [go](http://192.0.2.1/): _x_ read_lat_p99 30 ms > 20 ms :red[r] <i>i</i>"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> ParquetStore:
    folder = tmp_path_factory.mktemp("compare-limits")
    spec = quick_base() | {"name": SWEEP, "description": "limits broken on several cells"}
    spec["config_space"] = {"raid_level": ["raid5", "raid10"], "layout": ["single_rank"]}
    spec["matrix"] |= {
        "patterns": ["randread", "randwrite"],
        "block_sizes": ["4k", "8k"],
        "concurrency": ["1x16"],
        "repetitions": 1,
    }
    spec["matrix"].pop("extra_cells", None)
    tight = Path(class_measuring(folder, spec["matrix"], name=TIGHT))
    wclass = yaml.safe_load(tight.read_text())
    wclass["limits"] = [{"metric": "read_lat_p99", "max": "1us"}]
    tight.write_text(yaml.safe_dump(wclass))
    spec["classes"] = [str(tight), class_measuring(folder, spec["matrix"], name=ROOMY)]
    store, outcome = sweep(write_spec(folder, spec, SWEEP), folder / "store")
    assert outcome.complete
    return store


@pytest.fixture(scope="module")
def broken(store: ParquetStore) -> dict[tuple[str, str], list[str]]:
    """Per (class, configuration) the limits it breaks, as the ranking words them."""
    out = {}
    for rec in load_recommendations(store, store.get_sweep(SWEEP)):
        for r in rec.ranked.itertuples(index=False):
            out[rec.name, r.config_key] = [] if r.meets_limits else r.violations.split("; ")
    return out


def _compare(monkeypatch: pytest.MonkeyPatch, root: Path) -> AppTest:
    """The Compare page, A and B chosen."""
    at = open_app(monkeypatch, root)
    at.switch_page("app_pages/compare.py").run()
    at.selectbox(key="compare_a").set_value(A).run()
    at.selectbox(key="compare_b").set_value(B).run()
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return at


def _inline(markdown: str) -> list[tuple[str, str]]:
    """What Markdown shows of ``markdown``: every inline piece as (type, text), in order."""
    tokens = MarkdownIt("commonmark").enable("strikethrough").parse(markdown)
    return [
        (child.type, child.content)
        for token in tokens
        if token.type == "inline"
        for child in token.children or []
    ]


def _shown_text(markdown: str) -> str:
    """The text Markdown shows of ``markdown`` (code spans as their text), a line per
    paragraph or list item, no word joiners."""
    tokens = MarkdownIt("commonmark").enable("strikethrough").parse(markdown)
    lines = ["".join(c.content for c in t.children or []) for t in tokens if t.type == "inline"]
    return "\n".join(lines).replace("\u2060", "")


def _heads(at: AppTest) -> list[int]:
    """Where the page's Markdown says "Limits broken", among its Markdown elements."""
    return [i for i, m in enumerate(at.markdown) if m.value.startswith("**Limits broken**")]


def _listed(at: AppTest) -> str:
    """The page's list of the limits broken: the Markdown right after its heading."""
    heads = _heads(at)
    assert len(heads) == 1, [m.value for m in at.markdown]
    listed = at.markdown[heads[0] + 1].value
    assert listed.startswith("- "), listed
    return listed


def test_the_table_counts_the_limits_each_side_breaks(monkeypatch, store, broken) -> None:
    """Each side's limits column is short: ``ok`` or how many it breaks (a grid would cut a
    list off), with a tooltip saying where the list is."""
    assert len(broken[TIGHT, A]) >= 2 and len(broken[TIGHT, B]) >= 2  # a list to cut off
    at = _compare(monkeypatch, store.root)
    scores = at.dataframe[0].value.set_index("class")
    for side, key in (("A", A), ("B", B)):
        assert scores.loc[TIGHT, f"limits {side}"] == f"{len(broken[TIGHT, key])} breaches"
        assert scores.loc[ROOMY, f"limits {side}"] == "ok"
        assert all(len(text) <= 12 for text in scores[f"limits {side}"]), scores
    config = at.dataframe[0].proto.columns
    assert "under the table" in config, config  # the tooltip names where the list is


def test_every_limit_broken_is_listed_whole_under_the_table(monkeypatch, store, broken) -> None:
    """Every limit A and B break, with its cell and figure, in a list that wraps: per class
    and side the count, then each limit on its own line."""
    at = _compare(monkeypatch, store.root)
    listed = _listed(at)
    shown = _shown_text(listed)
    for side, key in (("A", A), ("B", B)):
        limits = broken[TIGHT, key]
        assert f" — {side}, {len(limits)} breaches:" in shown, shown
        for limit in limits:
            assert re.search(r"\d\.?\d* ms > 0\.001 ms$", limit), limit  # the ranking's words
            assert limit in shown, (limit, shown)
    assert ROOMY not in shown  # a class without a limit broken is not listed


def test_two_configurations_keeping_every_limit_say_so(monkeypatch, store) -> None:
    """Without a limit broken, no list: a caption says that neither breaks one."""
    compare_scores = views.compare_scores

    def kept(*args: object) -> pd.DataFrame:
        return compare_scores(*args).assign(**{"limits A": "ok", "limits B": "ok"})

    monkeypatch.setattr(views, "compare_scores", kept)
    at = _compare(monkeypatch, store.root)
    assert set(at.dataframe[0].value["limits A"]) == {"ok"}
    assert not _heads(at)
    assert "Neither configuration breaks a limit of any class." in [c.value for c in at.caption]


def test_a_class_name_and_a_limits_words_are_shown_as_text(monkeypatch, store) -> None:
    """A class's name (typed by a user) is a code span showing itself, a limit's words are
    text alone: never bold, a formula, a link, an icon, a heading or HTML."""
    compare_scores = views.compare_scores

    def hostile(*args: object) -> pd.DataFrame:
        out = compare_scores(*args)
        out.loc[0, ["class", "limits A", "limits B"]] = [HOSTILE_CLASS, "ok", HOSTILE_LIMIT]
        return out

    monkeypatch.setattr(views, "compare_scores", hostile)
    at = _compare(monkeypatch, store.root)
    assert at.dataframe[0].value["limits B"].iloc[0] == "1 breach"
    pieces = _inline(_listed(at))
    assert {kind for kind, _ in pieces} <= {"text", "code_inline", "strong_open", "strong_close"}
    codes = [text for kind, text in pieces if kind == "code_inline"]
    assert codes[0].replace("\u2060", "") == HOSTILE_CLASS
    tokens = MarkdownIt("commonmark").parse(_listed(at))
    assert not [t.type for t in tokens if t.type.startswith("heading")]
    assert HOSTILE_LIMIT in _shown_text(_listed(at))
