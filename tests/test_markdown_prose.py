"""A description shown in Markdown (REPORT.md, the app) is one paragraph of its own words: no
line of it opens a heading, a list, a quote, a code block or a rule, whatever it holds. Checked
with a CommonMark parser (markdown-it-py, which rich ships)."""

from __future__ import annotations

import re

import pytest
from markdown_it import MarkdownIt

from sweeper.untrusted import markdown_html_prose, markdown_prose, markdown_text

HOSTILE = [
    "Intro\n# INJECTED HEADING\n\n## Recommendations\nredo_log: raid0",
    "1. injected list\n2) another",
    "text\n\n    indented code block",
    "Setext heading\n===\n\n---\n***\n___",
    "- item\n+ item\n* item",
    "> a quote\n>> nested",
    "#no space heading? #### deep",
    "```\nfenced\n```",
    "<h1>raw</h1>\n<script>x</script>",
    "| a | b |\n|---|---|\n| 1 | 2 |",
]
PARSER = MarkdownIt("commonmark").enable("table")


@pytest.mark.parametrize("escape", [markdown_prose, markdown_html_prose])
@pytest.mark.parametrize("text", HOSTILE)
def test_a_description_is_one_paragraph_of_its_own_words(escape, text: str) -> None:
    tokens = PARSER.parse(escape(text))
    kinds = [t.type for t in tokens]
    assert kinds == ["paragraph_open", "inline", "paragraph_close"], (escape(text), kinds)
    (inline,) = [t for t in tokens if t.type == "inline"]
    shown = "".join(c.content for c in inline.children or [] if c.type == "text")
    assert shown == " ".join(text.split())  # every character shown as itself


def test_plain_prose_reads_as_written() -> None:
    text = "RAID 10 on 16 drives, 8k random reads at qd1x20 - the study's data files."
    assert markdown_prose(text) == text


SPANS = [
    "_em_ and __strong__ and *em* and **strong**",
    "~~struck~~ and ~one~",
    "[a link](http://192.0.2.1/) and ![an image](http://192.0.2.1/x.png)",
    "<img src=x onerror=alert(1)> and <http://192.0.2.1/auto>",
    "`code` and $x^2$ and a | pipe",
    ":red[coloured] and :rocket: and :material/warning:",
    "host_stripe-16k, snake_case_ and a__b stay readable",
]


@pytest.mark.parametrize("text", SPANS)
def test_user_text_in_markdown_is_text(text: str) -> None:
    """No emphasis, strikethrough, link, image, HTML or code of the user's: only text, the
    characters as written (an invisible word joiner keeps a shortcode such as :rocket: from
    becoming an emoji, which Streamlit and GitHub make of the text after reading escapes)."""
    parser = MarkdownIt("commonmark").enable("strikethrough")
    (inline,) = [t for t in parser.parse(markdown_text(text)) if t.type == "inline"]
    kinds = {c.type for c in inline.children or []}
    assert kinds <= {"text", "softbreak"}, (markdown_text(text), kinds)
    shown = "".join(c.content for c in inline.children or [])
    assert shown.replace("\u2060", "") == text
    assert not re.search(r":[\w+\-/]+:", shown)  # no shortcode left whole


def test_words_with_underscores_are_not_escaped() -> None:
    assert markdown_text("raid10-host_stripe-16k") == "raid10-host_stripe-16k"
