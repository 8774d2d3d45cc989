"""A phase's class as a class file: the explanation as comments above the document, which
the shipped class loader reads like any class file."""

from __future__ import annotations

import yaml

from sweeper.capture.characterize import PhaseClass


def render(phase: PhaseClass, source: str) -> str:
    """The class file's text: comment lines naming the capture and explaining each cell and
    limit, then the class as YAML."""
    comments = [f"Workload class characterised from the capture {source}", *phase.explanation]
    head = "".join(f"# {_one_line(line)}\n" for line in comments)
    return head + yaml.safe_dump(phase.document, sort_keys=False, allow_unicode=True, width=100)


def _one_line(text: str) -> str:
    return " ".join(text.split())
