"""The raidsweep browser app: ``streamlit run app.py`` (store folder from RAIDSWEEP_STORE)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
if str(ROOT) not in sys.path:  # started as `streamlit run /abs/path/app.py` from anywhere
    sys.path.insert(0, str(ROOT))

import streamlit as st  # noqa: E402

from app_pages import _common  # noqa: E402
from recommender import views  # noqa: E402
from recommender.views.times import time_text  # noqa: E402
from sweeper.untrusted import markdown_prose, markdown_text  # noqa: E402

# An emoji favicon is drawn in the page (a data: URL); a page's Material icon would be fetched
# from fonts.gstatic.com, and the app loads nothing from outside the machine.
st.set_page_config(page_title="raidsweep", page_icon="💽", layout="wide")

store = _common.get_store()
ids = _common.sweep_ids(store.list_sweeps())
damaged = list(getattr(store, "damaged", []))  # sweeps whose record is damaged: said, unused
# The address names the sweep (?sweep=<id>, on every page): a link or a reload opens that one,
# once per address followed, so that the sidebar can still change it; a sweep the store does
# not hold is said to be so, never replaced by another silently.
_common.sweep_from_address(ids, damaged)

with st.sidebar:
    st.title("raidsweep")
    if ids:
        sweep_id = st.selectbox(
            "Sweep", ids, key=_common.SWEEP_KEY, help="Newest first", placeholder="Choose a sweep"
        )
        record = (store.get_sweep(sweep_id) if sweep_id else None) or {}
        if record and _common.record_damage(store, record) is None:
            created = record.get("created_at", "?")
            st.caption(
                f"{markdown_prose(record.get('description', ''))}  \n"
                f"platform {record.get('platform', '?')} · "
                # in UTC, the zone named, as the CLI and the report write a time
                f"created {time_text(created) or markdown_prose(str(created))}"
            )
    elif not damaged:
        st.caption("No sweeps yet.")
    for problem in damaged:
        st.warning(markdown_text(problem), icon=":material/report:")  # it quotes file names
    st.caption(f"Store: {markdown_text(str(store.root.resolve()))}")
    with st.expander("Glossary", icon=":material/menu_book:"):
        st.markdown(views.glossary_markdown())

page = st.navigation(
    [
        st.Page(
            "app_pages/overview.py", title="Overview", icon=":material/monitoring:", default=True
        ),
        st.Page(
            "app_pages/recommendations.py", title="Recommendations", icon=":material/recommend:"
        ),
        st.Page("app_pages/heatmaps.py", title="Heatmaps", icon=":material/grid_on:"),
        st.Page("app_pages/curves.py", title="Curves", icon=":material/show_chart:"),
        st.Page("app_pages/compare.py", title="Compare", icon=":material/compare_arrows:"),
        st.Page(
            "app_pages/compare_sweeps.py", title="Compare sweeps", icon=":material/difference:"
        ),
        st.Page("app_pages/run_details.py", title="Run details", icon=":material/description:"),
        st.Page("app_pages/what_matters.py", title="What matters", icon=":material/insights:"),
        st.Page("app_pages/operator.py", title="Operator", icon=":material/construction:"),
    ]
)
_common.sweep_in_address()
# The files of the sweep the page's reads left out (damaged), said at the top of the page once
# the page has read what it shows (a page that stops early has still read them); a placeholder
# takes no room on a page that has nothing to say there.
left_out = st.empty()
try:
    page.run()
finally:
    _common.say_left_out(left_out)
