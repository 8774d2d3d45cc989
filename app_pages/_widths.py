"""How wide the app's text is drawn, so that a table's header and a select box's choice are
sized to be read whole: both are Streamlit's 14 px Source Sans (a table's header on the grid's
canvas, a choice in the select box's input), and neither wraps. A header that does not fit is
clipped at its column's edge (``score (IOPS`` for ``score (IOPS)``), a choice that does not fit
is cut at the box's arrow (``randr`` for ``randread``).

The advances are those Chromium gives the font (``tests/test_app_browser_leftovers.py`` checks
them against the browser), each rounded up to half a pixel: a text is never wider than said.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

#: per character, its advance in 14 px Source Sans (px, rounded up to 0.5)
_ADVANCE: dict[str, float] = {
    ch: px
    for px, chars in (
        (3.0, " "),
        (3.5, "',.:;ij|·"),
        (4.0, "Il"),
        (4.5, "!()-[]f{}"),
        (5.0, "/\\rt"),
        (6.0, '"*?sz'),
        (6.5, "cx"),
        (7.0, "0123456789#$+<=>FJLY^_ekvy~"),
        (7.5, "ESVXag"),
        (8.0, "ACPRTZ`bdhnopqu"),
        (8.5, "BK"),
        (9.0, "&DG"),
        (9.5, "HNOQU"),
        (10.5, "Mw"),
        (11.5, "W"),
        (12.0, "%@m"),
    )
    for ch in chars
}
#: a character not in the table (…, ×, ≤, ¹²): as wide as the widest letters
_OTHER_PX = 12.0
#: a table cell's padding on each side (the grid's ``cellHorizontalPadding``): a header is
#: drawn from its left padding and clipped at its column's right edge
CELL_PADDING_PX = 8
#: room kept after a header's text, for a browser that draws the font a little wider
HEADER_SPARE_PX = 4
#: what a select box draws beside its choice: the input's padding (8 px a side), the arrow
#: button and the box's border (34.3 px), rounded up
SELECT_CHROME_PX = 52
#: a select box's label sits above it, with a help icon after it where the box has help
HELP_ICON_PX = 22


def text_px(text: str) -> float:
    """The width of ``text`` in 14 px Source Sans, at most (px)."""
    return sum(_ADVANCE.get(ch, _OTHER_PX) for ch in text)


def header_px(label: str, at_least: int = 0) -> int:
    """A table column's width (px) that shows its header ``label`` whole after the grid's
    padding, with HEADER_SPARE_PX to spare; ``at_least`` where the column's figures want
    more."""
    return max(at_least, math.ceil(text_px(label) + CELL_PADDING_PX + HEADER_SPARE_PX))


def choice_px(label: str, options: Iterable[str], *, help_icon: bool = False) -> int:
    """A select box's width (px) that shows each of ``options`` (as the box writes them)
    whole, and its ``label`` above it on one line."""
    widest = max((text_px(str(o)) for o in options), default=0.0)
    heading = text_px(label) + (HELP_ICON_PX if help_icon else 0)
    return math.ceil(max(widest + SELECT_CHROME_PX, heading))
