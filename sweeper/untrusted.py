"""User text is data: checks every input path applies before a string reaches Ansible, fio, a
path or a report.

Ansible evaluates ``{{ … }}``, ``{% … %}`` and ``{# … #}`` in any string it is handed as a
variable unless the string is marked unsafe; raidsweep marks everything it passes (see
``sweeper.ansible``) and, as a second line, refuses template syntax in user strings when they
are validated, so ``--check`` and the real run act on the same, already-checked value.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from sweeper.vocabulary import NAME_RE

#: what starts a Jinja expression, statement or comment
TEMPLATE_MARKS = ("{{", "{%", "{#")
#: the bidirectional embeddings, overrides and isolates: a terminal or a page shows the text
#: after one in another order than it is (``a\u202egpj.exe`` reads as ``aexe.jpg``)
_BIDI = "\u202a-\u202e\u2066-\u2069"
#: control characters (a newline in a path would start a new line of a fio job file; an 8-bit
#: CSI, ``\x9b``, would colour a terminal), the bidirectional controls and marks: a path, a
#: device or a name shows as itself or not at all
_CONTROL = re.compile(f"[\\x00-\\x1f\\x7f-\\x9f\\u061c\\u200e\\u200f{_BIDI}]")


#: the one template an inventory may hold: the connection-local hosts' Python is the one that
#: runs Ansible (raidsweep's own environment, with the modules' libraries); a fixed expression
SANCTIONED = {"ansible_python_interpreter": "{{ ansible_playbook_python }}"}


def sanctioned(key: object, value: object) -> bool:
    """Whether ``key: value`` is the one fixed template an inventory may hold."""
    return isinstance(key, str) and SANCTIONED.get(key) == value


def template_problem(text: str) -> str | None:
    """Why ``text`` cannot be taken (it holds template syntax), or None."""
    for mark in TEMPLATE_MARKS:
        if mark in text:
            return (
                f"holds template syntax {mark!r}: raidsweep passes text to Ansible as data, "
                "never as a template"
            )
    return None


def control_problem(text: str) -> str | None:
    """Why ``text`` cannot name a path or a device (it holds a control character), or None."""
    m = _CONTROL.search(text)
    return None if m is None else f"holds the control character {m.group()!r}"


#: what free text (a description) may not hold: control characters but the line break and
#: the tab (ESC would colour a terminal, or make a link of OSC 8, where a report is read)
_TEXT_CONTROL = re.compile(f"[\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f{_BIDI}]")


def text_control_problem(text: str) -> str | None:
    """Why free text cannot be printed and written into reports as it is, or None."""
    m = _TEXT_CONTROL.search(text)
    return None if m is None else f"holds the control character {m.group()!r}"


def terminal_text(text: str) -> str:
    """``text`` as a terminal may show it: each control character but the line break and
    the tab, and each bidirectional control, written as its escape (``\\x1b``), so a user's
    text quoted in a message cannot colour, retitle or reorder the terminal."""
    return _TEXT_CONTROL.sub(lambda m: repr(m.group())[1:-1], text)


def is_name(text: Any) -> bool:
    """Whether ``text`` is a name that may become a file name (full match, at most 64)."""
    return isinstance(text, str) and NAME_RE.fullmatch(text) is not None


def strings(data: Any, loc: Sequence[str | int] = ()) -> Iterator[tuple[list[str | int], str]]:
    """Every string in nested mappings and lists (keys too), with its location."""
    if isinstance(data, str):
        yield list(loc), data
    elif isinstance(data, dict):
        for key, value in data.items():
            if isinstance(key, str):
                yield [*loc, key], key
            yield from strings(value, [*loc, key])
    elif isinstance(data, list | tuple):
        for i, value in enumerate(data):
            yield from strings(value, [*loc, i])


Problem = tuple[list[str | int], str]


def template_problems(data: Any, loc: Sequence[str | int] = ()) -> list[Problem]:
    """(location, problem) for every string in ``data`` that holds template syntax."""
    return [(where, p) for where, text in strings(data, loc) if (p := template_problem(text))]


def shown_text(value: str) -> str:
    """``value`` as it can be printed and written: the bytes of a name that is not UTF-8
    (which Python keeps as surrogate escapes) shown as ``\\xff``; UTF-8 text as it is, so
    ``shown_text(v) != v`` says that ``v`` is not UTF-8 text."""
    return os.fsencode(value).decode(errors="backslashreplace")


def path_problem(value: str) -> str | None:
    """Why a path given on the command line or in the environment cannot be used, or None."""
    problem = template_problem(value) or control_problem(value)
    return None if problem is None else f"{value!r} {problem}"


def folder_text_problem(value: str, what: str) -> str | None:
    """Why ``value`` (an environment variable's) cannot name the folder ``what`` from its text
    alone, or None: empty (an unset shell variable must not choose a folder), not UTF-8, or
    with template syntax or control characters (``path_problem``)."""
    if not value:
        return f"is empty: name the {what} (an absolute path), or unset it"
    if (shown := shown_text(value)) != value:
        return f"'{shown}' is not UTF-8 text: name the {what} in UTF-8"
    return path_problem(value)


#: what a spreadsheet takes as the start of a formula in a cell (OWASP: CSV injection)
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
#: what starts Markdown (GitHub's and Streamlit's) markup that could fetch, link, hide or
#: restyle: a link or an image (``[``, ``![``), an HTML tag or autolink (``<``), code,
#: emphasis (``*``; ``_`` where it can open or close, not inside a word such as
#: ``host_stripe``), strikethrough (``~``), a table cell, Streamlit's LaTeX (``$``) and its
#: directives (``:red[…]``: a ``:`` before a non-blank). With those escaped, the rest is text
_MARKDOWN = re.compile(r"([\\`*\[\]!|<$~]|(?<![^\W_])_|_(?![^\W_])|:(?=\S))")
#: an emoji or icon shortcode (``:rocket:``, ``:material/warning:``): Streamlit and GitHub
#: replace it in the text after the escapes are read, so an escape cannot keep it; a word
#: joiner (U+2060, invisible) after its first ``:`` does
_SHORTCODE = re.compile(r":(?=[\w+\-/]+:)")
#: a '>' that opens a line (after blanks): Markdown's block quote
_QUOTE_START = re.compile(r"^([ \t]*)>", re.MULTILINE)


def csv_cell(value: Any) -> Any:
    """A string that a spreadsheet would take as a formula, quoted with a leading ``'``;
    anything else (numbers too: -3 is a number) as it is."""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def markdown_text(text: str) -> str:
    """``text`` shown as itself in Markdown: every markup character escaped, so a
    description's ``![x](http://…)``, ``[x](http://…)``, ``<img …>``, ``_x_`` or
    ``:rocket:`` is text, never an image, a link, HTML, emphasis or an emoji. A bare address
    (``https://x.example``, ``a@b.example``) stays a link to itself: Streamlit and GitHub
    link it in the text, and what it shows is where it goes."""
    return _MARKDOWN.sub(r"\\\1", _SHORTCODE.sub(":\u2060", text))


#: a run of backticks, and a line break: what a code span must be built around
_BACKTICKS = re.compile(r"`+")
_LINE_BREAKS = re.compile(r"[\r\n]+")
#: what Streamlit rewrites in the whole Markdown source before reading it, code spans too
#: (``:material/x:``, its icons' name, to ``:material_x:``): a word joiner (U+2060,
#: invisible) after the ':' keeps the text as it is
_STREAMLIT_ICON = ":material/"
_ICON_KEPT = ":\u2060material/"


def markdown_code(text: str) -> str:
    """``text`` as an inline code span of Markdown that shows it as itself, whatever it holds
    (a path, a key, a value typed): nothing in a code span is read as Markdown or HTML, but a
    backtick in ``text`` would end a plain `…` early and let the rest render (a link, LaTeX
    between two ``$``). So the fence is one backtick longer than the longest run inside
    (CommonMark), padded with a blank where the text starts or ends with a backtick or a blank
    (Markdown takes one off each side, unless the text is all blanks); a line break (which
    could open a heading or end the span's paragraph) reads as a space, and Streamlit's
    ``:material/`` keeps its '/' (an invisible word joiner after its ':'). Empty text is no
    span at all: ``""``."""
    one_line = _LINE_BREAKS.sub(" ", text).replace(_STREAMLIT_ICON, _ICON_KEPT)
    if not one_line:
        return ""
    fence = "`" * (max((len(m) for m in _BACKTICKS.findall(one_line)), default=0) + 1)
    edges = one_line[:1] + one_line[-1:]
    pad = " " if one_line.strip(" ") and ("`" in edges or " " in edges) else ""
    return f"{fence}{pad}{one_line}{pad}{fence}"


def markdown_html_text(text: str) -> str:
    """``text`` for a Markdown file that may be rendered anywhere: what could start HTML
    escaped (``<img`` is ``&lt;img``, ``&`` is ``&amp;``; a ``>`` alone opens nothing and
    stays readable: ``29 ms > 20 ms``) and Markdown's markup escaped."""
    escaped = markdown_text(text.replace("&", "&amp;").replace("<", "&lt;"))
    # a '>' opening a line would open a block quote: escaped there, left readable elsewhere
    return _QUOTE_START.sub(r"\1\\>", escaped)


#: what opens a block where a line starts: a heading, a list item, a setext underline or a
#: thematic break, a block quote, an ordered list's number and its '.' or ')'
_BLOCK_START = re.compile(r"^(?:([#=+>-])|(\d+)([.)]))")


def _one_line(text: str, escape: Callable[[str], str]) -> str:
    escaped = escape(" ".join(text.split()))
    return _BLOCK_START.sub(
        lambda m: f"\\{m.group(1)}" if m.group(1) else f"{m.group(2)}\\{m.group(3)}", escaped
    )


def markdown_prose(text: str) -> str:
    """Free text (a description) as one line of Markdown showing itself: its line breaks and
    runs of blanks become one space, so that no line of it starts a block (a heading, a list,
    a code block), and what would open one at its start is escaped; then ``markdown_text``.
    A description adds no heading or section to what it is shown in."""
    return _one_line(text, markdown_text)


def markdown_html_prose(text: str) -> str:
    """``markdown_prose`` for a Markdown file that may be rendered anywhere
    (``markdown_html_text``)."""
    return _one_line(text, markdown_html_text)
