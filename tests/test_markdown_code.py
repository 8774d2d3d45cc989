"""User text quoted as code (``markdown_code``): one inline code span whose content is the
text itself, whatever it holds, as a CommonMark parser (markdown-it-py, which rich ships)
reads it, and nothing that Streamlit rewrites before it reads Markdown (``:material/``, made
``:material_`` even in code); and the run id problem the app shows quotes the typed text
that way."""

from __future__ import annotations

import pytest
from markdown_it import MarkdownIt

from recommender import views
from sweeper.untrusted import markdown_code

#: GitHub's and Streamlit's Markdown: CommonMark with tables and strikethrough
PARSER = MarkdownIt("commonmark").enable(["table", "strikethrough"])

HOSTILE = [
    "raid5/single_rank",
    "a`b",
    "`starts with a tick",
    "ends with a tick`",
    "``two`` and ```three``` ticks",
    "` `",
    " blank first",
    "blank last ",
    "   ",
    "**bold** _em_ ~~gone~~ $a$ and $b$",
    "[click](http://192.0.2.1/) ![x](http://192.0.2.1/x.png) <http://192.0.2.1/>",
    "<img src=x onerror=alert(1)> <b>bold</b> &amp; \\` \\",
    ":red[red] :rocket: :material/warning: | a | b |",
    "# not a heading",
    "```",
]


#: what Streamlit replaces in a Markdown source, code spans too, before it reads it
STREAMLIT_REWRITES = (":material/",)


def _inline(markdown: str) -> list[tuple[str, str]]:
    """The inline tokens of ``markdown``, which must be one paragraph, as (type, content),
    the content as shown (invisible word joiners left out)."""
    assert not [r for r in STREAMLIT_REWRITES if r in markdown], markdown
    tokens = PARSER.parse(markdown)
    assert [t.type for t in tokens] == ["paragraph_open", "inline", "paragraph_close"], markdown
    return [(c.type, c.content.replace("\u2060", "")) for c in tokens[1].children or []]


@pytest.mark.parametrize("text", HOSTILE)
def test_text_is_one_code_span_of_itself(text: str) -> None:
    quoted = markdown_code(text)
    assert _inline(f"Sweep {quoted} here.") == [
        ("text", "Sweep "),
        ("code_inline", text),
        ("text", " here."),
    ], quoted


@pytest.mark.parametrize("text", ["two\nlines", "# one\n## two\r\n- three\r\rfour", "\n"])
def test_a_line_break_reads_as_a_blank(text: str) -> None:
    """One line, so that nothing of the text opens a block or ends the paragraph."""
    quoted = markdown_code(text)
    assert "\n" not in quoted and "\r" not in quoted
    ((kind, content),) = _inline(quoted)
    assert kind == "code_inline" and content.split() == text.split(), quoted


def test_empty_text_is_no_span() -> None:
    assert markdown_code("") == ""


@pytest.mark.parametrize("typed", [t for t in HOSTILE if t.strip()])
def test_the_run_id_problem_quotes_the_typed_text_as_itself(typed: str) -> None:
    problem = views.run_id_problem(typed)
    assert problem is not None
    shown = _inline(problem)
    assert shown[0] == ("code_inline", typed), problem
    # the rest is the message's own words: text and its own code span, nothing else
    assert {kind for kind, _ in shown[1:]} <= {"text", "code_inline"}, shown
    assert shown[1][1].startswith(" is not a run id"), shown
