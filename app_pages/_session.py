"""The pages' choices kept across pages in the session's state (``keep``, ``kept``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import streamlit as st

#: where the pages' choices are kept (``keep``): Streamlit forgets a widget's state in every
#: run that does not draw it, so without a copy under keys of the app's own a visit to another
#: page would lose the class, the row or the heatmap's settings chosen
KEPT_KEY = "kept_choices"

_NOTHING = object()


def keep(key: str, value: Any) -> Any:
    """Keep ``value``, the choice of the widget ``key``, for when its page is shown again;
    ``value`` returned."""
    st.session_state.setdefault(KEPT_KEY, {})[key] = value
    return value


def kept(key: str, default: Any = None) -> Any:
    """The choice kept for the widget ``key`` (``keep``), else ``default``."""
    return st.session_state.get(KEPT_KEY, {}).get(key, default)


def kept_index(key: str, options: Sequence[Any], default: int | None = 0) -> int | None:
    """The index to draw the widget ``key`` with: of the choice kept for it when that is still
    one of ``options``, else ``default``. Streamlit reads it only where it has forgotten the
    widget (its page was not shown in the last run): a widget with a key keeps its own state
    otherwise, whatever the index."""
    value = kept(key, _NOTHING)
    if value is _NOTHING:
        return default
    for i, option in enumerate(options):
        if option == value:
            return i
    return default
